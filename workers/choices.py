"""Named choices for the browser channel (one class per field)."""

from django.db import models

# The campaign kind this channel brings (WorkersConfig.channel.campaign_kind).
BROWSER_KIND = "browser"


class SessionStatus(models.TextChoices):
    ACTIVE = "active", "فعال"
    EXPIRED = "expired", "منقضی"
    DISABLED = "disabled", "غیرفعال"


class ProxyProtocol(models.TextChoices):
    HTTP = "http", "HTTP"
    SOCKS5 = "socks5", "SOCKS5"


class PlatformStatus(models.TextChoices):
    PENDING = "pending", "در انتظار ساخت وظایف"
    RUNNING = "running", "در حال اجرا"
    PAUSED = "paused", "متوقف موقت"
    COMPLETED = "completed", "پایان‌یافته"


class TaskStatus(models.TextChoices):
    """The seed's names (upper case) are kept as stored values."""

    PENDING = "PENDING", "در صف"
    DISPATCHED = "DISPATCHED", "ارسال‌شده به کارگر"
    COMPLETED = "COMPLETED", "انجام شد"
    FAILED = "FAILED", "ناموفق"


class ActionType(models.TextChoices):
    LIKE = "like", "پسندیدن"
    COMMENT = "comment", "دیدگاه"
    SHARE = "share", "هم‌رسانی"
    FOLLOW = "follow", "دنبال کردن"
    VISIT = "visit", "بازدید"


class ErrorCode(models.TextChoices):
    """What a worker saw (classified in ``workers.runner``) plus the server-side codes."""

    COOKIE_EXPIRED = "COOKIE_EXPIRED", "نشست حساب منقضی شده"
    PROXY_ERROR = "PROXY_ERROR", "خطای پراکسی"
    TIMEOUT = "TIMEOUT", "پایان مهلت"
    ELEMENT_NOT_FOUND = "ELEMENT_NOT_FOUND", "عنصر صفحه پیدا نشد"
    VERIFY_FAILED = "VERIFY_FAILED", "تأیید انجام کار ناموفق"
    NAVIGATION_ERROR = "NAVIGATION_ERROR", "خطای بارگذاری صفحه"
    WORKER_LOST = "WORKER_LOST", "کارگر از دست رفت"
    INVALID_PAYLOAD = "INVALID_PAYLOAD", "بسته نامعتبر"
    ADDRESS_NOT_ALLOWED = "ADDRESS_NOT_ALLOWED", "نشانی مجاز نیست"
    UNKNOWN = "UNKNOWN", "خطای ناشناخته"


# Step types ("goto", "click", …) are not a choices class: they come from the step registry
# (``workers.steps``; ``step_choices()`` for labels).


class BrowserEventType(models.TextChoices):
    TASK_FAILED = "task_failed", "شکست وظیفه"
    TASK_RETRY_SCHEDULED = "task_retry_scheduled", "تلاش دوباره زمان‌بندی شد"
    TASK_RECLAIMED = "task_reclaimed", "بازپس‌گیری پس از اتمام اجاره"
    TASK_REPLACED = "task_replaced", "جایگزینی با حساب دیگر"
    NO_SPARE_ACCOUNT = "no_spare_account", "حساب جایگزین موجود نیست"
    TASK_RETRIED = "task_retried", "تلاش دوباره دستی"
    RESULT_IGNORED = "result_ignored", "نتیجه تکراری نادیده گرفته شد"
    ACCOUNT_EXPIRED = "account_expired", "حساب منقضی شد"
    PROXY_ERROR = "proxy_error", "خطای پراکسی"
    PROXY_DISABLED = "proxy_disabled", "پراکسی غیرفعال شد"
    PLATFORM_STATUS = "platform_status", "تغییر وضعیت سکو"
    CREATION_FAILED = "creation_failed", "ساخت وظایف ناموفق"
