"""SMS channel models: provider accounts and settings, attempt log, delivery events, blacklist, templates.

``SmsAttempt`` is the spec's ``automation_sms_logs``: one row per attempt,
created ``sending`` with the request fields; the result fields are filled
exactly once and later changes only move ``status`` forward (delivery
reports append ``SmsLogEvent`` rows). The model refuses anything else.
"""

import hashlib
import secrets

from django.conf import settings
from django.contrib.contenttypes.models import ContentType
from django.db import models

from campaigns.models import TimeStamped, Workspace, WorkspaceQuerySet
from campaigns.platform.crypto import EncryptedTextField
from campaigns.platform.events import WorkspaceEvent
from campaigns.platform.jalali import fa_digits
from sms.choices import (
    AttemptStatus,
    BlacklistReason,
    BlacklistSource,
    CreditUnit,
    LineKind,
    SmsChannelEventType,
)
from sms.inbound.keywords import default_opt_in_words, default_opt_out_words
from sms.providers import provider_for, provider_label


def provider_credit_unit(kind: str) -> str:
    """The unit a provider gives the credit in (``CreditUnit``); rials for an unregistered kind."""
    provider = provider_for(kind)
    return getattr(provider, "credit_unit", None) or CreditUnit.RIAL


def credit_amount_text(value: int, unit: str) -> str:
    """An amount of credit with its unit in Persian («۱۲٬۰۰۰ ریال», «۳٬۵۰۰ پیامک»)."""
    label = CreditUnit(unit).label if unit in CreditUnit.values else CreditUnit.RIAL.label
    return f"{fa_digits(f'{int(value):,}').replace(',', '٬')} {label}"


class ImmutableError(RuntimeError):
    """Raised when code tries to rewrite an attempt row or delete history."""


def new_webhook_token() -> str:
    return secrets.token_urlsafe(32)


def webhook_token_digest(token: str) -> str:
    """The delivery webhook finds its workspace by this digest of the token (kept beside the encrypted token)."""
    return hashlib.sha256(token.encode()).hexdigest()


class SmsProviderAccount(TimeStamped):
    """One provider account of a workspace (credentials encrypted at rest, several sender lines)."""

    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="sms_accounts")
    name = models.CharField("نام", max_length=100)
    # A kind of the provider registry (``sms.providers``); validated there, so adding a provider needs no migration.
    provider = models.CharField("سرویس‌دهنده", max_length=20)
    # JSON object validated by the provider's credential schema: {"api_key": …} (Kavenegar),
    # {"username": …, "password": …} (Melipayamak).
    credentials = EncryptedTextField("اعتبارنامه", blank=True, default="")
    senders = models.JSONField("خطوط ارسال", default=list, blank=True)
    is_active = models.BooleanField("فعال", default=True)
    # Rate limits of this account (token buckets, sms.rate_limits); empty = no limit.
    max_requests_per_second = models.PositiveIntegerField("سقف درخواست در ثانیه", null=True, blank=True)
    max_messages_per_minute = models.PositiveIntegerField("سقف پیامک در دقیقه", null=True, blank=True)
    # Each sender line of this account on its own (a line's messages per second, on top of the account's).
    max_line_messages_per_second = models.PositiveIntegerField("سقف پیامک هر خط در ثانیه", null=True, blank=True)
    # Replies: the secret of this account's push address (sms.inbound.push; stored encrypted, the push finds the
    # account by its id), and whether the provider pushes them (then the inbox is not polled: a reply would come
    # twice, under two ids).
    inbound_token = EncryptedTextField("توکن دریافت", default=new_webhook_token)
    inbound_push = models.BooleanField("دریافت پاسخ‌ها با فراخوانی نشانی ما از سوی سرویس‌دهنده", default=False)
    # Advertising lines skip numbers blocked for advertising and need the opt-out line on multi-recipient sends;
    # existing accounts keep sending as before (service) until staff say otherwise (docs/sms.md "Line kinds").
    line_kind = models.CharField("نوع خط", max_length=12, choices=LineKind.choices, default=LineKind.SERVICE)
    # Whether the provider lets this account send texts with a link (Kavenegar 420, Melipayamak 13/14 otherwise).
    links_allowed = models.BooleanField("ارسال پیوند مجاز است", default=True)
    # Price of one message part per operator, in rials (the launch check's cost; editable per account).
    price_mci = models.PositiveIntegerField("بهای هر بخش — همراه اول (ریال)", default=0)
    price_irancell = models.PositiveIntegerField("بهای هر بخش — ایرانسل (ریال)", default=0)
    price_rightel = models.PositiveIntegerField("بهای هر بخش — رایتل (ریال)", default=0)
    # The provider's own price of one part per operator (rials; ``{"mci": …, "irancell": …}``), read with the
    # credit where the provider answers it (Melipayamak ``GetSmsPrice``): used by the launch check instead of the
    # typed price of that operator unless staff keep their own (``use_typed_prices``). A failed read keeps the
    # last prices and says why (``prices_error``, ``prices_error_at``) on the SMS settings page.
    provider_prices = models.JSONField("بهای سرویس‌دهنده", default=dict, blank=True)
    prices_checked_at = models.DateTimeField("زمان خواندن بها", null=True, blank=True)
    prices_error = models.CharField("خطای خواندن بها", max_length=200, blank=True, default="")
    prices_error_at = models.DateTimeField("زمان خطای خواندن بها", null=True, blank=True)
    use_typed_prices = models.BooleanField("بهای واردشده به‌جای بهای سرویس‌دهنده", default=False)
    # The provider's last answer about the account's credit, read on a timer; null = never read. Counted in
    # ``credit_unit``: rials or message parts, the provider's unit (``Provider.credit_unit``) unless staff set
    # another (docs/sms.md "Credit").
    credit = models.BigIntegerField("اعتبار", null=True, blank=True)
    credit_unit = models.CharField("واحد اعتبار", max_length=8, choices=CreditUnit.choices, blank=True, default="")
    credit_checked_at = models.DateTimeField("زمان خواندن اعتبار", null=True, blank=True)
    # Words the provider refuses in a text on this account (Melipayamak 7): named by the provider's answer or by
    # staff; and the step texts (templates, no personal values) the provider refused for one (sms.filtered_words).
    filtered_words = models.JSONField("کلمه‌های فیلترشده", default=list, blank=True)
    filtered_templates = models.JSONField("متن‌های ردشده برای کلمه فیلترشده", default=list, blank=True)

    objects = WorkspaceQuerySet.as_manager()

    class Meta:
        ordering = ["name", "id"]
        verbose_name = "حساب پیامک"
        verbose_name_plural = "حساب‌های پیامک"

    def __str__(self) -> str:
        return f"{self.name} — {self.provider_label}"

    @property
    def provider_label(self) -> str:
        """The provider as staff read it («کاوه‌نگار»); an unregistered kind as stored."""
        return provider_label(self.provider)

    @property
    def default_sender(self) -> str:
        return self.senders[0] if self.senders else ""

    @property
    def credit_in(self) -> str:
        """The unit of ``credit`` (``CreditUnit``): the account's own, else its provider's."""
        return self.credit_unit or provider_credit_unit(self.provider)

    @property
    def credit_text(self) -> str:
        """The credit as staff read it («۱۲٬۰۰۰ ریال», «۳٬۵۰۰ پیامک»); "" when never read."""
        return "" if self.credit is None else credit_amount_text(self.credit, self.credit_in)

    @property
    def credit_low(self) -> bool:
        """The credit is below the low-credit threshold of its unit (the owners were told)."""
        from sms.credit import low_credit_threshold

        return self.credit is not None and self.credit < low_credit_threshold(self.credit_in)

    def save(self, *args, **kwargs):
        if not self.credit_unit:
            self.credit_unit = provider_credit_unit(self.provider)
            if kwargs.get("update_fields") is not None:
                kwargs["update_fields"] = {*kwargs["update_fields"], "credit_unit"}
        super().save(*args, **kwargs)

    def clean(self) -> None:
        super().clean()
        from django.core.exceptions import ValidationError

        if provider_for(self.provider) is None:
            raise ValidationError({"provider": "سرویس‌دهنده ناشناخته است."})


class SmsSettings(TimeStamped):
    """Per-workspace SMS channel settings, including the circuit breaker."""

    workspace = models.OneToOneField(Workspace, on_delete=models.CASCADE, related_name="sms_settings")
    enabled = models.BooleanField("پیامک فعال", default=True)
    primary_account = models.ForeignKey(
        SmsProviderAccount, verbose_name="حساب اصلی", on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    fallback_account = models.ForeignKey(
        SmsProviderAccount,
        verbose_name="حساب پشتیبان",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )
    opt_out_text = models.CharField("متن لغو", max_length=60, blank=True, default="لغو۱۱")
    # A reply that is one of these words (whole text, normalised: sms.inbound.keywords) blacklists its number; an
    # opt-in word lifts such an opt-out again (never a staff entry).
    opt_out_words = models.JSONField("کلمه‌های لغو", default=default_opt_out_words, blank=True)
    opt_in_words = models.JSONField("کلمه‌های شروع دوباره", default=default_opt_in_words, blank=True)
    # The delivery webhook's credential: encrypted, found by its SHA-256 digest (kept in step by save()).
    webhook_token = EncryptedTextField("توکن وب‌هوک", default=new_webhook_token)
    webhook_token_digest = models.CharField("اثر توکن وب‌هوک", max_length=64, unique=True, editable=False)
    paused_until = models.DateTimeField("توقف کانال تا", null=True, blank=True)
    pause_reason = models.CharField("دلیل توقف", max_length=200, blank=True)
    outage_notified_at = models.DateTimeField("اعلان قطعی", null=True, blank=True)
    # Promotional sends (advertising lines) per number across every journey and chain: a list of rules
    # ``{"period": "day" | "week" | "month", "limit": N}`` (Jalali day / week from Saturday / month, workspace time
    # zone), each holding at once; empty = no cap (sms.frequency_cap, docs/sms.md "Frequency cap").
    frequency_cap_rules = models.JSONField("سقف پیامک تبلیغاتی هر نفر", default=list, blank=True)
    # Days on which promotional sends wait for the next allowed day (sms.quiet_days): every Friday and/or the
    # listed dates (ISO, Gregorian; shown and edited in the Jalali calendar).
    quiet_fridays = models.BooleanField("جمعه‌ها پیامک تبلیغاتی نرود", default=False)
    quiet_days = models.JSONField("روزهای بدون پیامک تبلیغاتی", default=list, blank=True)

    objects = WorkspaceQuerySet.as_manager()

    class Meta:
        ordering = ["workspace_id"]
        verbose_name = "تنظیمات پیامک"
        verbose_name_plural = "تنظیمات پیامک"

    def __str__(self) -> str:
        return f"تنظیمات پیامک فضای کاری {fa_digits(self.workspace_id)}"

    def save(self, *args, **kwargs):
        fields = kwargs.get("update_fields")
        if "webhook_token" not in self.get_deferred_fields() and (fields is None or "webhook_token" in fields):
            self.webhook_token_digest = webhook_token_digest(self.webhook_token)
            if fields is not None:
                kwargs["update_fields"] = {*fields, "webhook_token_digest"}
        super().save(*args, **kwargs)

    def clean(self) -> None:
        super().clean()
        from campaigns.platform.integrity import require_same_workspace

        require_same_workspace(self, "primary_account", "fallback_account")


class SmsAttempt(models.Model):
    """One provider attempt (the spec's ``automation_sms_logs``)."""

    RESULT_FIELDS = (
        "response_at",
        "provider_response",
        "provider_message_id",
        "error_code",
        "error_message",
        "retry_scheduled_at",
        "provider",
        "sender",
    )

    # Written three times per send (insert, ``sending``, result), so every index is rewritten three times: foreign
    # keys covered by a composite index below (or never filtered on) get none of their own (journeys.md "Benchmark").
    # No key carries a database constraint (journeys.md "Decisions"): workspace, workflow, campaign and subject type
    # are copies of the execution's, the execution is the one the job holds (executions are never deleted) and the
    # node comes from its published, immutable graph. Django applies every on_delete.
    workspace = models.ForeignKey(
        Workspace, on_delete=models.CASCADE, related_name="+", db_index=False, db_constraint=False
    )
    execution = models.ForeignKey(
        "automation.Execution", on_delete=models.PROTECT, related_name="+", db_index=False, db_constraint=False
    )
    # DO_NOTHING and no index for the workflow and node, as on the execution events: a published version's
    # nodes are never deleted, and Django must not scan this table whenever a draft graph is rewritten.
    workflow = models.ForeignKey(
        "automation.Workflow", on_delete=models.DO_NOTHING, related_name="+", db_index=False, db_constraint=False
    )
    campaign = models.ForeignKey(
        "campaigns.Campaign", on_delete=models.PROTECT, related_name="+", db_index=False, db_constraint=False
    )
    subject_type = models.ForeignKey(
        ContentType, on_delete=models.PROTECT, related_name="+", db_index=False, db_constraint=False
    )
    subject_id = models.BigIntegerField()
    node = models.ForeignKey(
        "automation.WorkflowNode", on_delete=models.DO_NOTHING, related_name="+", db_index=False, db_constraint=False
    )
    phone = models.CharField("شماره", max_length=20)
    template = models.TextField("الگو", blank=True)
    message = models.TextField("متن نهایی")
    provider = models.CharField("سرویس‌دهنده", max_length=20, blank=True)
    sender = models.CharField("خط ارسال", max_length=30, blank=True)
    attempt_number = models.PositiveIntegerField("شماره تلاش", default=1)
    cycle = models.PositiveIntegerField("دور", default=1)
    # Unique through the constraint below (a unique field would add a second, pattern-matching index).
    idempotency_key = models.CharField(max_length=120)
    # The provider's local id (Kavenegar ``localid``): the send slot's id, the same on every attempt of the step.
    # Never looked up by itself (answers are matched to the attempts asked about), so not indexed.
    local_id = models.BigIntegerField("شناسه محلی", null=True, blank=True)
    status = models.CharField("وضعیت", max_length=16, choices=AttemptStatus.choices, default=AttemptStatus.SENDING)
    job_token = models.UUIDField(null=True, blank=True)
    request_at = models.DateTimeField("زمان درخواست")
    response_at = models.DateTimeField("زمان پاسخ", null=True, blank=True)
    provider_response = models.JSONField(null=True, blank=True)
    provider_message_id = models.CharField(max_length=64, blank=True)
    error_code = models.CharField(max_length=40, blank=True)
    error_message = models.CharField(max_length=500, blank=True)
    retry_scheduled_at = models.DateTimeField(null=True, blank=True)
    segments = models.PositiveIntegerField("تعداد بخش", default=1)
    # When the delivery poll last asked the provider about this attempt (claimed with a conditional UPDATE).
    status_checked_at = models.DateTimeField("آخرین پرسش وضعیت", null=True, blank=True)

    objects = WorkspaceQuerySet.as_manager()

    class Meta:
        db_table = "automation_sms_logs"
        ordering = ["-request_at", "-id"]
        verbose_name = "تلاش ارسال پیامک"
        verbose_name_plural = "گزارش ارسال پیامک"
        constraints = [models.UniqueConstraint(fields=["idempotency_key"], name="smslog_idempotency_key")]
        indexes = [
            models.Index(fields=["execution", "cycle", "node"], name="smslog_exec_node"),
            models.Index(fields=["workspace", "provider_message_id"], name="smslog_msgid"),
            models.Index(fields=["campaign", "status"], name="smslog_campaign_status"),
            models.Index(fields=["status", "status_checked_at"], name="smslog_delivery_poll"),
            models.Index(fields=["workspace", "request_at"], name="smslog_ws_time"),  # the log, newest first
            # the log's filters: a campaign's sends by time; one number's sends (a full number matches exactly)
            models.Index(fields=["campaign", "request_at"], name="smslog_campaign_time"),
            models.Index(fields=["workspace", "phone", "request_at"], name="smslog_ws_phone_time"),
        ]

    def __str__(self) -> str:
        return f"ارسال پیامک {fa_digits(self.pk)} ({self.get_status_display()})"

    def save(self, *args, **kwargs):
        if self.pk and not kwargs.pop("_allow_update", False):
            raise ImmutableError("use sms.attempts to record results; attempts are append-only")
        super().save(*args, **kwargs)

    def delete(self, *args, **kwargs):
        raise ImmutableError("attempt rows are never deleted")

    def clean(self) -> None:
        super().clean()
        from campaigns.platform.integrity import require_same_workspace, subject_errors

        require_same_workspace(self, "execution", "workflow", "campaign", "node", extra=subject_errors(self))


class SmsSendSlot(models.Model):
    """The numbering of local ids: every attempt of one execution + cycle + node sends the same numeric local id,
    so a retry after an unknown outcome is the same message to the provider (Kavenegar dedupes ``localid``).
    A step's first attempt takes the next number of this table's id sequence — on PostgreSQL without a row
    (``sms.action.attempts.assign_local_ids``), elsewhere as this row's id; the rows of earlier sends stay."""

    # No database constraint on its keys, like the attempts (a copy of the execution's workspace, the execution the
    # job holds, a node of its immutable graph); Django applies on_delete.
    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="+", db_constraint=False)
    # Covered by the unique constraint (execution, cycle, node).
    execution = models.ForeignKey(
        "automation.Execution", on_delete=models.PROTECT, related_name="+", db_index=False, db_constraint=False
    )
    cycle = models.PositiveIntegerField()
    # DO_NOTHING and no index, like the attempt's node.
    node = models.ForeignKey(
        "automation.WorkflowNode", on_delete=models.DO_NOTHING, related_name="+", db_index=False, db_constraint=False
    )
    created_at = models.DateTimeField(auto_now_add=True)

    objects = WorkspaceQuerySet.as_manager()

    class Meta:
        verbose_name = "شناسه محلی ارسال"
        verbose_name_plural = "شناسه‌های محلی ارسال"
        constraints = [models.UniqueConstraint(fields=["execution", "cycle", "node"], name="smsslot_one_per_step")]

    def __str__(self) -> str:
        return f"نوبت ارسال {fa_digits(self.pk)} (اجرای مسیر {fa_digits(self.execution_id)})"

    def clean(self) -> None:
        from campaigns.platform.integrity import require_same_workspace

        require_same_workspace(self, "execution", "node")


class SmsLogEvent(models.Model):
    """A delivery report or later status change of an attempt (``sms_log_events``)."""

    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="+")
    attempt = models.ForeignKey(SmsAttempt, on_delete=models.PROTECT, related_name="events")
    event = models.CharField("رویداد", max_length=30)
    provider_status = models.CharField(max_length=40, blank=True)
    payload = models.JSONField(default=dict, blank=True)
    dedupe_key = models.CharField(max_length=120)
    occurred_at = models.DateTimeField("زمان")

    objects = WorkspaceQuerySet.as_manager()

    class Meta:
        db_table = "sms_log_events"
        ordering = ["-occurred_at", "-id"]
        verbose_name = "رویداد پیامک"
        verbose_name_plural = "رویدادهای پیامک"
        constraints = [models.UniqueConstraint(fields=["attempt", "dedupe_key"], name="smslogevent_dedupe")]

    def __str__(self) -> str:
        return f"{self.attempt_id}: {self.event}"

    def save(self, *args, **kwargs):
        if self.pk:
            raise ImmutableError("sms log events are append-only")
        super().save(*args, **kwargs)

    def delete(self, *args, **kwargs):
        raise ImmutableError("sms log events are append-only")

    def clean(self) -> None:
        super().clean()
        from campaigns.platform.integrity import require_same_workspace

        require_same_workspace(self, "attempt")


class BlacklistEntry(TimeStamped):
    """A number that must not receive messages (delete = deactivate)."""

    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="blacklist_entries")
    channel = models.CharField("کانال", max_length=20, default="sms")
    value = models.CharField("مقدار", max_length=40, help_text="E.164")
    reason = models.CharField("دلیل", max_length=20, choices=BlacklistReason.choices, default=BlacklistReason.MANUAL)
    source = models.CharField("منبع", max_length=20, choices=BlacklistSource.choices, default=BlacklistSource.MANUAL)
    description = models.CharField("توضیح", max_length=300, blank=True)
    is_active = models.BooleanField("فعال", default=True)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True)
    removed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    removed_at = models.DateTimeField(null=True, blank=True)

    objects = WorkspaceQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at", "-id"]
        verbose_name = "لیست سیاه"
        verbose_name_plural = "لیست سیاه"
        constraints = [
            models.UniqueConstraint(fields=["workspace", "channel", "value"], name="blacklist_unique_value"),
        ]
        indexes = [models.Index(fields=["workspace", "channel", "is_active"], name="blacklist_active")]

    def __str__(self) -> str:
        return f"{self.value} در لیست سیاه"

    def delete(self, *args, **kwargs):
        raise ImmutableError("deactivate blacklist entries instead of deleting them")


class TelecomBlockedNumber(models.Model):
    """A number the provider answered "blocked for advertising" (Melipayamak 35, Kavenegar 14): advertising
    sends of the workspace skip it; service lines still reach it (``sms.telecom_blocks``)."""

    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="+")
    phone = models.CharField("شماره", max_length=20)
    provider = models.CharField("سرویس‌دهنده", max_length=20)
    code = models.CharField("کد پاسخ", max_length=40)
    created_at = models.DateTimeField("اولین بار", auto_now_add=True)
    last_seen_at = models.DateTimeField("آخرین بار")

    objects = WorkspaceQuerySet.as_manager()

    class Meta:
        ordering = ["-last_seen_at", "-id"]
        verbose_name = "شماره مسدود تبلیغاتی"
        verbose_name_plural = "شماره‌های مسدود تبلیغاتی"
        constraints = [models.UniqueConstraint(fields=["workspace", "phone"], name="telecom_block_unique_phone")]

    def __str__(self) -> str:
        return f"شمارهٔ مسدود تبلیغاتی {fa_digits(self.pk)}"


class SmsFrequencyCount(models.Model):
    """Promotional messages a number got in one period of a frequency cap rule (the cap's counter: one row per
    number, period kind and period — ``day`` is the period's first day, Gregorian, in the workspace calendar —,
    raised only below the cap by one conditional statement; sms.frequency_cap)."""

    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="+")
    phone = models.CharField("شماره", max_length=20)
    period = models.CharField("دوره", max_length=8, default="day")
    day = models.DateField("آغاز دوره")
    sent = models.PositiveSmallIntegerField("ارسال‌شده", default=0)

    objects = WorkspaceQuerySet.as_manager()

    class Meta:
        verbose_name = "شمار پیامک تبلیغاتی"
        verbose_name_plural = "شمار پیامک‌های تبلیغاتی"
        constraints = [
            models.UniqueConstraint(fields=["workspace", "phone", "period", "day"], name="sms_frequency_unique_period")
        ]
        indexes = [models.Index(fields=["day"], name="sms_frequency_day")]

    def __str__(self) -> str:
        return f"شمار پیامک تبلیغاتی {fa_digits(self.pk)}"


class SmsTemplate(TimeStamped):
    """A reusable message text (copied into the step config on insert)."""

    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="sms_templates")
    name = models.CharField("نام", max_length=200)
    body = models.TextField("متن")
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True)
    deleted_at = models.DateTimeField("حذف", null=True, blank=True)

    objects = WorkspaceQuerySet.as_manager()

    class Meta:
        ordering = ["name", "id"]
        verbose_name = "قالب پیامک"
        verbose_name_plural = "قالب‌های پیامک"

    def __str__(self) -> str:
        return self.name


class SmsChannelEvent(WorkspaceEvent):
    """Audit of channel-level changes: circuit opened/closed, manual resume, webhook token rotated."""

    type = models.CharField("نوع", max_length=30, choices=SmsChannelEventType.choices)

    objects = WorkspaceQuerySet.as_manager()

    class Meta(WorkspaceEvent.Meta):
        verbose_name = "رویداد کانال پیامک"
        verbose_name_plural = "رویدادهای کانال پیامک"


from sms.inbound.models import InboundSms, SmsInboxCursor  # noqa: E402,F401  (registered with the app's models)
