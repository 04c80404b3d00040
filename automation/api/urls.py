from django.urls import path  # noqa: F401

# Mounted under /api/v1/ by config/urls.py.
urlpatterns: list = []
