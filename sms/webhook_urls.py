from django.urls import path  # noqa: F401

# Public webhooks, mounted under /api/webhooks/ (engine issue: /api/webhooks/sms/{provider}/{token}).
urlpatterns: list = []
