"""Stored replies: one row per message a provider received for an account (poll or push), stored once."""

from django.db import models

from campaigns.models import Workspace, WorkspaceQuerySet
from sms.choices import InboundOutcome


class InboundSms(models.Model):
    """A message a recipient sent to one of the workspace's lines (``sms_inbound``).

    Unique by (account, provider message id): a poll or push that brings it again stores nothing. ``number`` is
    the sender in E.164 when it parses (else its digits as received); ``target`` is the workspace's live target
    with that mobile (null = unmatched, kept); ``attempt`` the last message accepted for that number on that line
    before the reply arrived, and ``campaign`` its campaign (copied for the inbox filter).
    """

    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="+")
    account = models.ForeignKey(
        "sms.SmsProviderAccount", verbose_name="حساب پیامک", on_delete=models.PROTECT, related_name="+"
    )
    provider = models.CharField("سرویس‌دهنده", max_length=20)
    provider_message_id = models.CharField("شناسه پیام نزد سرویس‌دهنده", max_length=64)
    line = models.CharField("خط دریافت", max_length=30, blank=True)
    number = models.CharField("شماره فرستنده", max_length=40)
    text = models.TextField("متن", blank=True)
    received_at = models.DateTimeField("زمان دریافت")
    stored_at = models.DateTimeField("زمان ثبت", auto_now_add=True)
    target = models.ForeignKey(
        "campaigns.Target", verbose_name="مخاطب", on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    # Attempts are never deleted (retention erases their text in place); no database constraint, like the log's keys.
    attempt = models.ForeignKey(
        "sms.SmsAttempt",
        verbose_name="آخرین پیامک ارسالی",
        on_delete=models.DO_NOTHING,
        null=True,
        blank=True,
        related_name="+",
        db_constraint=False,
    )
    campaign = models.ForeignKey(
        "campaigns.Campaign",
        verbose_name="کمپین",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        db_constraint=False,
    )
    is_read = models.BooleanField("خوانده‌شده", default=False)
    outcome = models.CharField("نتیجه", max_length=20, choices=InboundOutcome.choices, blank=True, default="")

    objects = WorkspaceQuerySet.as_manager()

    class Meta:
        db_table = "sms_inbound"
        ordering = ["-received_at", "-id"]
        verbose_name = "پیامک دریافتی"
        verbose_name_plural = "پیامک‌های دریافتی"
        constraints = [
            models.UniqueConstraint(fields=["account", "provider_message_id"], name="inbound_once_per_account"),
        ]
        indexes = [
            models.Index(fields=["workspace", "-received_at"], name="inbound_ws_time"),
            models.Index(fields=["workspace", "number", "-received_at"], name="inbound_ws_number_time"),
            models.Index(fields=["target", "-received_at"], name="inbound_target_time"),
            # The inbox's common reads: a journey's replies, the unread ones (a small part of a year's replies).
            models.Index(fields=["campaign", "-received_at"], name="inbound_campaign_time"),
            models.Index(
                fields=["workspace", "-received_at"], condition=models.Q(is_read=False), name="inbound_ws_unread_time"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.provider}:{self.provider_message_id}"

    def clean(self) -> None:
        super().clean()
        from campaigns.platform.integrity import require_same_workspace

        require_same_workspace(self, "account", "target", "attempt", "campaign")


class SmsInboxCursor(models.Model):
    """One inbox the poll reads: an account's line (Kavenegar) or the whole account (``line`` "", Melipayamak),
    where the next request starts (``cursor``), and when it was last claimed (the fair, bounded poll)."""

    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="+")
    account = models.ForeignKey("sms.SmsProviderAccount", on_delete=models.CASCADE, related_name="+")
    line = models.CharField("خط دریافت", max_length=30, blank=True)
    cursor = models.CharField("نشانگر", max_length=64, blank=True)
    polled_at = models.DateTimeField("آخرین خواندن", null=True, blank=True)

    objects = WorkspaceQuerySet.as_manager()

    class Meta:
        verbose_name = "صندوق دریافت"
        verbose_name_plural = "صندوق‌های دریافت"
        constraints = [models.UniqueConstraint(fields=["account", "line"], name="inbox_cursor_once_per_line")]
        indexes = [models.Index(fields=["polled_at"], name="inbox_cursor_due")]

    def __str__(self) -> str:
        return f"{self.account_id}:{self.line or '*'}"

    def clean(self) -> None:
        from campaigns.platform.integrity import require_same_workspace

        require_same_workspace(self, "account")
