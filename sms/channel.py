"""Channel state: settings, usability, circuit breaker, gateway with fallback, blacklist lookups."""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings as django_settings
from django.db.models import Q
from django.dispatch import Signal
from django.utils import timezone

from campaigns.platform.phones import PhoneError, parse_phone
from sms.models import BlacklistEntry, SmsChannelEvent, SmsProviderAccount, SmsSettings
from sms.providers import SendRequest, SendResponse, StatusAnswer, provider_for

logger = logging.getLogger(__name__)

# Sent once per outage (≤ every 6 h) with kwargs workspace_id, reason: the notifications issue connects here.
channel_outage = Signal()

OUTAGE_NOTIFY_EVERY = timedelta(hours=6)


def sms_settings(workspace_id: int) -> SmsSettings:
    settings, _ = SmsSettings.objects.get_or_create(workspace_id=workspace_id)
    return settings


def account_credentials(account: SmsProviderAccount) -> dict:
    try:
        value = json.loads(account.credentials or "{}")
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def _account_problem(account: SmsProviderAccount | None) -> str | None:
    if account is None or not account.is_active:
        return "sms_not_configured"
    provider = provider_for(account.provider)
    if provider is None:
        return "sms_provider_unknown"
    return "sms_not_configured" if provider.credentials_problem(account_credentials(account)) else None


def channel_problem(workspace_id: int) -> str | None:
    """Why the workspace cannot send SMS at all (the circuit breaker is handled by its guard)."""
    settings = SmsSettings.objects.select_related("primary_account").filter(workspace_id=workspace_id).first()
    if settings is None:
        return "sms_not_configured"
    if not settings.enabled:
        return "sms_disabled"
    return _account_problem(settings.primary_account)


# --- circuit breaker ------------------------------------------------------------------------------
def paused_until(workspace_id: int, now: datetime) -> datetime | None:
    until = SmsSettings.objects.filter(workspace_id=workspace_id).values_list("paused_until", flat=True).first()
    return until if until and until > now else None


def trip_circuit(workspace_id: int, reason: str, now: datetime) -> datetime:
    """Open the circuit (first learner wins); notify the owner once per outage via an atomic UPDATE."""
    minutes = getattr(django_settings, "SMS_CIRCUIT_PAUSE_MINUTES", 30)
    until = now + timedelta(minutes=minutes)
    opened = (
        SmsSettings.objects.filter(workspace_id=workspace_id)
        .filter(Q(paused_until__isnull=True) | Q(paused_until__lte=now))
        .update(paused_until=until, pause_reason=reason[:200], updated_at=now)
    )
    if opened:
        SmsChannelEvent.objects.create(
            workspace_id=workspace_id, type="circuit_opened", data={"reason": reason, "until": until.isoformat()}
        )
        notify = (
            SmsSettings.objects.filter(workspace_id=workspace_id)
            .filter(Q(outage_notified_at__isnull=True) | Q(outage_notified_at__lte=now - OUTAGE_NOTIFY_EVERY))
            .update(outage_notified_at=now)
        )
        if notify:
            logger.warning("sms channel of workspace %s unusable: %s", workspace_id, reason)
            channel_outage.send(sender=SmsSettings, workspace_id=workspace_id, reason=reason)
    return paused_until(workspace_id, now) or until


def close_circuit(workspace_id: int) -> None:
    """A probe succeeded: the outage is over."""
    closed = SmsSettings.objects.filter(workspace_id=workspace_id, paused_until__isnull=False).update(
        paused_until=None, pause_reason="", outage_notified_at=None
    )
    if closed:
        SmsChannelEvent.objects.create(workspace_id=workspace_id, type="circuit_closed")


# --- gateway -------------------------------------------------------------------------------------
@dataclass
class GatewayResult:
    response: SendResponse
    provider: str
    sender: str


def pick_account(settings: SmsSettings, provider_kind: str | None) -> SmsProviderAccount | None:
    if provider_kind:
        return SmsProviderAccount.objects.filter(
            workspace_id=settings.workspace_id, provider=provider_kind, is_active=True
        ).first()
    return settings.primary_account


def send_through_gateway(
    settings: SmsSettings, *, phone: str, text: str, sender: str | None, local_id: str, provider_kind: str | None
) -> GatewayResult:
    """Primary account first; the fallback only when the primary is unusable (never after an unknown outcome)."""
    accounts = [pick_account(settings, provider_kind)]
    if settings.fallback_account_id and not provider_kind:
        accounts.append(settings.fallback_account)
    last: GatewayResult | None = None
    for account in accounts:
        if account is None or account.workspace_id != settings.workspace_id or _account_problem(account):
            continue  # never another workspace's account (its credit), whatever the settings row says
        line = sender if sender and sender in (account.senders or []) else account.default_sender
        response = provider_for(account.provider).send(
            account_credentials(account), SendRequest(phone=phone, text=text, sender=line, local_id=local_id)
        )
        last = GatewayResult(response, account.provider, line)
        if response.status != "unavailable":
            return last
    return last or GatewayResult(SendResponse("unavailable", error_code="not_configured"), "", "")


def query_sent(settings: SmsSettings, *, provider_kind: str, local_id: str) -> StatusAnswer | None:
    """Ask the provider an attempt went to whether local id ``local_id`` was sent; None = it cannot be asked."""
    provider = provider_for(provider_kind)
    if provider is None or not provider.has_status_query:
        return None
    candidates = [settings.primary_account, settings.fallback_account if settings.fallback_account_id else None]
    account = next((a for a in candidates if a is not None and a.provider == provider_kind), None)
    account = account or pick_account(settings, provider_kind)
    if account is None:
        return StatusAnswer("unknown", error_code="no_account")
    return provider.query_status(account_credentials(account), local_id)


# --- blacklist -------------------------------------------------------------------------------------
def normalize_number(raw: str) -> str | None:
    try:
        return parse_phone(raw).e164
    except PhoneError:
        return None


def blacklisted_numbers(workspace_id: int, numbers: list[str]) -> set[str]:
    return set(
        BlacklistEntry.objects.filter(
            workspace_id=workspace_id, channel="sms", is_active=True, value__in=[n for n in numbers if n]
        ).values_list("value", flat=True)
    )


def is_blacklisted(workspace_id: int, number: str | None) -> bool:
    return bool(number) and bool(blacklisted_numbers(workspace_id, [number]))


def now() -> datetime:
    return timezone.now()
