"""Named choices of the engine (Persian labels)."""

from django.db import models


class WorkflowStatus(models.TextChoices):
    DRAFT = "draft", "پیش‌نویس"
    ACTIVE = "active", "فعال"
    ARCHIVED = "archived", "بایگانی"


class VersionStatus(models.TextChoices):
    DRAFT = "draft", "پیش‌نویس"
    PUBLISHED = "published", "منتشرشده"
    SUPERSEDED = "superseded", "جایگزین‌شده"


class NodeType:
    """Keys of the built-in node types. The types themselves (label, ports, validation, run) are
    registered in ``automation.engine.nodes.NODE_TYPES``; choices and API enums come from there."""

    START = "start"
    ACTION = "action"
    WAIT = "wait"
    CONDITION = "condition"
    END = "end"


class Port(models.TextChoices):
    DEFAULT = "default", "پیش‌فرض"
    YES = "yes", "بله"
    NO = "no", "خیر"
    SUCCESS = "success", "موفق"
    FAILURE = "failure", "ناموفق"


def port_label(port: str) -> str:
    """A port in Persian («موفق»), for messages people read; an unknown port as it is."""
    return dict(Port.choices).get(port, port)


class ExecutionStatus(models.TextChoices):
    PENDING = "pending", "در انتظار شروع کمپین"
    ACTIVE = "active", "آماده اجرا"
    WAITING = "waiting", "در انتظار"
    QUEUED = "queued", "در صف"
    PROCESSING = "processing", "در حال پردازش"
    COMPLETED = "completed", "پایان‌یافته"
    FAILED = "failed", "ناموفق"
    PAUSED = "paused", "متوقف"
    CANCELLED = "cancelled", "لغوشده"
    BLACKLISTED = "blacklisted", "در لیست سیاه"


LIVE_STATUSES = (
    ExecutionStatus.PENDING,
    ExecutionStatus.ACTIVE,
    ExecutionStatus.WAITING,
    ExecutionStatus.QUEUED,
    ExecutionStatus.PROCESSING,
    ExecutionStatus.PAUSED,
)
DUE_STATUSES = (ExecutionStatus.ACTIVE, ExecutionStatus.WAITING)
IN_FLIGHT_STATUSES = (ExecutionStatus.QUEUED, ExecutionStatus.PROCESSING)


class EventType(models.TextChoices):
    ENROLLED = "enrolled", "ثبت‌نام"
    NODE_ENTERED = "node_entered", "ورود به گام"
    WAIT_STARTED = "wait_started", "شروع انتظار"
    WAIT_FINISHED = "wait_finished", "پایان انتظار"
    ACTION_ATTEMPT = "action_attempt", "تلاش اقدام"
    ACTION_RESULT = "action_result", "نتیجه اقدام"
    RETRY_SCHEDULED = "retry_scheduled", "زمان‌بندی تلاش دوباره"
    DEFERRED_WINDOW = "deferred_window", "تعویق به بازه ارسال"
    DEFERRED_LIMIT = "deferred_limit", "تعویق به‌خاطر سقف روزانه"
    DEFERRED_CHANNEL = "deferred_channel", "تعویق به‌خاطر قطعی کانال"
    BLACKLISTED = "blacklisted", "لیست سیاه"
    SKIPPED = "skipped", "ردشده"
    PAUSED = "paused", "توقف"
    RESUMED = "resumed", "ادامه"
    REMOVED = "removed", "حذف"
    RESTARTED = "restarted", "شروع دوباره"
    LOOPED = "looped", "تکرار"
    CONDITION_EVALUATED = "condition_evaluated", "بررسی شرط"
    CLAIMED = "claimed", "برداشته شد"
    PROCESSING = "processing", "پردازش"
    LEASE_EXPIRED = "lease_expired", "انقضای مهلت"
    ACTIVATED = "activated", "فعال شد"
    COMPLETED = "completed", "پایان"
    FAILED = "failed", "شکست"
    CANCELLED = "cancelled", "لغو"
    UNKNOWN_OUTCOME = "unknown_outcome", "نتیجه نامعلوم"
    HELD = "held", "نگه‌داشته شد"
    VERSION_MIGRATED = "version_migrated", "انتقال به نسخهٔ تازه"


class EndReason(models.TextChoices):
    COMPLETED = "completed", "پایان مسیر"
    STOPPED = "stopped", "توقف در گام پایان"
    MAX_CYCLES = "max_cycles", "رسیدن به سقف تکرار"
    RETRIES_EXHAUSTED = "retries_exhausted", "پایان تلاش‌ها"
    CAMPAIGN_ENDED = "campaign_ended", "پایان کمپین"
    CAMPAIGN_CANCELLED = "campaign_cancelled", "لغو کمپین"
    TARGET_REMOVED = "target_removed", "حذف مخاطب"
    TARGET_STATUS_CHANGED = "target_status_changed", "تغییر وضعیت مخاطب"
    TARGET_RESPONDED = "target_responded", "پاسخ مخاطب"
    REMOVED = "removed", "حذف دستی"
    BLACKLISTED = "blacklisted", "لیست سیاه"
    VERSION_MISSING = "version_missing", "نسخه گردش‌کار موجود نیست"
    STEP_ERROR = "step_error", "خطای گام"
    NEW_VERSION_EXIT = "new_version_exit", "خروج با نسخهٔ تازه"


ENDED_WITH_CAMPAIGN = "پایان‌یافته با کمپین"


def execution_status_label(status: str, end_reason: str = "") -> str:
    """An execution's status for people. A journey closed because its campaign finished (``cancelled`` with
    ``campaign_ended``) reads finished, like its campaign — not cancelled."""
    if status == ExecutionStatus.CANCELLED and end_reason == EndReason.CAMPAIGN_ENDED:
        return ENDED_WITH_CAMPAIGN
    return ExecutionStatus(status).label if status in ExecutionStatus.values else status


def execution_status_badge(status: str, end_reason: str = "") -> str:
    """The badge colour key that goes with ``execution_status_label``."""
    if status == ExecutionStatus.CANCELLED and end_reason == EndReason.CAMPAIGN_ENDED:
        return ExecutionStatus.COMPLETED
    return status


class CounterScope(models.TextChoices):
    CAMPAIGN = "campaign", "کمپین"
    WORKFLOW = "workflow", "گردش‌کار"
    WORKSPACE = "workspace", "فضای کاری"


class OnExhausted(models.TextChoices):
    STOP = "stop", "توقف مسیر"
    SKIP_STEP = "skip_step", "رد شدن از گام"
    CONTINUE = "continue", "ادامه"
    FAIL = "fail", "شکست"


class OnUnknownOutcome(models.TextChoices):
    CONTINUE = "continue", "ادامه"
    HOLD = "hold", "نگه‌داشتن"


class BatchStatus(models.TextChoices):
    DRAFT = "draft", "پیش‌نویس"
    COMMITTING = "committing", "در حال افزودن"
    COMMITTED = "committed", "افزوده شد"
    DISCARDED = "discarded", "کنار گذاشته شد"
    FAILED = "failed", "ناموفق"


class EnrollmentClass(models.TextChoices):
    INVALID = "invalid", "نامعتبر"
    BLACKLISTED = "blacklisted", "لیست سیاه"
    ALREADY_LIVE = "already_live", "از قبل در همین کمپین"
    CONFLICT = "conflict", "در کمپین دیگر"
    READY = "ready", "آماده"


class Decision(models.TextChoices):
    ADD = "add", "افزودن"
    SKIP = "skip", "رد کردن"


class MigrationChoice(models.TextChoices):
    """What a version migration does with the executions standing at one node of the old version."""

    STAY = "stay", "ماندن در نسخهٔ قبلی"
    MOVE = "move", "انتقال به گامی از نسخهٔ تازه"
    EXIT = "exit", "خروج از سفر"


class MigrationKind(models.TextChoices):
    PLAN = "plan", "انتقال گام‌به‌گام"
    TEXT_FIX = "text_fix", "اصلاح متن"


class MigrationStatus(models.TextChoices):
    RUNNING = "running", "در حال انتقال"
    DONE = "done", "انجام شد"
    FAILED = "failed", "ناموفق"


# Execution metadata key: the due time a wait keeps after its execution moved to another version's wait
# ({"node": node_key, "at": ISO time}); the wait handler ends the wait then instead of recomputing it.
WAIT_DUE = "_wait_due"

# Execution metadata keys: the node an execution was held at after an unknown outcome, and a person's
# decision to send that step again or skip it (read by the action through ``ctx.execution.metadata``;
# ``automation.engine.outcome`` hands them on to the engine).
HELD_UNKNOWN = "_held_unknown"
RESEND_UNKNOWN = "_resend_unknown"
SKIP_UNKNOWN = "_skip_unknown"
# When the execution's last send was accepted (ISO time): the facts "since the last send" read it (journeys.md "Facts").
LAST_SEND_AT = "_last_send_at"
FIRST_SEND_AT = "_first_send_at"


class LaunchReason(models.TextChoices):
    """Why a target of a campaign's audience gets no message (the launch check), in the order a send meets them."""

    NO_MOBILE = "no_mobile", "موبایل ندارد"
    BLACKLISTED = "blacklisted", "در لیست سیاه"
    OPT_OUT = "opt_out", "لغو با پیامک (کلمه لغو)"
    TELECOM_BLOCKED = "telecom_blocked", "مسدود تبلیغاتی مخابرات"
    LIVE_ELSEWHERE = "live_elsewhere", "هم‌زمان در سفر دیگری فعال"
    FREQUENCY_CAP = "frequency_cap", "سقف ارسال"
    CONTROL_GROUP = "control_group", "گروه کنترل"
