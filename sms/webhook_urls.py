"""Public webhooks, mounted under /api/webhooks/."""

from django.urls import path

from sms.webhooks import delivery_webhook

urlpatterns = [
    path("sms/<str:provider>/<str:token>", delivery_webhook, name="sms-delivery-webhook"),
]
