"""Delivery/opt-out webhook: ``POST /api/webhooks/sms/{provider}/{token}``.

The per-workspace token is the only credential (compared in constant time);
every refusal (bad token, unknown provider, automation off, too large, rate
limit) answers the same 404; success never says whether a report matched.
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
from sms.services import delivery_reports_apply, settings_for_token

MAX_BYTES = 64 * 1024
MAX_REPORTS = 200
RATE_PER_MINUTE = 120
FORMATS = {"generic"}


def _not_found() -> JsonResponse:
    return JsonResponse(
        {"success": False, "error": {"code": "NOT_FOUND", "message": "پیدا نشد.", "details": {}}}, status=404
    )


def _rate_limited(token: str) -> bool:
    key = f"sms-webhook:{token[:16]}"
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
    if provider not in FORMATS or len(request.body) > MAX_BYTES or _rate_limited(token):
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
