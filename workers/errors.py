"""Typed errors of the browser channel (stable codes, Persian messages)."""

from campaigns.platform.errors import Conflict, NotFound, ValidationFailed


class CampaignNotFound(NotFound):
    code = "CAMPAIGN_NOT_FOUND"
    default_message = "کمپین وجود ندارد یا حذف شده است."
    english = "The campaign does not exist or was deleted."


class PlatformNotFound(NotFound):
    code = "PLATFORM_NOT_FOUND"
    default_message = "سکوی کمپین پیدا نشد."
    english = "The campaign's platform was not found."


class AccountNotFound(ValidationFailed):
    code = "ACCOUNT_NOT_FOUND"
    default_message = "یک یا چند حساب پیدا نشد یا متعلق به این فضای کاری نیست."
    english = "One or more accounts were not found or are not of this workspace."


class AccountInactive(ValidationFailed):
    code = "ACCOUNT_INACTIVE"
    default_message = "یک یا چند حساب فعال نیست (نشست منقضی یا غیرفعال)."
    english = "One or more accounts are not active (session expired or disabled)."


class ActionConfigNotFound(ValidationFailed):
    code = "ACTION_CONFIG_NOT_FOUND"
    default_message = "برای این سکو و نوع کار گام‌ای تعریف نشده است؛ گام‌ها را بفرستید یا پیکربندی بسازید."
    english = "No steps are defined for this platform and action; send steps or create an action config."


class InvalidSteps(ValidationFailed):
    code = "INVALID_STEPS"
    default_message = "گام‌های تعریف‌شده معتبر نیستند."
    english = "The steps are not valid."


class TooManyTasks(ValidationFailed):
    code = "TOO_MANY_TASKS"
    default_message = "تعداد وظایف (حساب‌ها × نشانی‌ها) از سقف مجاز یک سکو بیشتر است."
    english = "The number of tasks (accounts x links) is above a platform's limit."


class AddressNotAllowedError(ValidationFailed):
    code = "ADDRESS_NOT_ALLOWED"
    default_message = "کارگر مرورگر فقط به نشانی‌های عمومی http/https می‌رود؛ آدرس‌های داخلی، خصوصی و متادیتا مجاز نیستند."
    english = (
        "A browser worker goes to public http/https addresses only; internal, private and metadata addresses "
        "are refused."
    )


class ProxyNotSupported(ValidationFailed):
    code = "PROXY_NOT_SUPPORTED"
    default_message = "Chromium پراکسی SOCKS5 با نام کاربری و گذرواژه را پشتیبانی نمی‌کند."
    english = "Chromium does not support a SOCKS5 proxy with a user name and password."


class TaskNotRetryable(Conflict):
    code = "TASK_NOT_RETRYABLE"
    default_message = "فقط وظیفه ناموفقی که جایگزین نشده را می‌توان دوباره اجرا کرد."
    english = "Only a failed task that was not replaced can be retried."


class ResourceInUse(Conflict):
    code = "RESOURCE_IN_USE"
    default_message = "این مورد در وظایف در جریان استفاده می‌شود."
    english = "This is used by tasks in progress."


class CampaignNotEditable(Conflict):
    code = "CAMPAIGN_NOT_EDITABLE"
    default_message = "فقط پیش‌نویس کمپین را می‌توان ویرایش کرد؛ کمپین ارسال‌شده یا آغازشده را نه."
    english = "Only a draft campaign can be edited."


class ActionConfigExists(Conflict):
    code = "ACTION_CONFIG_EXISTS"
    default_message = "برای این سکو و نوع کار پیکربندی وجود دارد."
    english = "An action config for this platform and action already exists."
