"""The JSON API: body bounds, Django REST framework and the OpenAPI schema (drf-spectacular)."""

import os

from campaigns.platform.channels import channels_in
from config.settings.base import INSTALLED_APPS

_channels = channels_in(INSTALLED_APPS)

API_JSON_MAX_DEPTH = int(os.environ.get("API_JSON_MAX_DEPTH", "64"))
# Entries of any one array or object of a JSON body (the largest list field of the API holds 20,000).
API_JSON_MAX_ITEMS = int(os.environ.get("API_JSON_MAX_ITEMS", "20000"))
# A POST repeating the Idempotency-Key of one still running waits this long for its answer, then gets a 409.
IDEMPOTENCY_WAIT_SECONDS = float(os.environ.get("IDEMPOTENCY_WAIT_SECONDS", "30"))
# A claim still unanswered this long after it was taken is stale (its request died): the next request with
# the key takes it over. Longer than any request runs (gunicorn's worker timeout is 30 s by default).
IDEMPOTENCY_CLAIM_TIMEOUT_SECONDS = float(os.environ.get("IDEMPOTENCY_CLAIM_TIMEOUT_SECONDS", "120"))

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        # Token first: its WWW-Authenticate header makes unauthenticated requests a proper 401.
        "campaigns.platform.api.auth.HashedTokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    # an API key stays within its scopes (campaigns.platform.api.scopes)
    "DEFAULT_PERMISSION_CLASSES": [
        "rest_framework.permissions.IsAuthenticated",
        "campaigns.platform.api.scopes.ApiKeyScope",
    ],
    "DEFAULT_PAGINATION_CLASS": "campaigns.platform.api.pagination.PageSizePagination",
    "DEFAULT_FILTER_BACKENDS": ["django_filters.rest_framework.DjangoFilterBackend"],
    "DEFAULT_SCHEMA_CLASS": "campaigns.platform.api.schema.AreaAutoSchema",
    "EXCEPTION_HANDLER": "campaigns.platform.api.envelope.exception_handler",
    # Request bodies are JSON only (multipart only where a file is uploaded: the view says so); JSON
    # deeper than API_JSON_MAX_DEPTH, or any body carrying a control character, is a 400; OPTIONS
    # never builds a serializer.
    "DEFAULT_PARSER_CLASSES": ["campaigns.platform.api.parsers.SafeJSONParser"],
    "DEFAULT_METADATA_CLASS": "campaigns.platform.api.parsers.PlainMetadata",
    "DEFAULT_THROTTLE_CLASSES": [
        "rest_framework.throttling.AnonRateThrottle",
        "rest_framework.throttling.UserRateThrottle",
    ],
    "DEFAULT_THROTTLE_RATES": {
        "anon": os.environ.get("THROTTLE_ANON", "60/min"),
        "user": os.environ.get("THROTTLE_USER", "2000/min"),
    },
    "UNAUTHENTICATED_USER": "django.contrib.auth.models.AnonymousUser",
    # the API's test client sends JSON, as every client must (multipart only with `format="multipart"`)
    "TEST_REQUEST_DEFAULT_FORMAT": "json",
}

SPECTACULAR_SETTINGS = {
    "TITLE": "Campaign platform API",
    "DESCRIPTION": (
        "Workspace-scoped API. Send `X-Workspace: <slug>` to choose a workspace; "
        "errors always use the envelope `{success: false, error: {code, message, details}}`."
    ),
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "COMPONENT_SPLIT_REQUEST": True,
    # Swagger UI groups operations by area: campaigns.platform.api.schema.AreaAutoSchema tags each one
    # from its path (or its app), in this order, with one line in Persian and English.
    "TAGS": [
        {"name": "Targets", "description": "مخاطبان، فهرست‌ها، ورود و خروجی اکسل — targets, lists, Excel import/export"},
        {
            "name": "Workflows and journeys",
            "description": "گردش‌کارها، سفرها، ثبت‌نام و اجراها — workflows, journeys, enrollments, executions",
        },
        # each installed channel's area (its AppConfig's ``channel.api_area``)
        *({"name": c.api_area.name, "description": c.api_area.description} for c in _channels if c.api_area),
        {
            "name": "Campaigns, groups and chains",
            "description": "کمپین‌ها، گروه‌ها و زنجیره‌های پیگیری — campaigns, groups, follow-up chains",
        },
        {
            "name": "Approvals",
            "description": "ارسال برای تأیید، تأیید و رد — submit, approve, reject (single and chain)",
        },
        {"name": "Runs", "description": "اجراهای کمپین، مخاطبان ثابت و رویدادهای تبدیل — campaign runs, conversions"},
        {"name": "Platform", "description": "کاربر جاری و فضای کاری — the signed-in user and their workspaces"},
    ],
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "campaigns.platform.api.schema.add_workspace_header",
        "campaigns.platform.api.schema.add_generic_errors",
        "campaigns.platform.api.schema.add_idempotency_header",
        "campaigns.platform.api.schema.english_texts",
        "campaigns.platform.webhook_payloads.add_webhook_events",
    ],
    "ENUM_NAME_OVERRIDES": {
        "TargetStatusEnum": "campaigns.choices.TargetStatus",
        "CampaignStatusEnum": "campaigns.choices.CampaignStatus",
        "ImportStatusEnum": "campaigns.choices.ImportStatus",
        "ApiKeyScopeEnum": "campaigns.platform.api.scopes.scope_names",
        "WebhookEventEnum": "campaigns.platform.webhooks.webhook_event_names",
        "WebhookDeliveryStatusEnum": "campaigns.platform.models.WebhookDeliveryStatus",
        # the core's journey and every installed channel's kind, read when the schema is built
        "CampaignKindEnum": "campaigns.platform.channels.campaign_kind_choices",
        "FrequencyCapPriorityEnum": "campaigns.choices.CapPriority",
    },
}

# Each channel's enums (``channel.enum_names``).
for _channel in _channels:
    SPECTACULAR_SETTINGS["ENUM_NAME_OVERRIDES"].update(_channel.enum_names)
# Journey enrollment review (automation): batch status and the add/skip decision.
SPECTACULAR_SETTINGS["ENUM_NAME_OVERRIDES"].update(
    {
        "EnrollmentBatchStatusEnum": "automation.choices.BatchStatus",
        "EnrollmentDecisionEnum": "automation.choices.Decision",
        "ExecutionStatusEnum": "automation.choices.ExecutionStatus",
        "LaunchReasonEnum": "automation.choices.LaunchReason",
        "MigrationChoiceEnum": "automation.choices.MigrationChoice",
        # every action node's `type` (one node component per action: SendSmsNode …)
        "ActionNodeTypeEnum": [("action", "action")],
        "VersionStatusEnum": "automation.choices.VersionStatus",
        "OnUnknownOutcomeEnum": "automation.choices.OnUnknownOutcome",
        # a journey event's type: the events of an execution and a target's timeline
        "ExecutionEventOutputTypeEnum": "automation.choices.EventType",
        # why a target's timeline entry sent nothing; an enrollment that skipped it (its type and reason both)
        "WhyNotSentEnum": "automation.journey_stats.WHY_NOT_SENT_REASONS",
        "ConflictSkippedEnum": [("conflict_skipped", "conflict_skipped")],
        # a bulk control's action, asked and answered
        "BulkControlActionEnum": "automation.services.executions.ACTIONS",
    }
)
