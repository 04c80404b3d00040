"""Delivery/opt-out webhook: ``POST /api/webhooks/sms/{provider}/{token}``.

The per-workspace token is the only credential (compared in constant time);
every refusal (bad token, unknown provider, automation off, too large, rate
limit) answers the same 404; success never says whether a report matched.
The rate limit is per client address (``RATE_PER_MINUTE`` posts), counted
before the token is looked up: keyed by the token, every made-up token was a
cache entry of its own, and anonymous posts could fill (and, on a local-memory
cache, cull) the cache the login throttle counts in.
Only the neutral ``generic`` format is accepted (provider formats are added
once verified against the real provider, seed D6).
"""

import json

from django.core.cache import cache
from django.http import JsonResponse
from django.views.decorators.csrf import csrf_exempt

from automation.models import AutomationSettings
from campaigns.platform.api.envelope import json_error
from campaigns.platform.errors import NotFound
from campaigns.platform.login_throttle import client_ip
from sms.services import delivery_reports_apply, settings_for_token

MAX_BYTES = 64 * 1024
MAX_REPORTS = 200
RATE_PER_MINUTE = 600  # per client address: a provider posting for many workspaces shares it
FORMATS = {"generic"}


def _not_found() -> JsonResponse:
    return JsonResponse(
        {"success": False, "error": {"code": "NOT_FOUND", "message": "پیدا نشد.", "details": {}}}, status=404
    )


def _rate_limited(request) -> bool:
    key = f"sms-webhook:{client_ip(request)}"
    cache.add(key, 0, timeout=60)
    try:
        return cache.incr(key) > RATE_PER_MINUTE
    except ValueError:
        return False


@csrf_exempt
def delivery_webhook(request, provider: str, token: str):
    if request.method != "POST":
        response = json_error("METHOD_NOT_ALLOWED", "این روش درخواست پشتیبانی نمی‌شود.", 405)
        response["Allow"] = "POST"
        return response
    if provider not in FORMATS or len(request.body) > MAX_BYTES or _rate_limited(request):
        return _not_found()
    try:
        settings = settings_for_token(token)
    except NotFound:
        return _not_found()
    automation = AutomationSettings.objects.filter(workspace_id=settings.workspace_id).first()
    if (automation is not None and not automation.enabled) or not settings.enabled:
        return _not_found()
    try:
        payload = json.loads(request.body.decode() or "{}")
    except (ValueError, UnicodeDecodeError):
        return _not_found()
    reports = payload.get("reports") or [] if isinstance(payload, dict) else []
    opt_outs = payload.get("opt_outs") or [] if isinstance(payload, dict) else []
    if (
        not isinstance(reports, list)
        or not isinstance(opt_outs, list)
        or len(reports) > MAX_REPORTS
        or len(opt_outs) > MAX_REPORTS
    ):
        return _not_found()
    delivery_reports_apply(settings=settings, reports=reports, opt_outs=opt_outs)
    return JsonResponse({"ok": True})
