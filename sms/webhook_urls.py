"""Public webhooks, mounted under /api/webhooks/."""

from django.urls import path

from sms.inbound.push import inbound_push
from sms.webhooks import delivery_webhook

urlpatterns = [
    path("sms/inbound/<int:account_id>/<str:token>", inbound_push, name="sms-inbound-push"),
    path("sms/<str:provider>/<str:token>", delivery_webhook, name="sms-delivery-webhook"),
]
