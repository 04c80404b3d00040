"""Named choices of the SMS channel (Persian labels)."""

from django.db import models


class AttemptStatus(models.TextChoices):
    # Reserved in a batch but not called yet: a job that dies leaves it, and the next run drops it.
    QUEUED = "queued", "در نوبت ارسال"
    SENDING = "sending", "در حال ارسال"
    SUBMITTED = "submitted", "تحویل پنل"
    SENT = "sent", "ارسال‌شده"
    DELIVERED = "delivered", "رسیده"
    FAILED = "failed", "ناموفق"
    REJECTED = "rejected", "ردشده"
    UNAVAILABLE = "unavailable", "کانال در دسترس نیست"
    UNKNOWN = "unknown", "نامعلوم"


# The SMS log's statuses beyond an attempt's own: a failed attempt whose retry is still to come, and the SMS steps
# that ended without an attempt (read from the journey's events, ``sms/log.py``). A skipped step is named as the
# step editor names the choice («رد شدن از گام»), never «ردشده», which is the provider's refusal of an attempt.
RETRY_PENDING = "retry_pending"
STEP_OUTCOMES = {"skipped": "رد شدن از گام", "blacklisted": "لیست سیاه", "cancelled": "لغوشده"}
LOG_STATUS_CHOICES = [*AttemptStatus.choices, (RETRY_PENDING, "در انتظار تلاش مجدد"), *STEP_OUTCOMES.items()]

ACCEPTED = (AttemptStatus.SUBMITTED, AttemptStatus.SENT, AttemptStatus.DELIVERED)
# Accepted but not final yet: the delivery poll asks the provider about these.
AWAITING_DELIVERY = (AttemptStatus.SUBMITTED, AttemptStatus.SENT)
# Forward-only order for delivery reports; a terminal failure never moves back.
STATUS_RANK = {
    AttemptStatus.QUEUED: 0,
    AttemptStatus.SENDING: 0,
    AttemptStatus.UNKNOWN: 1,
    AttemptStatus.SUBMITTED: 2,
    AttemptStatus.SENT: 3,
    AttemptStatus.DELIVERED: 4,
    AttemptStatus.FAILED: 4,
    AttemptStatus.REJECTED: 4,
    AttemptStatus.UNAVAILABLE: 4,
}


class LineKind(models.TextChoices):
    """What an account's lines may send: advertising lines are refused a multi-recipient send without the
    opt-out line and never reach numbers blocked for advertising; service lines send transactional texts."""

    ADVERTISING = "advertising", "تبلیغاتی"
    SERVICE = "service", "خدماتی"


class CreditUnit(models.TextChoices):
    """What an account's credit counts (docs/sms.md "Credit"): rials (Kavenegar ``remaincredit``) or message
    parts (Melipayamak ``GetCredit``: «بر حسب تعداد پیامک»). The launch check weighs a credit in rials against the
    cost and a credit in messages against the message parts the campaign needs."""

    RIAL = "rial", "ریال"
    MESSAGE = "message", "پیامک"


class Operator(models.TextChoices):
    """Iranian mobile operators, decided by a number's prefix (``sms.operators``)."""

    MCI = "mci", "همراه اول"
    IRANCELL = "irancell", "ایرانسل"
    RIGHTEL = "rightel", "رایتل"
    OTHER = "other", "سایر"


# The account's price field of each operator (one message part, rials); another operator is priced like MCI.
OPERATOR_PRICE_FIELD = {
    Operator.MCI: "price_mci",
    Operator.IRANCELL: "price_irancell",
    Operator.RIGHTEL: "price_rightel",
    Operator.OTHER: "price_mci",
}
PRICE_FIELDS = ("price_mci", "price_irancell", "price_rightel")
MAX_PRICE = 10**7


class BlacklistReason(models.TextChoices):
    MANUAL = "manual", "دستی"
    OPT_OUT = "opt_out", "درخواست لغو"
    COMPLAINT = "complaint", "شکایت"
    INVALID_NUMBER = "invalid_number", "شماره نامعتبر"
    IMPORTED = "imported", "ورود فایل"
    OTHER = "other", "سایر"


class BlacklistSource(models.TextChoices):
    MANUAL = "manual", "دستی"
    IMPORT = "import", "ورود فایل"
    OPT_OUT = "opt_out", "لغو توسط گیرنده"
    API = "api", "API"
    TARGET_STATUS = "target_status", "وضعیت مخاطب"
    # The recipient replied with an opt-out word (sms.inbound): the only entries an opt-in word lifts.
    REPLY = "reply", "پاسخ لغو گیرنده"


class InboundOutcome(models.TextChoices):
    """What a stored reply did (sms.inbound.keywords)."""

    NONE = "", "—"
    OPT_OUT = "opt_out", "لغو دریافت"
    OPT_IN = "opt_in", "شروع دوباره دریافت"
    # An opt-in word while the number is on the blacklist by staff (or another route): the entry stays.
    OPT_IN_REFUSED = "opt_in_refused", "شروع دوباره؛ لیست سیاه کارمند ماند"


class SmsChannelEventType(models.TextChoices):
    """What an ``SmsChannelEvent`` row records (one writer function per type in ``sms/events.py``)."""

    CIRCUIT_OPENED = "circuit_opened", "قطع موقت کانال"
    CIRCUIT_CLOSED = "circuit_closed", "وصل دوباره کانال"
    MANUAL_RESUME = "manual_resume", "ادامه به دست کاربر"
    WEBHOOK_TOKEN_ROTATED = "webhook_token_rotated", "تعویض توکن وب‌هوک"
    TEST_MESSAGE = "test_message", "پیامک آزمایشی"
    RETENTION_PURGE = "retention_purge", "پاک‌سازی سوابق قدیمی"
