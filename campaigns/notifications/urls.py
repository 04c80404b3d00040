from django.urls import path

from campaigns.notifications import views

urlpatterns = [
    path("notifications/", views.notification_list, name="notification-list"),
    path("followups/", views.my_followups, name="my-followups"),
]
