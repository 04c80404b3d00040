"""Typed errors. Services raise them; the API renders them into the envelope.

Every error has a stable upper-snake ``code``, an HTTP status, a Persian
message for people and optional ``details`` (field errors for validation).
Other apps subclass these in their own ``errors.py``.
"""

from typing import Any


class PlatformError(Exception):
    code = "ERROR"
    http_status = 400
    default_message = "درخواست قابل انجام نیست."

    def __init__(self, message: str | None = None, *, details: Any = None, code: str | None = None) -> None:
        self.message = message or self.default_message
        self.details = details if details is not None else {}
        if code:
            self.code = code
        super().__init__(self.message)


class ValidationFailed(PlatformError):
    code = "VALIDATION_ERROR"
    http_status = 400
    default_message = "اطلاعات ارسال‌شده معتبر نیست."

    @classmethod
    def field(cls, field: str, message: str, **extra: Any) -> "ValidationFailed":
        details: dict[str, Any] = {field: [message]}
        details.update(extra)
        return cls(details=details)


class NotAuthenticated(PlatformError):
    code = "NOT_AUTHENTICATED"
    http_status = 401
    default_message = "ابتدا وارد شوید."


class PermissionDenied(PlatformError):
    code = "PERMISSION_DENIED"
    http_status = 403
    default_message = "شما اجازه این کار را ندارید."


class NotFound(PlatformError):
    code = "NOT_FOUND"
    http_status = 404
    default_message = "مورد خواسته‌شده پیدا نشد."


class Conflict(PlatformError):
    code = "CONFLICT"
    http_status = 409
    default_message = "این تغییر با وضعیت فعلی سازگار نیست."


class StaleRevision(Conflict):
    code = "STALE_REVISION"
    default_message = "این مورد در این فاصله تغییر کرده است؛ صفحه را تازه کنید."


class InvalidTransition(Conflict):
    code = "INVALID_TRANSITION"
    default_message = "این تغییر وضعیت از وضعیت فعلی ممکن نیست."


class WorkspaceRequired(PlatformError):
    code = "WORKSPACE_REQUIRED"
    http_status = 400
    default_message = "فضای کاری را با سرآیند X-Workspace مشخص کنید."


class WorkspaceNotFound(NotFound):
    code = "WORKSPACE_NOT_FOUND"
    default_message = "فضای کاری پیدا نشد یا شما عضو آن نیستید."
