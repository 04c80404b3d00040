"""Typed errors. Services raise them; the API renders them into the envelope.

Every error has a stable upper-snake ``code``, an HTTP status, a Persian
message for people, its ``english`` (what ``Accept-Language: en`` reads) and
optional ``details`` (field errors for validation).
Other apps subclass these in their own ``errors.py``.
"""

from typing import Any

# code → English message of every error class (registered as each class is defined); the envelope reads it.
ENGLISH_BY_CODE: dict[str, str] = {}


class PlatformError(Exception):
    code = "ERROR"
    http_status = 400
    default_message = "درخواست قابل انجام نیست."
    english = "The request cannot be carried out."

    def __init__(self, message: str | None = None, *, details: Any = None, code: str | None = None) -> None:
        self.message = message or self.default_message
        self.details = details if details is not None else {}
        if code:
            self.code = code
        super().__init__(self.message)

    def __init_subclass__(cls, **kwargs) -> None:
        super().__init_subclass__(**kwargs)
        if "code" in cls.__dict__ and "english" in cls.__dict__:
            ENGLISH_BY_CODE.setdefault(cls.code, cls.english)

    @property
    def english_message(self) -> str | None:
        """The English message of this error: its class's, unless the raise gave it another ``code``."""
        return type(self).english if self.code == type(self).code else ENGLISH_BY_CODE.get(self.code)


ENGLISH_BY_CODE[PlatformError.code] = PlatformError.english


class ValidationFailed(PlatformError):
    code = "VALIDATION_ERROR"
    http_status = 400
    default_message = "اطلاعات ارسال‌شده معتبر نیست."
    english = "The request is not valid; see details."

    @classmethod
    def field(cls, field: str, message: str, **extra: Any) -> "ValidationFailed":
        details: dict[str, Any] = {field: [message]}
        details.update(extra)
        return cls(details=details)


class NotAuthenticated(PlatformError):
    code = "NOT_AUTHENTICATED"
    http_status = 401
    default_message = "ابتدا وارد شوید."
    english = "Authentication credentials were not provided."


class PermissionDenied(PlatformError):
    code = "PERMISSION_DENIED"
    http_status = 403
    default_message = "شما اجازه این کار را ندارید."
    english = "Your role may not do this."


class NotFound(PlatformError):
    code = "NOT_FOUND"
    http_status = 404
    default_message = "مورد خواسته‌شده پیدا نشد."
    english = "Not found."


class Conflict(PlatformError):
    code = "CONFLICT"
    http_status = 409
    default_message = "این تغییر با وضعیت فعلی سازگار نیست."
    english = "This change conflicts with the current state."


class StaleRevision(Conflict):
    code = "STALE_REVISION"
    default_message = "این مورد در این فاصله تغییر کرده است؛ صفحه را تازه کنید."
    english = "This object changed in the meantime; read it again."


class InvalidTransition(Conflict):
    code = "INVALID_TRANSITION"
    default_message = "این تغییر وضعیت از وضعیت فعلی ممکن نیست."
    english = "This status change is not possible from the current status."


class WorkspaceRequired(PlatformError):
    code = "WORKSPACE_REQUIRED"
    http_status = 400
    default_message = "فضای کاری را با سرآیند X-Workspace مشخص کنید."
    english = "Choose a workspace with the X-Workspace header."


class WorkspaceNotFound(NotFound):
    code = "WORKSPACE_NOT_FOUND"
    default_message = "فضای کاری پیدا نشد یا شما عضو آن نیستید."
    english = "No workspace of yours has this slug or id."
