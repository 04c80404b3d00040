"""API keys: what a client sends to create one and what it reads back (the key itself only on creation)."""

from django.conf import settings
from django.utils import timezone
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from campaigns.platform.api.fields import BodyInput
from campaigns.platform.api.scopes import scope_names
from campaigns.platform.models import ApiToken
from campaigns.platform.text import StrictCharField
from campaigns.platform.tokens import MAX_TTL_DAYS

KEY_STATES = ["active", "expired", "revoked"]


class ApiKeyInput(BodyInput):
    name = StrictCharField(max_length=100, required=False, allow_blank=True, default="")
    scopes = serializers.ListField(
        child=serializers.ChoiceField(choices=scope_names()), min_length=1, max_length=16, default=["all"]
    )
    read_only = serializers.BooleanField(default=False)
    expires_in_days = serializers.IntegerField(min_value=1, max_value=MAX_TTL_DAYS, required=False)

    def validate(self, attrs):
        attrs.setdefault("expires_in_days", settings.API_TOKEN_TTL_DAYS)
        return attrs


class ApiKeyOutput(serializers.ModelSerializer):
    scopes = serializers.ListField(child=serializers.ChoiceField(choices=scope_names()))
    state = serializers.SerializerMethodField()
    granted_by = serializers.IntegerField(
        source="granted_by_id",
        allow_null=True,
        read_only=True,
        help_text="The key this one was made with (revoking that key revokes this one); null when made otherwise.",
    )
    revoked_with = serializers.IntegerField(
        source="revoked_with_id",
        allow_null=True,
        read_only=True,
        help_text="The key whose revocation revoked this one with it; null when revoked itself or live.",
    )

    class Meta:
        model = ApiToken
        fields = ["id", "name", "prefix", "scopes", "read_only", "state", "created_at", "expires_at"]
        fields += ["last_used_at", "revoked_at", "granted_by", "revoked_with"]

    @extend_schema_field(serializers.ChoiceField(choices=KEY_STATES))
    def get_state(self, obj) -> str:
        """``active``, ``expired`` or ``revoked``."""
        if obj.revoked_at is not None:
            return "revoked"
        return "expired" if obj.expires_at <= timezone.now() else "active"


class ApiKeyCreatedOutput(ApiKeyOutput):
    key = serializers.SerializerMethodField()

    class Meta(ApiKeyOutput.Meta):
        fields = [*ApiKeyOutput.Meta.fields, "key"]

    def get_key(self, obj) -> str:
        """The whole key (``<prefix>.<secret>``): shown this once, never stored."""
        return self.context["key"]
