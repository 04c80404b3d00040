"""Outbound webhooks: endpoints (the secret only when made or rotated) and their delivery log."""

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from campaigns.platform.api.fields import BodyInput
from campaigns.platform.models import WebhookDelivery, WebhookDeliveryStatus, WebhookEndpoint
from campaigns.platform.text import StrictCharField
from campaigns.platform.webhooks import webhook_event_names


class WebhookInput(BodyInput):
    url = serializers.URLField(max_length=500, help_text="http(s); a public address (the address guard).")
    events = serializers.ListField(child=serializers.ChoiceField(choices=webhook_event_names()), max_length=50)
    description = StrictCharField(max_length=200, required=False, allow_blank=True)
    is_active = serializers.BooleanField(required=False)


class WebhookOutput(serializers.ModelSerializer):
    events = serializers.ListField(child=serializers.ChoiceField(choices=webhook_event_names()))
    previous_secret_until = serializers.SerializerMethodField()

    class Meta:
        model = WebhookEndpoint
        fields = ["id", "url", "description", "events", "is_active", "previous_secret_until"]
        fields += ["created_at", "updated_at"]

    @extend_schema_field(serializers.DateTimeField(allow_null=True))
    def get_previous_secret_until(self, obj):
        """Until when the secret before the last rotation still signs (null: none)."""
        return serializers.DateTimeField().to_representation(obj.previous_secret_until) if obj.previous_secret else None


class WebhookSecretOutput(WebhookOutput):
    secret = serializers.SerializerMethodField()

    class Meta(WebhookOutput.Meta):
        fields = [*WebhookOutput.Meta.fields, "secret"]

    def get_secret(self, obj) -> str:
        """The signing secret: shown this once (when made or rotated), never again."""
        return self.context["secret"]


class WebhookDeliveryOutput(serializers.ModelSerializer):
    status = serializers.ChoiceField(choices=WebhookDeliveryStatus.choices)

    class Meta:
        model = WebhookDelivery
        fields = ["id", "webhook_id", "event_id", "event_type", "status", "attempts", "next_attempt_at"]
        fields += ["last_status_code", "last_error", "delivered_at", "replay_of_id", "created_at", "payload"]

    webhook_id = serializers.IntegerField(source="endpoint_id")
    payload = serializers.JSONField(help_text="The body sent: {id, type, created_at, workspace_id, data}.")
