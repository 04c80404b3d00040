"""Typed errors of groups/chains/approval (stable codes, Persian messages)."""

from campaigns.platform.errors import Conflict, StaleRevision, ValidationFailed


class GroupNameTaken(Conflict):
    code = "GROUP_NAME_TAKEN"
    default_message = "گروهی فعال با همین نام وجود دارد."


class GroupDeleted(Conflict):
    code = "GROUP_DELETED"
    default_message = "این گروه حذف شده است."


class GroupHasUnfinishedChains(Conflict):
    code = "GROUP_HAS_UNFINISHED_CHAINS"
    default_message = "این گروه زنجیره‌های تمام‌نشده دارد و حذف نمی‌شود."


class CampaignInChain(Conflict):
    code = "CAMPAIGN_IN_CHAIN"
    default_message = "این کمپین عضو یک زنجیره است؛ فقط کمپین‌های مستقل جابه‌جا یا جدا می‌شوند."


class StaleChainRevision(StaleRevision):
    code = "STALE_CHAIN_REVISION"
    default_message = "زنجیره در این فاصله تغییر کرده است؛ صفحه را تازه کنید."


class ChainLocked(Conflict):
    code = "CHAIN_LOCKED"
    default_message = "این زنجیره تأیید شده و قابل ویرایش نیست."


class ChainSubmitted(Conflict):
    code = "CHAIN_SUBMITTED"
    default_message = "این زنجیره در انتظار تأیید است؛ ابتدا درخواست تأیید را پس بگیرید."


class ChainHasChildren(Conflict):
    code = "CHAIN_NODE_HAS_CHILDREN"
    default_message = "فقط کمپین‌های بدون فرزند حذف می‌شوند."


class AffectedCampaignsConfirmationRequired(Conflict):
    code = "AFFECTED_CAMPAIGNS"
    default_message = "این تغییر کمپین‌های دنباله را نامعتبر می‌کند؛ برای ادامه تأیید کنید."


class NotChainRoot(Conflict):
    code = "NOT_CHAIN_ROOT"
    default_message = "این کار فقط روی کمپین ریشه زنجیره ممکن است."


class ChainControlInvalid(Conflict):
    code = "CHAIN_CONTROL_INVALID"
    default_message = "این تغییر کنترل زنجیره از وضعیت فعلی ممکن نیست."


class ChainInvalid(ValidationFailed):
    code = "CHAIN_INVALID"
    default_message = "زنجیره قابل ارسال برای تأیید نیست؛ موارد مشخص‌شده را اصلاح کنید."


class PackageTooLarge(ValidationFailed):
    code = "PACKAGE_TOO_LARGE"
    default_message = "این زنجیره برای ارسال در یک بسته تأیید بیش از حد بزرگ است."


class PackageNotCurrent(Conflict):
    code = "PACKAGE_NOT_CURRENT"
    default_message = "این بسته تأیید دیگر بسته جاری زنجیره نیست."


class PackageNotPending(Conflict):
    code = "PACKAGE_NOT_PENDING"
    default_message = "این بسته تأیید دیگر در انتظار تصمیم نیست."


class ChainMemberNeedsPackage(Conflict):
    code = "CHAIN_MEMBER"
    default_message = "کمپین‌های زنجیره فقط با بسته تأیید زنجیره تأیید می‌شوند."


class ChainMemberControlled(Conflict):
    """The old per-campaign pause/stop on a chain child: the chain is controlled at its root."""

    code = "CHAIN_MEMBER"
    default_message = "این کمپین عضو زنجیره است؛ توقف و ادامه فقط از کمپین ریشه زنجیره انجام می‌شود."


class AudienceNotFrozen(Conflict):
    code = "RUN_AUDIENCE_NOT_FROZEN"
    default_message = "مخاطبان این اجرا هنوز منجمد نشده‌اند؛ خروجی فقط از مخاطبان منجمد ساخته می‌شود."


class ChildRunsWithItsSource(Conflict):
    code = "CHAIN_CHILD_RUNS_WITH_ITS_SOURCE"
    default_message = "زیرکمپین زنجیره جدا اجرا نمی‌شود: مخاطبانش از اجرای منبعش می‌آیند. کمپین ریشه را اجرا کنید."


class RunInProgress(Conflict):
    code = "RUN_IN_PROGRESS"
    default_message = "اجرای دیگری از این کمپین در حال ساخت مخاطبان یا ارسال است؛ پس از پایانش دوباره تلاش کنید."


class ScheduleEnded(Conflict):
    code = "SCHEDULE_ENDED"
    default_message = "تاریخ پایان برنامه این کمپین گذشته است؛ اجرای تازه ساخته نمی‌شود."


class RunNotFinished(Conflict):
    code = "RUN_NOT_FINISHED"
    default_message = "فقط اجرایی که به پایان رسیده و مخاطبانش منجمد شده‌اند دوباره اجرا می‌شود."
