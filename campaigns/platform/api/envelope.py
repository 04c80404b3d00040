"""One error envelope for every API failure.

``{"success": false, "error": {"code": "UPPER_SNAKE", "message": "…", "details": {…}}}``
DRF exceptions, Django's Http404/PermissionDenied and our typed
``PlatformError`` subclasses all end up here; anything unexpected becomes
``INTERNAL_ERROR`` with nothing of the internals in the body.
"""

import logging

from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.core.exceptions import RequestDataTooBig, SuspiciousOperation, TooManyFieldsSent, TooManyFilesSent
from django.http import Http404, JsonResponse
from django.utils import translation
from rest_framework import exceptions
from rest_framework.response import Response
from rest_framework.views import set_rollback

from campaigns.platform.errors import ENGLISH_BY_CODE, PlatformError

logger = logging.getLogger("campaigns.api")

_DRF_CODES: list[tuple[type, str, int, str]] = [
    (exceptions.ValidationError, "VALIDATION_ERROR", 400, "اطلاعات ارسال‌شده معتبر نیست."),
    (exceptions.ParseError, "PARSE_ERROR", 400, "بدنه درخواست قابل خواندن نیست."),
    (exceptions.NotAuthenticated, "NOT_AUTHENTICATED", 401, "ابتدا وارد شوید."),
    (exceptions.AuthenticationFailed, "AUTHENTICATION_FAILED", 401, "اطلاعات ورود نادرست است."),
    (exceptions.PermissionDenied, "PERMISSION_DENIED", 403, "شما اجازه این کار را ندارید."),
    (exceptions.NotFound, "NOT_FOUND", 404, "مورد خواسته‌شده پیدا نشد."),
    (exceptions.MethodNotAllowed, "METHOD_NOT_ALLOWED", 405, "این روش درخواست پشتیبانی نمی‌شود."),
    (exceptions.NotAcceptable, "NOT_ACCEPTABLE", 406, "قالب پاسخ خواسته‌شده پشتیبانی نمی‌شود."),
    (exceptions.UnsupportedMediaType, "UNSUPPORTED_MEDIA_TYPE", 415, "نوع محتوای درخواست پشتیبانی نمی‌شود."),
    (exceptions.Throttled, "RATE_LIMITED", 429, "درخواست‌ها بیش از حد مجاز است؛ کمی بعد دوباره تلاش کنید."),
]


# ``Accept-Language: en``: the English of the codes no error class carries (each ``PlatformError`` class has its
# own ``english``: ``campaigns.platform.errors.ENGLISH_BY_CODE``).
ENGLISH = {
    "PARSE_ERROR": "The request body cannot be read as JSON.",
    "AUTHENTICATION_FAILED": "The API key is wrong, expired or revoked.",
    "METHOD_NOT_ALLOWED": "This method is not allowed here.",
    "NOT_ACCEPTABLE": "The requested response format is not supported.",
    "UNSUPPORTED_MEDIA_TYPE": "Send the body as application/json.",
    "PAYLOAD_TOO_LARGE": "The request body is too large.",
    "RATE_LIMITED": "Too many requests; retry after the time in details.",
    "IDEMPOTENCY_KEY_REUSED": "This Idempotency-Key was used with another request body.",
    "IDEMPOTENCY_KEY_IN_PROGRESS": "A request with this Idempotency-Key is still running; retry later.",
    "BAD_REQUEST": "Bad request.",
    "INTERNAL_ERROR": "Internal error; try again.",
}


def english_message(code: str) -> str:
    """The English message of a code (a code without one, which a test forbids, reads as its words)."""
    return ENGLISH.get(code) or ENGLISH_BY_CODE.get(code) or code.replace("_", " ").capitalize() + "."


def error_body(code: str, message: str, details=None, *, english: str | None = None) -> dict:
    if translation.get_language() == "en":
        message = english or english_message(code)
    return {"success": False, "error": {"code": code, "message": message, "details": details or {}}}


def exception_handler(exc, context):
    headers = {}
    if isinstance(exc, PlatformError):
        body, status = error_body(exc.code, exc.message, exc.details, english=exc.english_message), exc.http_status
    elif isinstance(exc, Http404):
        body, status = error_body("NOT_FOUND", "مورد خواسته‌شده پیدا نشد."), 404
    elif isinstance(exc, DjangoPermissionDenied):
        body, status = error_body("PERMISSION_DENIED", "شما اجازه این کار را ندارید."), 403
    elif isinstance(exc, RequestDataTooBig):
        body, status = error_body("PAYLOAD_TOO_LARGE", "حجم درخواست بیش از حد مجاز است."), 413
    elif isinstance(exc, (TooManyFieldsSent, TooManyFilesSent)):
        body, status = error_body("VALIDATION_ERROR", "تعداد فیلدهای درخواست بیش از حد مجاز است."), 400
    elif isinstance(exc, SuspiciousOperation):
        body, status = error_body("BAD_REQUEST", "درخواست نامعتبر است."), 400
    elif isinstance(exc, exceptions.APIException):
        code, status, message = "ERROR", exc.status_code, str(exc.detail)
        for cls, drf_code, drf_status, drf_message in _DRF_CODES:
            if isinstance(exc, cls):
                code, status, message = drf_code, drf_status, drf_message
                break
        details = exc.detail if isinstance(exc, exceptions.ValidationError) else {}
        if isinstance(details, list):
            details = {"non_field_errors": details}
        if isinstance(exc, exceptions.Throttled) and exc.wait is not None:
            headers["Retry-After"] = str(int(exc.wait))
            details = {"retry_after_seconds": int(exc.wait)}
        if getattr(exc, "auth_header", None):
            headers["WWW-Authenticate"] = exc.auth_header
        body = error_body(code, message, details)
    else:
        logger.exception("unhandled API error in %s", context.get("view").__class__.__name__)
        body, status = error_body("INTERNAL_ERROR", "خطای داخلی رخ داد؛ دوباره تلاش کنید."), 500
    set_rollback()
    return Response(body, status=status, headers=headers)


def json_error(code: str, message: str, status: int) -> JsonResponse:
    return JsonResponse(error_body(code, message), status=status, json_dumps_params={"ensure_ascii": False})


def rate_limited_response(wait: int) -> JsonResponse:
    """429 ``RATE_LIMITED`` as DRF's throttles answer it (``retry_after_seconds``, ``Retry-After``), for a plain
    Django view limited with ``over_rate``."""
    message = next(m for cls, _, _, m in _DRF_CODES if cls is exceptions.Throttled)
    body = error_body("RATE_LIMITED", message, {"retry_after_seconds": int(wait)})
    response = JsonResponse(body, status=429, json_dumps_params={"ensure_ascii": False})
    response["Retry-After"] = str(int(wait))
    return response
