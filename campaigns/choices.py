"""Named choices for the campaigns app (one class per field)."""

from django.db import models

from campaigns.platform.choices import PhoneKind, Role

__all__ = [
    "CampaignKind",
    "CampaignStatus",
    "CapPriority",
    "ImportOutcome",
    "ImportStatus",
    "PhoneKind",
    "Role",
    "TargetStatus",
]


class TargetStatus(models.TextChoices):
    NEW = "new", "جدید"
    FOLLOWING = "following", "در حال پیگیری"
    INTERESTED = "interested", "علاقه‌مند"
    CONVERTED = "converted", "تبدیل‌شده"
    NOT_INTERESTED = "not_interested", "بی‌علاقه"
    INVALID = "invalid", "نامعتبر"


class CampaignKind(models.TextChoices):
    """The core's kind; each channel brings its own (``channel.campaign_kind``; every kind:
    ``campaigns.platform.channels.campaign_kind_choices``)."""

    JOURNEY = "journey", "سفر پیامکی"


class CampaignStatus(models.TextChoices):
    """One status set for every campaign kind (docs/architecture.md "Campaign status").

    Seed names map one-to-one: chain WAITING_SCHEDULE = ``scheduled``,
    IN_PROGRESS = ``active``; SUBMITTED/REJECTED are the approval states.
    """

    DRAFT = "draft", "پیش‌نویس"
    SUBMITTED = "submitted", "در انتظار تأیید"
    REJECTED = "rejected", "ردشده"
    SCHEDULED = "scheduled", "در انتظار شروع"
    ACTIVE = "active", "در حال اجرا"
    PAUSED = "paused", "متوقف موقت"
    COMPLETED = "completed", "پایان‌یافته"
    CANCELLED = "cancelled", "لغوشده"


class ImportStatus(models.TextChoices):
    PENDING = "pending", "در صف"
    PROCESSING = "processing", "در حال پردازش"
    COMPLETED = "completed", "انجام شد"
    FAILED = "failed", "ناموفق"


class ImportOutcome(models.TextChoices):
    CREATED = "created", "ایجاد شد"
    UPDATED = "updated", "به‌روز شد"
    DUPLICATE = "duplicate", "تکراری"
    INVALID = "invalid", "نامعتبر"


class CampaignEventType(models.TextChoices):
    """What a ``CampaignEvent`` row records (one writer function per type in ``campaigns/events.py``)."""

    STATUS_CHANGED = "status_changed", "تغییر وضعیت"
    UPDATED = "updated", "ویرایش"
    DELETED = "deleted", "حذف"
    EXECUTIONS_PAUSE = "executions_pause", "توقف گروهی اجراها"
    EXECUTIONS_RESUME = "executions_resume", "ادامهٔ گروهی اجراها"
    EXECUTIONS_REMOVE = "executions_remove", "حذف گروهی اجراها"
    EXECUTIONS_RESTART = "executions_restart", "شروع دوبارهٔ گروهی اجراها"
    TICK_FAILED = "tick_failed", "خطای زمان‌بند"
    TICK_SKIPPED = "tick_skipped", "ردشدن در زمان‌بند"


class WorkspaceSettingsEventType(models.TextChoices):
    """What a ``WorkspaceSettingsEvent`` row records (its writer is in ``campaigns/events.py``)."""

    CHANGED = "settings_changed", "تغییر تنظیمات"


class CapPriority(models.TextChoices):
    """A campaign's share of the frequency cap across campaigns (``journey_settings.frequency_cap_priority`` of a
    journey or a chain member; sms.frequency_cap, docs/sms.md "Frequency cap"): ``high`` is served first when sends
    to one number meet in a batch; ``low`` never takes the last unit of a rule whose limit is 2 or more; ``normal``
    is the default."""

    HIGH = "high", "بالا"
    NORMAL = "normal", "عادی"
    LOW = "low", "پایین"
