"""Public webhooks, mounted under /api/webhooks/."""

from django.urls import path

from sms.inbound.push import inbound_push
from sms.webhooks import DeliveryWebhook, SignedDeliveryWebhook

urlpatterns = [
    path("sms/inbound/<int:account_id>/<str:token>", inbound_push, name="sms-inbound-push"),
    path(
        "sms/<str:provider>/signed/<int:workspace_id>",
        SignedDeliveryWebhook.as_view(),
        name="sms-delivery-webhook-signed",
    ),
    path("sms/<str:provider>/<str:token>", DeliveryWebhook.as_view(), name="sms-delivery-webhook"),
]
