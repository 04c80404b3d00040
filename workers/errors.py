"""Typed errors of the browser channel (stable codes, Persian messages)."""

from campaigns.platform.errors import Conflict, NotFound, ValidationFailed


class CampaignNotFound(NotFound):
    code = "CAMPAIGN_NOT_FOUND"
    default_message = "کمپین وجود ندارد یا حذف شده است."


class PlatformNotFound(NotFound):
    code = "PLATFORM_NOT_FOUND"
    default_message = "سکوی کمپین پیدا نشد."


class AccountNotFound(ValidationFailed):
    code = "ACCOUNT_NOT_FOUND"
    default_message = "یک یا چند حساب پیدا نشد یا متعلق به این فضای کاری نیست."


class AccountInactive(ValidationFailed):
    code = "ACCOUNT_INACTIVE"
    default_message = "یک یا چند حساب فعال نیست (نشست منقضی یا غیرفعال)."


class ActionConfigNotFound(ValidationFailed):
    code = "ACTION_CONFIG_NOT_FOUND"
    default_message = "برای این سکو و نوع کار گام‌ای تعریف نشده است؛ گام‌ها را بفرستید یا پیکربندی بسازید."


class InvalidSteps(ValidationFailed):
    code = "INVALID_STEPS"
    default_message = "گام‌های تعریف‌شده معتبر نیستند."


class TooManyTasks(ValidationFailed):
    code = "TOO_MANY_TASKS"
    default_message = "تعداد وظایف (حساب‌ها × نشانی‌ها) از سقف مجاز یک سکو بیشتر است."


class AddressNotAllowedError(ValidationFailed):
    code = "ADDRESS_NOT_ALLOWED"
    default_message = "کارگر مرورگر فقط به نشانی‌های عمومی http/https می‌رود؛ آدرس‌های داخلی، خصوصی و متادیتا مجاز نیستند."


class ProxyNotSupported(ValidationFailed):
    code = "PROXY_NOT_SUPPORTED"
    default_message = "Chromium پراکسی SOCKS5 با نام کاربری و گذرواژه را پشتیبانی نمی‌کند."


class TaskNotRetryable(Conflict):
    code = "TASK_NOT_RETRYABLE"
    default_message = "فقط وظیفه ناموفقی که جایگزین نشده را می‌توان دوباره اجرا کرد."


class ResourceInUse(Conflict):
    code = "RESOURCE_IN_USE"
    default_message = "این مورد در وظایف در جریان استفاده می‌شود."


class CampaignNotEditable(Conflict):
    code = "CAMPAIGN_NOT_EDITABLE"
    default_message = "فقط پیش‌نویس کمپین را می‌توان ویرایش کرد؛ کمپین ارسال‌شده یا آغازشده را نه."
