"""Admin registrations of the SMS channel (credentials never shown; attempts read-only)."""

import json

from django import forms
from django.contrib import admin

from campaigns.platform.admin import AppendOnlyMixin, ReadOnlyAdmin, WorkspaceScopedAdmin, jalali_column
from campaigns.platform.permissions import Perm
from campaigns.platform.text import StrictTextFormMixin
from sms.models import (
    BlacklistEntry,
    InboundSms,
    SmsAttempt,
    SmsChannelEvent,
    SmsFrequencyCount,
    SmsInboxCursor,
    SmsLogEvent,
    SmsProviderAccount,
    SmsSendSlot,
    SmsSettings,
    SmsTemplate,
    TelecomBlockedNumber,
)
from sms.providers import provider_choices, provider_for


class AccountForm(StrictTextFormMixin, forms.ModelForm):
    visible_name_fields = ("name",)

    # The kinds and each kind's credential schema come from the provider registry (sms.providers).
    provider = forms.ChoiceField(label="سرویس‌دهنده", choices=provider_choices)
    credentials = forms.CharField(
        label="اعتبارنامه (JSON)",
        required=False,
        widget=forms.PasswordInput(render_value=False),
        help_text="خالی بگذارید تا مقدار فعلی بماند.",
    )

    class Meta:
        model = SmsProviderAccount
        fields = [
            "workspace",
            "name",
            "provider",
            "credentials",
            "senders",
            "is_active",
            "max_requests_per_second",
            "max_messages_per_minute",
            "max_line_messages_per_second",
            "inbound_push",
            "line_kind",
            "price_mci",
            "price_irancell",
            "price_rightel",
            "use_typed_prices",
            "credit_unit",
        ]

    def clean_credentials(self):
        value = self.cleaned_data.get("credentials")
        return value or (self.instance.credentials if self.instance.pk else "")

    def clean(self):
        cleaned = super().clean()
        provider = provider_for(cleaned.get("provider") or "")
        if provider is None:
            return cleaned
        try:
            data = json.loads(cleaned.get("credentials") or "{}")
        except ValueError:
            self.add_error("credentials", "اعتبارنامه باید JSON باشد.")
            return cleaned
        for field, errors in provider.credentials_errors(data).items():
            self.add_error("credentials", f"{field}: {' '.join(errors)}")
        return cleaned


@admin.register(SmsProviderAccount)
class SmsProviderAccountAdmin(WorkspaceScopedAdmin):
    """Owners/admins of the workspace only; credentials are write-only."""

    view_perm = Perm.MANAGE_WORKSPACE
    form = AccountForm
    list_display = (
        "name",
        "provider",
        "line_kind",
        "workspace",
        "is_active",
        "credit",
        "credit_unit",
        "max_requests_per_second",
        "max_messages_per_minute",
        "created_jalali",
    )
    list_filter = ("provider", "line_kind", "is_active", "workspace")
    readonly_fields = (
        "credit",
        "credit_checked_at",
        "provider_prices",
        "prices_checked_at",
        "prices_error",
        "prices_error_at",
    )
    search_fields = ("name",)


@admin.register(SmsSettings)
class SmsSettingsAdmin(WorkspaceScopedAdmin):
    """Accounts are chosen among the workspace's own (model clean() and the service refuse others).

    The webhook token is never shown (the API's rotate endpoint issues a new address); the circuit
    breaker fields change through the channel (trip/close) and the "resume" service.
    """

    view_perm = Perm.MANAGE_WORKSPACE
    list_display = ("workspace", "enabled", "primary_account", "fallback_account", "paused_until")
    list_filter = ("enabled",)
    search_fields = ("workspace__name",)
    exclude = ("webhook_token",)
    # The opt-out / opt-in words change through ``inbound_words_update`` (validated: no word is both).
    readonly_fields = ("paused_until", "pause_reason", "outage_notified_at", "opt_out_words", "opt_in_words")


@admin.register(SmsAttempt)
class SmsAttemptAdmin(ReadOnlyAdmin):
    list_display = ("idempotency_key", "status", "provider", "campaign", "request_jalali", "segments")
    list_filter = ("status", "provider", "workspace")
    search_fields = ("=idempotency_key", "=provider_message_id")
    request_jalali = jalali_column("request_at", "زمان درخواست")


@admin.register(SmsSendSlot)
class SmsSendSlotAdmin(ReadOnlyAdmin):
    list_display = ("id", "execution", "cycle", "node", "created_at")
    list_filter = ("workspace",)
    search_fields = ("=id", "=execution__id")


@admin.register(SmsFrequencyCount)
class SmsFrequencyCountAdmin(ReadOnlyAdmin):
    list_display = ("phone", "day", "sent", "workspace")
    list_filter = ("workspace", "day")
    search_fields = ("=phone",)


@admin.register(SmsLogEvent)
class SmsLogEventAdmin(ReadOnlyAdmin):
    list_display = ("attempt", "event", "provider_status", "occurred_at")
    list_filter = ("event", "workspace")
    search_fields = ("=attempt__id",)


@admin.register(BlacklistEntry)
class BlacklistEntryAdmin(AppendOnlyMixin, WorkspaceScopedAdmin):
    manage_perm = Perm.MANAGE_BLACKLIST
    list_display = ("value", "channel", "reason", "source", "is_active", "workspace", "created_jalali")
    list_filter = ("is_active", "reason", "source", "workspace")
    search_fields = ("value", "description")
    readonly_fields = ("source", "created_by", "removed_by", "removed_at")


@admin.register(TelecomBlockedNumber)
class TelecomBlockedNumberAdmin(ReadOnlyAdmin):
    """Numbers a provider answered "blocked for advertising" (written by the sends and delivery reports)."""

    list_display = ("phone", "provider", "code", "workspace", "last_seen_at")
    list_filter = ("provider", "workspace")
    search_fields = ("=phone",)


@admin.register(SmsTemplate)
class SmsTemplateAdmin(WorkspaceScopedAdmin):
    manage_perm = Perm.MANAGE_WORKFLOWS
    list_display = ("name", "workspace", "created_jalali", "deleted_at")
    list_filter = ("workspace",)
    search_fields = ("name", "body")


@admin.register(SmsChannelEvent)
class SmsChannelEventAdmin(ReadOnlyAdmin):
    list_display = ("workspace", "type", "actor", "created_jalali")
    list_filter = ("type", "workspace")
    search_fields = ("type",)
    created_jalali = jalali_column("created_at", "زمان")


@admin.register(InboundSms)
class InboundSmsAdmin(ReadOnlyAdmin):
    """Replies as received (stored once; their opt-out / opt-in already applied)."""

    list_display = ("number", "line", "target", "outcome", "is_read", "received_jalali")
    list_filter = ("outcome", "is_read", "provider", "workspace")
    search_fields = ("=number", "=provider_message_id")
    received_jalali = jalali_column("received_at", "زمان دریافت")


@admin.register(SmsInboxCursor)
class SmsInboxCursorAdmin(ReadOnlyAdmin):
    """Where each inbox poll starts next (an account's line, or the whole account)."""

    list_display = ("account", "line", "cursor", "polled_jalali")
    list_filter = ("workspace",)
    search_fields = ("=line",)
    polled_jalali = jalali_column("polled_at", "آخرین خواندن")
