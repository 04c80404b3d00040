"""Typed errors of groups/chains/approval (stable codes, Persian messages)."""

from campaigns.platform.errors import Conflict, StaleRevision, ValidationFailed


class GroupNameTaken(Conflict):
    code = "GROUP_NAME_TAKEN"
    default_message = "گروهی فعال با همین نام وجود دارد."
    english = "An active group with this name already exists."


class GroupDeleted(Conflict):
    code = "GROUP_DELETED"
    default_message = "این گروه حذف شده است."
    english = "This group was deleted."


class GroupHasUnfinishedChains(Conflict):
    code = "GROUP_HAS_UNFINISHED_CHAINS"
    default_message = "این گروه زنجیره‌های تمام‌نشده دارد و حذف نمی‌شود."
    english = "This group has unfinished chains and cannot be deleted."


class CampaignInChain(Conflict):
    code = "CAMPAIGN_IN_CHAIN"
    default_message = "این کمپین عضو یک زنجیره است؛ فقط کمپین‌های مستقل جابه‌جا یا جدا می‌شوند."
    english = "This campaign is a member of a chain; only independent campaigns are moved or removed."


class StaleChainRevision(StaleRevision):
    code = "STALE_CHAIN_REVISION"
    default_message = "زنجیره در این فاصله تغییر کرده است؛ صفحه را تازه کنید."
    english = "The chain changed in the meantime; read it again."


class ChainLocked(Conflict):
    code = "CHAIN_LOCKED"
    default_message = "این زنجیره تأیید شده و قابل ویرایش نیست."
    english = "This chain is approved and cannot be edited."


class ChainSubmitted(Conflict):
    code = "CHAIN_SUBMITTED"
    default_message = "این زنجیره در انتظار تأیید است؛ ابتدا درخواست تأیید را پس بگیرید."
    english = "This chain is awaiting approval; withdraw the approval request first."


class ChainHasChildren(Conflict):
    code = "CHAIN_NODE_HAS_CHILDREN"
    default_message = "فقط کمپین‌های بدون فرزند حذف می‌شوند."
    english = "Only campaigns without children can be deleted."


class AffectedCampaignsConfirmationRequired(Conflict):
    code = "AFFECTED_CAMPAIGNS"
    default_message = "این تغییر کمپین‌های دنباله را نامعتبر می‌کند؛ برای ادامه تأیید کنید."
    english = "This change invalidates follow-up campaigns; confirm it with accept_affected."


class NotChainRoot(Conflict):
    code = "NOT_CHAIN_ROOT"
    default_message = "این کار فقط روی کمپین ریشه زنجیره ممکن است."
    english = "This is only possible on the chain's root campaign."


class ChainControlInvalid(Conflict):
    code = "CHAIN_CONTROL_INVALID"
    default_message = "این تغییر کنترل زنجیره از وضعیت فعلی ممکن نیست."
    english = "This chain control is not possible from the current state."


class ChainInvalid(ValidationFailed):
    code = "CHAIN_INVALID"
    default_message = "زنجیره قابل ارسال برای تأیید نیست؛ موارد مشخص‌شده را اصلاح کنید."
    english = "The chain cannot be submitted for approval; fix the problems in details."


class PackageTooLarge(ValidationFailed):
    code = "PACKAGE_TOO_LARGE"
    default_message = "این زنجیره برای ارسال در یک بسته تأیید بیش از حد بزرگ است."
    english = "This chain is too large for one approval package."


class PackageNotCurrent(Conflict):
    code = "PACKAGE_NOT_CURRENT"
    default_message = "این بسته تأیید دیگر بسته جاری زنجیره نیست."
    english = "This approval package is no longer the chain's current one."


class PackageNotPending(Conflict):
    code = "PACKAGE_NOT_PENDING"
    default_message = "این بسته تأیید دیگر در انتظار تصمیم نیست."
    english = "This approval package no longer awaits a decision."


class ChainMemberNeedsPackage(Conflict):
    code = "CHAIN_MEMBER"
    default_message = "کمپین‌های زنجیره فقط با بسته تأیید زنجیره تأیید می‌شوند."
    english = "This campaign is a chain member: it is approved, paused and resumed through its chain's root."


class ChainMemberControlled(Conflict):
    """The old per-campaign pause/stop on a chain child: the chain is controlled at its root."""

    code = "CHAIN_MEMBER"
    default_message = "این کمپین عضو زنجیره است؛ توقف و ادامه فقط از کمپین ریشه زنجیره انجام می‌شود."
    english = "This campaign is a chain member: it is approved, paused and resumed through its chain's root."


class AudienceNotFrozen(Conflict):
    code = "RUN_AUDIENCE_NOT_FROZEN"
    default_message = "مخاطبان این اجرا هنوز منجمد نشده‌اند؛ خروجی فقط از مخاطبان منجمد ساخته می‌شود."
    english = "This run's audience is not frozen yet; the export is made from a frozen audience only."


class ChildRunsWithItsSource(Conflict):
    code = "CHAIN_CHILD_RUNS_WITH_ITS_SOURCE"
    default_message = "زیرکمپین زنجیره جدا اجرا نمی‌شود: مخاطبانش از اجرای منبعش می‌آیند. کمپین ریشه را اجرا کنید."
    english = (
        "A chain's child campaign does not run alone: its audience comes from its source's run. Run the root campaign."
    )


class RunInProgress(Conflict):
    code = "RUN_IN_PROGRESS"
    default_message = "اجرای دیگری از این کمپین در حال ساخت مخاطبان یا ارسال است؛ پس از پایانش دوباره تلاش کنید."
    english = "Another run of this campaign is building its audience or sending; retry when it has finished."


class ScheduleEnded(Conflict):
    code = "SCHEDULE_ENDED"
    default_message = "تاریخ پایان برنامه این کمپین گذشته است؛ اجرای تازه ساخته نمی‌شود."
    english = "This campaign's schedule has ended; no new run is made."


class RunNotFinished(Conflict):
    code = "RUN_NOT_FINISHED"
    default_message = "فقط اجرایی که به پایان رسیده و مخاطبانش منجمد شده‌اند دوباره اجرا می‌شود."
    english = "Only a finished run with a frozen audience can run again."
