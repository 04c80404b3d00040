from django.urls import path

from workers import views

# Persian pages of this app, mounted at the site root by config/urls.py.
urlpatterns = [
    path("browser/", views.browser_campaigns, name="browser-campaigns"),
    path("browser/campaigns/<int:campaign_id>/", views.browser_campaign_detail, name="browser-campaign"),
]
