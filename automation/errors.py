"""Engine errors (subclasses of campaigns.platform.errors with stable codes and Persian messages)."""

from campaigns.platform.errors import Conflict, NotFound, ValidationFailed


class GraphInvalid(ValidationFailed):
    code = "GRAPH_INVALID"
    default_message = "گردش‌کار ایراد دارد و منتشر نمی‌شود؛ ایرادهای هر گام را ببینید."
    english = "The workflow has problems and is not published; see each step's problems."


class NoDraftVersion(Conflict):
    code = "NO_DRAFT_VERSION"
    default_message = "این گردش‌کار نسخه پیش‌نویس ندارد؛ ابتدا نسخه تازه بسازید."
    english = "This workflow has no draft version; create a new version first."


class DraftExists(Conflict):
    code = "DRAFT_EXISTS"
    default_message = "این گردش‌کار از قبل یک نسخه پیش‌نویس دارد."
    english = "This workflow already has a draft version."


class NotPublished(Conflict):
    code = "WORKFLOW_NOT_PUBLISHED"
    default_message = "این گردش‌کار هنوز نسخه منتشرشده ندارد."
    english = "This workflow has no published version yet."


class ChannelUnusable(Conflict):
    code = "CHANNEL_UNUSABLE"
    default_message = "کانال ارسال این گردش‌کار اکنون قابل استفاده نیست (تنظیمات سرویس پیامک را بررسی کنید)."
    english = "The workflow's sending channel cannot be used now (check the SMS settings)."


class CampaignNotJourney(Conflict):
    code = "NOT_A_JOURNEY"
    default_message = "این کمپین از نوع سفر پیامکی نیست."
    english = "This campaign is not an SMS journey."


class CampaignClosed(Conflict):
    code = "CAMPAIGN_CLOSED"
    default_message = "به کمپین پایان‌یافته یا لغوشده نمی‌توان مخاطب افزود."
    english = "Targets cannot be added to a finished or cancelled campaign."


class TemplateNotFound(NotFound):
    code = "TEMPLATE_NOT_FOUND"
    default_message = "قالب گردش‌کار پیدا نشد."
    english = "The workflow template was not found."


class WorkflowInUse(Conflict):
    code = "WORKFLOW_IN_USE"
    default_message = "این گردش‌کار هنوز در کمپین یا اجرای زنده‌ای استفاده می‌شود و بایگانی نمی‌شود."
    english = "This workflow is still used by a campaign or a live execution and is not archived."


class ConflictsUnresolved(Conflict):
    code = "CONFLICTS_UNRESOLVED"
    default_message = "برای مخاطبانی که در کمپین دیگری فعال‌اند تصمیم نگرفته‌اید (افزودن یا رد کردن)."
    english = "Targets active in another campaign have no decision yet (add or skip)."


class ConflictsPresent(ValidationFailed):
    code = "CONFLICTS_PRESENT"
    default_message = "برخی مخاطبان در کمپین دیگری فعال‌اند؛ on_conflict را صریحاً add یا skip بفرستید."
    english = "Some targets are active in another campaign; send on_conflict as add or skip."


class BatchNotDraft(Conflict):
    code = "BATCH_NOT_DRAFT"
    default_message = "این دسته قبلاً افزوده یا کنار گذاشته شده است."
    english = "This batch was already committed or discarded."


class CampaignNotDraft(Conflict):
    code = "CAMPAIGN_NOT_DRAFT"
    default_message = "فقط کمپین پیش‌نویس حذف می‌شود؛ این کمپین را لغو کنید (تاریخچه‌اش می‌ماند)."
    english = "Only a draft campaign is deleted; cancel this campaign (its history stays)."


class StaleVersion(Conflict):
    code = "STALE_VERSION"
    default_message = "نسخهٔ منتشرشدهٔ این گردش‌کار عوض شده است؛ صفحه را دوباره باز کنید."
    english = "The workflow's published version changed since the dry run; preview the migration again."
