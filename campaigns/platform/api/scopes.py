"""What an API key may call: its scopes (areas of the API) and whether it may write.

A key holds ``scopes`` — ``["all"]`` or some of ``targets``, ``journeys``, ``chains``, ``platform`` and one per
installed channel (``sms``, ``browser``) — and ``read_only``. An operation's scope is the area Swagger UI files
it under (``campaigns.platform.api.schema.operation_area``): Targets → ``targets``; Workflows and journeys →
``journeys``; Campaigns, groups and chains, Approvals and Runs → ``chains``; a channel's area → the channel's
name; Platform (notifications, follow-ups, API keys, webhooks) → ``platform``. A read-only key may only GET
(HEAD, OPTIONS); every key may read ``/api/v1/me`` and the schema. The role still decides the rest: a scope
never gives a member more than their role.
"""

from rest_framework.permissions import SAFE_METHODS, BasePermission

from campaigns.platform.channels import installed_channels
from campaigns.platform.errors import PermissionDenied
from campaigns.platform.models import ApiToken

ALL = "all"
ALWAYS = frozenset({"/api/v1/me"})


class ScopeDenied(PermissionDenied):
    code = "API_KEY_SCOPE"
    default_message = "کلید API اجازه این کار را ندارد."
    english = "This API key's scopes do not allow this call (a scope or read-only); see details."


def scope_labels() -> dict[str, str]:
    """Every scope a key may hold and its Persian label, in the order the pages show them."""
    channels = {c.name: c.label for c in installed_channels() if c.api_area}
    return {
        ALL: "همه بخش‌ها",
        "targets": "مخاطبان و فهرست‌ها",
        "journeys": "گردش‌کارها و سفرها",
        "chains": "کمپین‌ها، زنجیره‌ها، تأیید و اجراها",
        **channels,
        "platform": "اعلان‌ها، پیگیری‌ها، کلیدها و وب‌هوک‌ها",
    }


def scope_names() -> list[str]:
    return list(scope_labels())


def operation_scope(path: str, view_module: str) -> str:
    """The scope an operation needs, from its area."""
    # Not at module level: DRF's settings import this module while rest_framework.views, which the
    # schema module needs, is still loading.
    from campaigns.platform.api import schema

    core = {
        schema.TARGETS: "targets",
        schema.WORKFLOWS: "journeys",
        schema.CHAINS: "chains",
        schema.APPROVALS: "chains",
        schema.RUNS: "chains",
        schema.PLATFORM: "platform",
    }
    by_channel = {c.api_area.name: c.name for c in installed_channels() if c.api_area}
    area = schema.operation_area(path, view_module)
    return core.get(area) or by_channel.get(area, "platform")


def scope_check(token: ApiToken, *, method: str, path: str, view_module: str) -> None:
    """Raise ``ScopeDenied`` (403 ``API_KEY_SCOPE``) unless ``token`` may make this call."""
    if path in ALWAYS and method in SAFE_METHODS:
        return
    if token.read_only and method not in SAFE_METHODS:
        raise ScopeDenied("این کلید API فقط خواندنی است.", details={"read_only": True})
    needed = operation_scope(path, view_module)
    if ALL not in token.scopes and needed not in token.scopes:
        raise ScopeDenied(f"این کلید API به بخش «{needed}» دسترسی ندارد.", details={"scope": needed})


class ApiKeyScope(BasePermission):
    """DRF permission: a request authenticated by an API key stays within the key's scopes (sessions pass)."""

    def has_permission(self, request, view) -> bool:
        if isinstance(request.auth, ApiToken):
            scope_check(request.auth, method=request.method, path=request.path, view_module=type(view).__module__)
        return True
