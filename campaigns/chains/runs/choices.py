"""Named choices of chain runs (Persian labels)."""

from django.db import models


class RunType(models.TextChoices):
    SCHEDULED = "SCHEDULED", "زمان‌بندی‌شده"
    MANUAL = "MANUAL", "دستی"
    RERUN = "RERUN", "اجرای دوباره"
    INHERITED = "INHERITED", "ارث‌بری از منبع"


class RunStatus(models.TextChoices):
    SCHEDULED = "SCHEDULED", "زمان‌بندی‌شده"
    WAITING_SOURCE = "WAITING_SOURCE", "در انتظار منبع"
    BUILDING = "BUILDING", "ساخت مخاطبان"
    READY_TO_DISPATCH = "READY_TO_DISPATCH", "آماده ارسال"
    DISPATCHING = "DISPATCHING", "در حال ارسال"
    DISPATCHED = "DISPATCHED", "ارسال‌شده"
    COMPLETED = "COMPLETED", "کامل"
    SKIPPED = "SKIPPED", "ردشده"
    FAILED = "FAILED", "ناموفق"


# Not started: pause/stop and a new period skip these.
NOT_STARTED = (RunStatus.SCHEDULED, RunStatus.WAITING_SOURCE, RunStatus.BUILDING, RunStatus.READY_TO_DISPATCH)
TERMINAL = (RunStatus.COMPLETED, RunStatus.SKIPPED, RunStatus.FAILED)
OPEN = (*NOT_STARTED, RunStatus.DISPATCHING, RunStatus.DISPATCHED)


class SkipReason(models.TextChoices):
    SOURCE_TIMEOUT = "SOURCE_TIMEOUT", "منبع به‌موقع آماده نشد"
    NEW_PERIOD = "NEW_PERIOD", "دوره تازه آغاز شد"
    PAST_END_DATE = "PAST_END_DATE", "پس از تاریخ پایان"
    EMPTY_AUDIENCE = "EMPTY_AUDIENCE", "مخاطبی نماند"
    SOURCE_SKIPPED = "SOURCE_SKIPPED", "اجرای منبع رد شد"
    NO_FEASIBLE_RUN = "NO_FEASIBLE_RUN", "زمان اجرای معتبری نیست"
    APPROVED_LATE = "APPROVED_LATE", "تأیید پس از زمان اجرا"
    CHAIN_PAUSED = "CHAIN_PAUSED", "زنجیره متوقف موقت شد"
    CHAIN_STOPPED = "CHAIN_STOPPED", "زنجیره متوقف شد"


class WaitReason(models.TextChoices):
    SOURCE_PROCESSING = "SOURCE_PROCESSING", "ارسال منبع در جریان است"
    DELIVERY_DATA_PENDING = "DELIVERY_DATA_PENDING", "داده تحویل کامل نیست"
    CONVERSION_DATA_NOT_READY = "CONVERSION_DATA_NOT_READY", "داده تبدیل آماده نیست"


class SnapshotStatus(models.TextChoices):
    BUILDING = "BUILDING", "در حال ساخت"
    FROZEN = "FROZEN", "منجمد"
    ABANDONED = "ABANDONED", "رهاشده"


class AudienceClass(models.TextChoices):
    CONVERTED = "CONVERTED", "تبدیل‌شده"
    NOT_CONVERTED = "NOT_CONVERTED", "تبدیل‌نشده"
    FAILED_DELIVERY = "FAILED_DELIVERY", "ارسال ناموفق"


class ConversionSource(models.TextChoices):
    API = "API", "API"
    TARGET_STATUS = "TARGET_STATUS", "تغییر وضعیت مخاطب"
    REPLY = "REPLY", "پاسخ مخاطب"


# A target's timeline row for a chain run whose dispatch left it out (``GET targets/{id}/timeline``'s ``left_out``).
CHAIN_RUN_REFUSED = "chain_run_refused"


class RefusalReason(models.TextChoices):
    """Why a member of a frozen audience got no execution at dispatch (the engine's answer, ``RunExecution
    .refused_reason``; a channel may name others, shown by their code)."""

    BLACKLISTED = "blacklisted", "شماره در لیست سیاه است"
    OPT_OUT = "opt_out", "گیرنده لغو کرده است (کلمه لغو)"
    NO_VALID_MOBILE = "no_valid_mobile", "موبایل معتبر ندارد"
    TELECOM_BLOCKED = "telecom_blocked", "شماره در فهرست سیاه مخابرات برای پیامک تبلیغاتی است"
    ALREADY_LIVE = "already_live", "هم‌اکنون در همین کمپین در جریان است"
    NOT_FOUND = "not_found", "مخاطب حذف شده است"
    UNKNOWN = "unknown", "دلیل نامعلوم"


class ExclusionReason(models.TextChoices):
    """Why an execution of a run sent nothing when its send came (the engine's ``excluded``)."""

    BLACKLISTED = "blacklisted", "هنگام ارسال در لیست سیاه بود"
    TELECOM_BLOCKED = "telecom_blocked", "شماره در فهرست سیاه مخابرات برای پیامک تبلیغاتی است"
    FREQUENCY_CAP = "frequency_cap", "سقف پیامک تبلیغاتی این نفر (روز، هفته یا ماه) پر بود"


def exclusion_label(code: str) -> str:
    return ExclusionReason(code).label if code in ExclusionReason.values else f"کنار گذاشته هنگام ارسال ({code})"


def refusal_label(code: str) -> str:
    return RefusalReason(code).label if code in RefusalReason.values else f"ردشده توسط کانال ({code})"
