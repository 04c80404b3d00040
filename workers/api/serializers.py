"""Serializers: validate input, render output. Cookies and proxy passwords are write-only."""

from drf_spectacular.extensions import OpenApiSerializerFieldExtension
from rest_framework import serializers

from campaigns.choices import CampaignStatus
from campaigns.platform.api.fields import BodyInput, IdField, ObjectField, ShapedJSONField, ShapedObjectField
from campaigns.platform.permissions import Perm
from campaigns.platform.text import DESCRIPTION_MAX_LENGTH, StrictCharField, VisibleNameField
from workers.choices import ActionType, PlatformStatus, ProxyProtocol, SessionStatus, TaskStatus
from workers.steps import MAX_STEPS, step_handler, step_names


class StepField(serializers.DictField):
    """One declarative step (``{"action": "click", "selector": "#like"}``); the service validates it."""


class StepFieldSchema(OpenApiSerializerFieldExtension):
    """The step object in the schema, derived from the step registry when the schema is generated."""

    target_class = StepField

    def map_serializer_field(self, auto_schema, direction):
        properties = {"action": {"type": "string", "enum": step_names()}}
        for name in step_names():
            for key in sorted(step_handler(name).keys):
                properties.setdefault(key, {"type": "string"})
        properties["timeout_ms"] = {"type": "integer", "minimum": 1, "maximum": 120000}
        return {"type": "object", "properties": properties, "required": ["action"]}


class LoginCheck(BodyInput):
    """How a worker tells a session is logged out: the page's URL matches a pattern, or the selector is absent."""

    login_url_patterns = serializers.ListField(child=serializers.CharField(), required=False)
    logged_in_selector = serializers.CharField(required=False, allow_blank=True)


class HiddenByRoleMixin:
    """Field-level hide: ``hidden_fields`` render as null unless the member has ``hidden_unless``.

    The acting member comes from ``context["actor"]`` or the view of ``context["request"]``; with
    neither, the fields stay hidden (fail closed).
    """

    hidden_unless = Perm.VIEW_BROWSER_DETAILS
    hidden_fields: tuple[str, ...] = ()

    def _actor(self):
        actor = self.context.get("actor")
        if actor is None and self.context.get("request") is not None:
            view = (getattr(self.context["request"], "parser_context", None) or {}).get("view")
            actor = getattr(view, "actor", None)
        return actor

    def to_representation(self, instance):
        data = super().to_representation(instance)
        actor = self._actor()
        if actor is None or not actor.has(self.hidden_unless):
            for field in self.hidden_fields:
                data[field] = None
        return data


class BrowserCampaignInput(BodyInput):
    """The seed's body: platform, accounts[], target links[], content template, action, start date."""

    kind = serializers.ChoiceField(choices=["browser"])
    name = VisibleNameField(max_length=200)
    description = StrictCharField(max_length=DESCRIPTION_MAX_LENGTH, required=False, allow_blank=True, default="")
    platform = serializers.RegexField(r"^[a-z0-9][a-z0-9_-]{0,39}$", max_length=40)
    accounts = serializers.ListField(child=serializers.IntegerField(min_value=1), min_length=1, max_length=10000)
    spare_accounts = serializers.ListField(
        child=serializers.IntegerField(min_value=1), required=False, default=list, max_length=10000
    )
    target_links = serializers.ListField(child=serializers.URLField(max_length=8000), min_length=1, max_length=1000)
    content_template = StrictCharField(required=False, allow_blank=True, default="", max_length=5000)
    action = serializers.ChoiceField(choices=ActionType.choices)
    start_date = serializers.DateTimeField(required=False, allow_null=True, default=None)
    steps = serializers.ListField(child=StepField(), required=False, max_length=MAX_STEPS)
    login_check = ShapedObjectField(shape=LoginCheck, required=False)
    action_params = ObjectField(required=False, default=dict)
    pacing_seconds = serializers.IntegerField(required=False, min_value=0, max_value=86400)
    concurrency_cap = serializers.IntegerField(required=False, min_value=1, max_value=10000)
    max_attempts = serializers.IntegerField(required=False, min_value=1, max_value=10)
    backoff_seconds = serializers.IntegerField(required=False, min_value=0, max_value=86400)
    priority = serializers.IntegerField(required=False, default=0, min_value=-100, max_value=100)


class BrowserCampaignUpdateInput(BrowserCampaignInput):
    """A draft's whole body again (``PUT``): the creation body without ``kind``."""

    kind = None


class AccountInput(BodyInput):
    label = VisibleNameField(max_length=120)
    platform = serializers.RegexField(r"^[a-z0-9][a-z0-9_-]{0,39}$", max_length=40)
    cookie_domain = StrictCharField(
        required=False,
        allow_blank=True,
        max_length=253,
        help_text="The platform's site (e.g. example.com): the only domain the cookies are sent to.",
    )
    cookies = StrictCharField(
        write_only=True,
        required=False,
        allow_blank=True,
        max_length=100_000,
        help_text="A Cookie header, a JSON or a Netscape cookie export; changing cookie_domain needs new cookies.",
    )
    user_agent = StrictCharField(required=False, allow_blank=True, max_length=500)
    viewport_width = serializers.IntegerField(required=False, min_value=200, max_value=4000)
    viewport_height = serializers.IntegerField(required=False, min_value=200, max_value=4000)
    proxy_id = IdField(
        required=False,
        allow_null=True,
        help_text="The account's own proxy. The proxy is where the cookies go: changing it on an account that "
        "holds cookies needs `cookies` in the same request, or the owner/admin role (400 on `cookies` otherwise).",
    )
    use_proxy_pool = serializers.BooleanField(
        required=False,
        help_text="Without its own proxy, go through the workspace's proxies. Off: an account holding cookies goes "
        "out directly, never through a proxy nobody chose for it (changing it: like `proxy_id`).",
    )


class AccountOutput(serializers.Serializer):
    id = serializers.IntegerField()
    label = serializers.CharField()
    platform = serializers.CharField()
    has_cookies = serializers.BooleanField()
    cookie_domain = serializers.CharField()
    cookie_count = serializers.IntegerField()
    cookies_expire_at = serializers.DateTimeField(allow_null=True)
    user_agent = serializers.CharField()
    viewport_width = serializers.IntegerField()
    viewport_height = serializers.IntegerField()
    session_status = serializers.ChoiceField(choices=SessionStatus.choices)
    error_score = serializers.FloatField()
    usage_count = serializers.IntegerField()
    last_used_at = serializers.DateTimeField(allow_null=True)
    proxy_id = serializers.IntegerField(allow_null=True)
    use_proxy_pool = serializers.BooleanField()
    revision = serializers.IntegerField()
    created_at = serializers.DateTimeField()
    updated_at = serializers.DateTimeField()


class AccountStatusInput(BodyInput):
    transition = serializers.ChoiceField(choices=["expire", "disable", "reactivate"])


class ProxyInput(BodyInput):
    label = VisibleNameField(required=False, allow_blank=True, max_length=120)
    protocol = serializers.ChoiceField(choices=ProxyProtocol.choices, required=False)
    host = StrictCharField(max_length=255)
    port = serializers.IntegerField(min_value=1, max_value=65535)
    username = StrictCharField(required=False, allow_blank=True, max_length=255)
    password = StrictCharField(
        write_only=True,
        required=False,
        allow_blank=True,
        max_length=255,
        help_text="Write-only. Changing protocol, host or port needs it again (empty clears it).",
    )


class ProxyOutput(HiddenByRoleMixin, serializers.Serializer):
    """Viewers and operators see that a proxy exists and how it behaves, not where it is or who logs in."""

    hidden_fields = ("host", "port", "username", "last_error")

    id = serializers.IntegerField()
    label = serializers.CharField()
    protocol = serializers.ChoiceField(choices=ProxyProtocol.choices)
    host = serializers.CharField(allow_null=True, help_text="null for viewers and operators")
    port = serializers.IntegerField(allow_null=True, help_text="null for viewers and operators")
    username = serializers.CharField(allow_null=True, help_text="null for viewers and operators")
    has_password = serializers.BooleanField()
    is_available = serializers.BooleanField()
    error_score = serializers.FloatField()
    cooldown_until = serializers.DateTimeField(allow_null=True)
    last_error = serializers.CharField(allow_null=True, help_text="null for viewers and operators")
    last_error_at = serializers.DateTimeField(allow_null=True)
    success_count = serializers.IntegerField()
    failure_count = serializers.IntegerField()
    created_at = serializers.DateTimeField()
    updated_at = serializers.DateTimeField()


class ActionConfigInput(BodyInput):
    platform = serializers.RegexField(r"^[a-z0-9][a-z0-9_-]{0,39}$", max_length=40)
    action_type = serializers.ChoiceField(choices=ActionType.choices)
    steps = serializers.ListField(child=StepField(), max_length=MAX_STEPS)
    login_check = ShapedObjectField(shape=LoginCheck, required=False, default=dict)


class ActionConfigOutput(HiddenByRoleMixin, serializers.Serializer):
    """Viewers and operators see which configs exist, not the selectors and texts they drive pages with."""

    hidden_fields = ("steps", "login_check")

    id = serializers.IntegerField()
    platform = serializers.CharField()
    action_type = serializers.ChoiceField(choices=ActionType.choices)
    steps = serializers.ListField(child=StepField(), allow_null=True, help_text="null for viewers and operators")
    login_check = ShapedJSONField(shape=LoginCheck, allow_null=True, help_text="null for viewers and operators")
    created_at = serializers.DateTimeField()
    updated_at = serializers.DateTimeField()


class TaskOutput(serializers.Serializer):
    id = serializers.IntegerField()
    campaign_id = serializers.IntegerField()
    platform_id = serializers.IntegerField()
    account_id = serializers.IntegerField()
    account_label = serializers.CharField(source="account.label")
    proxy_id = serializers.IntegerField(allow_null=True)
    link = serializers.CharField()
    action_type = serializers.ChoiceField(choices=ActionType.choices)
    server = serializers.CharField()
    priority = serializers.IntegerField()
    status = serializers.ChoiceField(choices=TaskStatus.choices)
    status_display = serializers.CharField(source="get_status_display")
    start_date = serializers.DateTimeField()
    attempt_count = serializers.IntegerField()
    dispatched_at = serializers.DateTimeField(allow_null=True)
    lease_expires_at = serializers.DateTimeField(allow_null=True)
    finished_at = serializers.DateTimeField(allow_null=True)
    result_data = serializers.DictField()
    error_code = serializers.CharField()
    error_reason = serializers.CharField()
    replaces_id = serializers.IntegerField(allow_null=True)
    replaced_by_id = serializers.SerializerMethodField()
    created_at = serializers.DateTimeField()

    def get_replaced_by_id(self, obj) -> int | None:
        replacement = getattr(obj, "replaced_by", None)
        return replacement.pk if replacement is not None else None


class PlatformOutput(HiddenByRoleMixin, serializers.Serializer):
    hidden_fields = ("metadata",)

    id = serializers.IntegerField()
    campaign_id = serializers.IntegerField()
    campaign_status = serializers.ChoiceField(source="campaign.status", choices=CampaignStatus.choices)
    platform = serializers.CharField()
    status = serializers.ChoiceField(choices=PlatformStatus.choices)
    revision = serializers.IntegerField()
    is_tasks_created = serializers.BooleanField()
    tasks_created_at = serializers.DateTimeField(allow_null=True)
    start_date = serializers.DateTimeField()
    metadata = serializers.DictField(allow_null=True, help_text="null for viewers and operators")
    created_at = serializers.DateTimeField()


class StatisticsOutput(serializers.Serializer):
    campaign_id = serializers.IntegerField()
    total = serializers.IntegerField()
    completed = serializers.IntegerField()
    failed = serializers.IntegerField()
    pending = serializers.IntegerField()
    summary = serializers.CharField(help_text='"completed/total", e.g. "87/100"')
    refreshed_at = serializers.DateTimeField(allow_null=True)
