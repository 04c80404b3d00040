"""SMS reads for pages and the API: attempt log, blacklist, templates, accounts, settings overview."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import TypedDict, Unpack

from django.db.models import Exists, OuterRef, QuerySet
from django.urls import reverse

from campaigns.models import Campaign
from campaigns.platform.permissions import Perm
from campaigns.platform.tenancy import Actor, get_scoped, scoped
from sms import channel
from sms.choices import AttemptStatus
from sms.models import BlacklistEntry, SmsAttempt, SmsChannelEvent, SmsProviderAccount, SmsSettings, SmsTemplate
from sms.providers import provider_for

_LATIN = str.maketrans("۰۱۲۳۴۵۶۷۸۹٠١٢٣٤٥٦٧٨٩", "01234567890123456789")


def latin_digits(text: str) -> str:
    return str(text or "").translate(_LATIN)


def number_filter(qs: QuerySet, field: str, number: str) -> QuerySet:
    """A full number in any notation matches exactly; a fragment of digits matches anywhere."""
    number = latin_digits(number).strip()
    if not number:
        return qs
    normalized = channel.normalize_number(number)
    if normalized:
        return qs.filter(**{field: normalized})
    digits = "".join(ch for ch in number if ch.isdigit())
    if digits.startswith("0"):
        digits = digits[1:]  # 0912… is stored as +98912…
    return qs.filter(**{f"{field}__contains": digits}) if digits else qs.none()


class LogFilters(TypedDict, total=False):
    """The filters every source of the SMS log takes (its attempts here, its step outcomes in ``sms.log``)."""

    campaign_id: int | None
    number: str | None
    since: datetime | None
    until: datetime | None


def attempt_queryset(*, actor: Actor, status: str | None = None, **filters: Unpack[LogFilters]) -> QuerySet:
    """The attempt log (needs ``view_sms_logs``), newest first, with the optional filters."""
    actor.require(Perm.VIEW_SMS_LOGS)
    qs = scoped(SmsAttempt, actor.workspace).select_related("campaign")
    if status in AttemptStatus.values:
        qs = qs.filter(status=status)
    return log_filter(qs, at="request_at", by_number=lambda qs, number: number_filter(qs, "phone", number), **filters)


def log_filter(
    qs: QuerySet,
    *,
    at: str,
    by_number: Callable[[QuerySet, str], QuerySet],
    campaign_id: int | None = None,
    number: str | None = None,
    since: datetime | None = None,
    until: datetime | None = None,
) -> QuerySet:
    """The filters the SMS logs share: one campaign, one number (``by_number``: how the source finds it) and
    the rows whose ``at`` time is in [since, until)."""
    if number:
        qs = by_number(qs, number)
    if campaign_id:
        qs = qs.filter(campaign_id=campaign_id)
    if since:
        qs = qs.filter(**{f"{at}__gte": since})
    if until:
        qs = qs.filter(**{f"{at}__lt": until})
    return qs


def campaigns_with_attempts(*, actor: Actor) -> QuerySet:
    """Campaign choices of the log's filter: those with attempts, and every journey campaign (its SMS steps may
    have ended without one — skipped, blacklisted, cancelled)."""
    # One index probe per campaign (smslog_campaign_status), not a DISTINCT over every attempt of the workspace; two
    # reads, not one OR (an OR with the EXISTS turns the probes into a scan of every attempt).
    sent = scoped(SmsAttempt, actor.workspace).filter(campaign_id=OuterRef("pk"))
    campaigns = scoped(Campaign, actor.workspace)
    ids = {*campaigns.filter(Exists(sent)).values_list("id", flat=True)}
    ids |= {*campaigns.filter(journey__isnull=False).values_list("id", flat=True)}
    return campaigns.filter(pk__in=ids).order_by("name", "id")


def blacklist_search(qs: QuerySet, q: str) -> QuerySet:
    """Entries whose number matches ``q`` (any notation or a digit fragment) or whose description holds it."""
    return number_filter(qs, "value", q) | qs.filter(description__icontains=q.strip())


def blacklist_queryset(*, actor: Actor, q: str | None = None, active: bool | None = None) -> QuerySet:
    actor.require(Perm.MANAGE_BLACKLIST)
    qs = scoped(BlacklistEntry, actor.workspace).select_related("created_by", "removed_by")
    if q and q.strip():
        qs = blacklist_search(qs, q)
    if active is not None:
        qs = qs.filter(is_active=active)
    return qs


def sms_template_queryset(*, actor: Actor) -> QuerySet:
    return scoped(SmsTemplate, actor.workspace).select_related("created_by")


def sms_template_get(*, actor: Actor, template_id: int) -> SmsTemplate:
    return get_scoped(SmsTemplate, actor.workspace, template_id)


def provider_kind_choices() -> list[tuple[str, str]]:
    """The provider kinds staff may add, from the channel's own list."""
    from sms import providers

    return providers.provider_kind_choices()


def account_queryset(*, actor: Actor) -> QuerySet:
    actor.require(Perm.MANAGE_WORKSPACE)
    return scoped(SmsProviderAccount, actor.workspace)


def account_get(*, actor: Actor, account_id: int) -> SmsProviderAccount:
    account = get_scoped(SmsProviderAccount, actor.workspace, account_id, queryset=account_queryset(actor=actor))
    return account


@dataclass(frozen=True)
class SettingsOverview:
    settings: SmsSettings
    accounts: list[SmsProviderAccount]
    problem: str | None
    paused_until: datetime | None
    webhook_path: str
    recent_events: list[SmsChannelEvent]


def webhook_path(settings: SmsSettings) -> str:
    return f"/api/webhooks/sms/generic/{settings.webhook_token}"


def inbound_push_path(account: SmsProviderAccount) -> str | None:
    """Where the account's provider pushes its replies (its own token; shown to managers on the account's page),
    or None when the provider does not push."""
    provider = provider_for(account.provider)
    if provider is None or not provider.pushes_replies:
        return None
    return reverse("sms-inbound-push", kwargs={"account_id": account.pk, "token": account.inbound_token})


def settings_overview(*, actor: Actor) -> SettingsOverview:
    actor.require(Perm.MANAGE_WORKSPACE)
    settings = channel.sms_settings(actor.workspace.id)
    return SettingsOverview(
        settings=settings,
        accounts=list(account_queryset(actor=actor)),
        problem=channel.channel_problem(actor.workspace.id),
        paused_until=channel.paused_until(actor.workspace.id, channel.now()),
        webhook_path=webhook_path(settings),
        recent_events=list(scoped(SmsChannelEvent, actor.workspace).select_related("actor")[:10]),
    )
