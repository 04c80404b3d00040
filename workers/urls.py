from django.urls import path  # noqa: F401

# Persian pages of this app, mounted at the site root by config/urls.py.
urlpatterns: list = []
