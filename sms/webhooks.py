"""Delivery/opt-out webhook: ``POST /api/webhooks/sms/{provider}/{token}`` and its signed variant
``POST /api/webhooks/sms/{provider}/signed/{workspace_id}``.

The per-workspace token is the only credential (compared in constant time). In the signed variant it never
rides in the URL: it is the HMAC-SHA256 key of ``Webhook-Signature: t=<unix seconds>,v1=<hex>`` over
``"<t>." + body`` (the outbound webhooks' scheme), and a ``t`` more than ``SIGNATURE_TOLERANCE`` seconds away
is refused. Every refusal of the credential (bad token or signature, unknown provider, automation off, too
large, too many reports, rate limit) answers the same 404; success never says whether a report matched.
With a good credential, a body that is not the documented shape — a report without ``message_id``
(``provider_message_id`` is the same field) or with a status not in ``sent|delivered|failed|rejected`` — is a
400 ``VALIDATION_ERROR`` naming each report, and nothing of that request is applied.
The rate limit is per client address (``RATE_PER_MINUTE`` posts), counted before the token is looked up: keyed
by the token, every made-up token was a cache entry of its own, and anonymous posts could fill (and, on a
local-memory cache, cull) the cache the login throttle counts in.
Only the neutral ``generic`` format is accepted (provider formats are added once verified against the real
provider, seed D6).
"""

import hashlib
import hmac
import json
import time

from django.http import JsonResponse
from drf_spectacular.utils import OpenApiParameter, extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.permissions import AllowAny
from rest_framework.views import APIView

from automation.models import AutomationSettings
from campaigns.platform.api.envelope import json_error
from campaigns.platform.api.fields import BodyInput
from campaigns.platform.api.schema import errors
from campaigns.platform.errors import NotFound, ValidationFailed
from campaigns.platform.login_throttle import over_rate
from campaigns.platform.text import typed_int
from sms.models import SmsSettings
from sms.services import REPORT_STATUSES, delivery_reports_apply, settings_for_token

MAX_BYTES = 64 * 1024
MAX_REPORTS = 200
RATE_PER_MINUTE = 600  # per client address: a provider posting for many workspaces shares it
FORMATS = {"generic"}
SIGNATURE_TOLERANCE = 300  # seconds between the signature's t and now


class DeliveryReportInput(BodyInput):
    message_id = serializers.CharField(
        max_length=64, required=False, help_text="The provider's message id (the send's provider_message_id)."
    )
    provider_message_id = serializers.CharField(max_length=64, required=False, help_text="Same as message_id.")
    status = serializers.ChoiceField(choices=sorted(REPORT_STATUSES))
    at = serializers.CharField(max_length=40, required=False, help_text="When the provider saw it (kept as is).")


class DeliveryWebhookInput(BodyInput):
    reports = DeliveryReportInput(many=True, required=False, max_length=MAX_REPORTS)
    opt_outs = serializers.ListField(
        child=serializers.CharField(max_length=40),
        required=False,
        max_length=MAX_REPORTS,
        help_text='Numbers in any notation ("0912…", "+98…", Persian digits) or {"number": "…"} objects.',
    )


ACCEPTED = inline_serializer("DeliveryWebhookAccepted", {"ok": serializers.BooleanField()})


def _not_found() -> JsonResponse:
    return JsonResponse(
        {"success": False, "error": {"code": "NOT_FOUND", "message": "پیدا نشد.", "details": {}}}, status=404
    )


REPORT_FIELDS = frozenset(DeliveryReportInput().fields)
BODY_FIELDS = frozenset(DeliveryWebhookInput().fields)
UNKNOWN = "این فیلد شناخته نیست."


def reports_check(payload: dict, reports: list) -> None:
    """The body is closed (the documented fields only) and each report names a message and a known status;
    otherwise a 400 naming them, and nothing of the request is applied."""
    problems: dict = {key: [UNKNOWN] for key in sorted(set(payload) - BODY_FIELDS)}
    for index, report in enumerate(reports):
        if not isinstance(report, dict):
            problems.setdefault("reports", {})[str(index)] = {"non_field_errors": ["یک شیء JSON بفرستید."]}
            continue
        found = {key: [UNKNOWN] for key in sorted(set(report) - REPORT_FIELDS)}
        if not str(report.get("message_id") or report.get("provider_message_id") or "").strip():
            found["message_id"] = ["شناسه پیام (message_id) لازم است."]
        if str(report.get("status")) not in REPORT_STATUSES:
            found["status"] = [
                f"وضعیت «{str(report.get('status'))[:40]}» شناخته نیست: {', '.join(sorted(REPORT_STATUSES))}."
            ]
        if found:
            problems.setdefault("reports", {})[str(index)] = found
    if problems:
        raise ValidationFailed(details=problems)


def signature_valid(*, secret: str, header: str, body: bytes, now: float | None = None) -> bool:
    """``t=<unix seconds>,v1=<hex>``: HMAC-SHA256 of ``"<t>." + body`` with ``secret``, ``t`` recent."""
    parts = [p.strip().split("=", 1) for p in (header or "").split(",") if "=" in p]
    stamp = next((v for k, v in parts if k == "t"), "")
    seconds = typed_int(stamp)
    if seconds is None or abs(seconds - (now or time.time())) > SIGNATURE_TOLERANCE:
        return False
    expected = hmac.new(secret.encode(), stamp.encode() + b"." + body, hashlib.sha256).hexdigest()
    return any(k == "v1" and hmac.compare_digest(v.strip(), expected) for k, v in parts)


class _DeliveryWebhook(APIView):
    authentication_classes = ()
    permission_classes = (AllowAny,)
    throttle_classes = ()  # its own limit, per client address (above)

    def _settings(self, request, **kwargs) -> SmsSettings:
        raise NotImplementedError

    def _answer(self, request, provider: str, **kwargs):
        if (
            provider not in FORMATS
            or len(request.body) > MAX_BYTES
            or over_rate(request, "sms-webhook", RATE_PER_MINUTE)
        ):
            return _not_found()
        try:
            settings = self._settings(request, **kwargs)
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
        reports_check(payload if isinstance(payload, dict) else {}, reports)
        reports = [{**r, "message_id": r.get("message_id") or r.get("provider_message_id")} for r in reports]
        delivery_reports_apply(settings=settings, reports=reports, opt_outs=opt_outs)
        return JsonResponse({"ok": True})

    @property
    def allowed_methods(self) -> list[str]:
        return ["POST"]

    def http_method_not_allowed(self, request, *args, **kwargs):
        response = json_error("METHOD_NOT_ALLOWED", "این روش درخواست پشتیبانی نمی‌شود.", 405)
        response["Allow"] = "POST"
        return response


_DOC = (
    'Delivery reports and opt-outs from the SMS provider: `{"reports": [{"message_id", "status", "at"}], '
    '"opt_outs": [...]}` (≤ 200 each, ≤ 64 KB). Status only moves forward; a report is stored once. Any refusal '
    "of the credential is the same 404; success never says whether a report matched."
)


class DeliveryWebhook(_DeliveryWebhook):
    """The token in the URL (``webhook_path`` of the SMS settings)."""

    def _settings(self, request, token: str) -> SmsSettings:
        return settings_for_token(token)

    @extend_schema(
        operation_id="sms_delivery_webhook",
        tags=["SMS"],
        auth=[],
        request=DeliveryWebhookInput,
        responses={200: ACCEPTED, **errors(400, 404, 405)},
        description=_DOC,
    )
    def post(self, request, provider: str, token: str):
        return self._answer(request, provider, token=token)


class SignedDeliveryWebhook(_DeliveryWebhook):
    """The token as the HMAC key of ``Webhook-Signature``; the workspace by its id in the URL."""

    def _settings(self, request, workspace_id: int) -> SmsSettings:
        settings = SmsSettings.objects.filter(workspace_id=workspace_id).first()
        header = request.headers.get("Webhook-Signature", "")
        if settings is None or not signature_valid(secret=settings.webhook_token, header=header, body=request.body):
            raise NotFound()
        return settings

    @extend_schema(
        operation_id="sms_delivery_webhook_signed",
        tags=["SMS"],
        auth=[],
        request=DeliveryWebhookInput,
        parameters=[
            OpenApiParameter(
                "Webhook-Signature",
                str,
                OpenApiParameter.HEADER,
                required=True,
                description='`t=<unix seconds>,v1=<hex>`: HMAC-SHA256 of "<t>." + body keyed with the workspace\'s '
                "webhook token; t within 300 s.",
            )
        ],
        responses={200: ACCEPTED, **errors(400, 404, 405)},
        description=_DOC,
    )
    def post(self, request, provider: str, workspace_id: int):
        return self._answer(request, provider, workspace_id=workspace_id)
