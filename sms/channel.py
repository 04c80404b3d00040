"""Channel state: settings, usability, circuit breaker, gateway with fallback, blacklist lookups."""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings as django_settings
from django.db.models import Q, QuerySet
from django.dispatch import Signal
from django.utils import timezone

from campaigns.platform.bulk import texts_match
from campaigns.platform.metrics import count_send
from campaigns.platform.phones import PhoneError, parse_phone
from sms import events, rate_limits
from sms.models import BlacklistEntry, SmsProviderAccount, SmsSettings
from sms.providers import SendRequest, SendResponse, StatusAnswer, provider_for
from sms.segments import count_segments

logger = logging.getLogger(__name__)

# Sent once per outage (≤ every 6 h) with kwargs workspace_id, reason (for owner notifications).
channel_outage = Signal()

OUTAGE_NOTIFY_EVERY = timedelta(hours=6)
# The circuit's reason when the provider answered that the account's credit cannot pay (``Provider.no_credit_codes``),
# shown as it is on the SMS settings page; the credit read (``sms.credit``) resumes such a pause once it sees credit.
CREDIT_EXHAUSTED = "اعتبار حساب پیامک تمام شده است"


def sms_settings(workspace_id: int) -> SmsSettings:
    """The workspace's SMS settings with both accounts (one query: a send reads them)."""
    with_accounts = SmsSettings.objects.select_related("primary_account", "fallback_account")
    settings, _ = with_accounts.get_or_create(workspace_id=workspace_id)
    return settings


def account_credentials(account: SmsProviderAccount) -> dict:
    """The account's decrypted credentials as a dict (parsed once per loaded account and credentials value: a
    job calls its accounts for a whole batch). A copy, so a provider cannot change the memo."""
    raw = account.credentials or "{}"
    memo = account.__dict__.get("_credentials_memo")
    if memo is None or memo[0] != raw:
        try:
            value = json.loads(raw)
        except ValueError:
            value = {}
        memo = (raw, value if isinstance(value, dict) else {})
        account.__dict__["_credentials_memo"] = memo
    return dict(memo[1])


def _account_problem(account: SmsProviderAccount | None) -> str | None:
    if account is None or not account.is_active:
        return "sms_not_configured"
    # Checked before every call; a job keeps its accounts for the whole batch, so the answer is kept on the
    # instance for as long as what it depends on is unchanged.
    key = (account.provider, account.credentials)
    memo = account.__dict__.get("_problem_memo")
    if memo is not None and memo[0] == key:
        return memo[1]
    provider = provider_for(account.provider)
    if provider is None:
        problem = "sms_provider_unknown"
    else:
        problem = "sms_not_configured" if provider.credentials_problem(account_credentials(account)) else None
    account.__dict__["_problem_memo"] = (key, problem)
    return problem


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
    minutes = django_settings.SMS_CIRCUIT_PAUSE_MINUTES
    until = now + timedelta(minutes=minutes)
    opened = (
        SmsSettings.objects.filter(workspace_id=workspace_id)
        .filter(Q(paused_until__isnull=True) | Q(paused_until__lte=now))
        .update(paused_until=until, pause_reason=reason[:200], updated_at=now)
    )
    if opened:
        events.circuit_opened_event(workspace_id=workspace_id, reason=reason, until=until)
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
        events.circuit_closed_event(workspace_id=workspace_id)


def resume_after_credit(workspace_id: int, *, account_id: int, now: datetime) -> bool:
    """The credit read saw credit again on account ``account_id``: if it is its workspace's primary or fallback
    and the workspace's sends paused for credit (``CREDIT_EXHAUSTED``), the circuit closes and the SMS steps
    deferred to the pause's end become due now (the next tick sends them; their guards run again). A pause for
    any other reason stays. Returns whether it resumed."""
    from automation.choices import ExecutionStatus
    from automation.models import Execution

    paused = SmsSettings.objects.filter(
        Q(primary_account_id=account_id) | Q(fallback_account_id=account_id),
        workspace_id=workspace_id,
        paused_until__gt=now,
        pause_reason=CREDIT_EXHAUSTED,
    )
    until = paused.values_list("paused_until", flat=True).first()
    if until is None:
        return False
    closed = paused.filter(paused_until=until).update(
        paused_until=None, pause_reason="", outage_notified_at=None, updated_at=now
    )
    if not closed:
        return False  # a probe or a person closed it meanwhile
    events.circuit_closed_event(workspace_id=workspace_id, cause="credit")
    woken = Execution.objects.filter(
        workspace_id=workspace_id,
        status=ExecutionStatus.WAITING,
        next_run_at=until,
        current_node__type="action",
        current_node__subtype="send_sms",
    ).update(next_run_at=now)
    logger.info("sms sends of workspace %s resumed: credit again (%s steps due now)", workspace_id, woken)
    return True


# --- gateway -------------------------------------------------------------------------------------
RATE_LIMITED = "rate_limited"


@dataclass
class GatewayResult:
    response: SendResponse
    provider: str
    sender: str
    # > 0: the account's rate limit refused the call (nothing was called); seconds until it may go.
    retry_after: float = 0.0


def pick_account(settings: SmsSettings, provider_kind: str | None) -> SmsProviderAccount | None:
    if provider_kind:
        return SmsProviderAccount.objects.filter(
            workspace_id=settings.workspace_id, provider=provider_kind, is_active=True
        ).first()
    return settings.primary_account


def send_through_gateway(
    settings: SmsSettings,
    *,
    phone: str,
    text: str,
    sender: str | None,
    local_id: str,
    provider_kind: str | None,
    primary_rate_taken: bool = False,
    before_fallback: Callable[[str, str], None] | None = None,
) -> GatewayResult:
    """One send through ``send_batch_through_gateway`` (previews, tests, one-off sends)."""
    fallback = (lambda kind, line, positions: before_fallback(kind, line)) if before_fallback else None
    return send_batch_through_gateway(
        settings,
        [BatchItem(phone, text, sender, local_id)],
        provider_kind=provider_kind,
        primary_rate_taken=primary_rate_taken,
        before_fallback=fallback,
    )[0]


@dataclass(frozen=True)
class BatchItem:
    """One receptor of a batched send: the step's sender line (None = the account's default) and local id."""

    phone: str
    text: str
    sender: str | None
    local_id: str


def _line(account: SmsProviderAccount, sender: str | None) -> str:
    return sender if sender and sender in (account.senders or []) else account.default_sender


def send_batch_through_gateway(
    settings: SmsSettings,
    items: list[BatchItem],
    *,
    provider_kind: str | None,
    primary_rate_taken: bool = False,
    before_fallback: Callable[[str, str, list[int]], None] | None = None,
) -> list[GatewayResult]:
    """One batch through the primary account (in the provider's calls of up to ``batch_size``); the items it
    answered ``unavailable`` go to the fallback (never after an unknown outcome). One result per item.

    The primary's rate limit is taken by the caller for the whole batch (``primary_rate_taken``), else here; a
    limited primary returns ``retry_after`` without calling anything (the step is deferred); a limited fallback
    leaves the primary's answer. A provider's "too many requests"/"busy" answer (``throttled``) backs the
    account off for every worker and defers the items like a limit. ``before_fallback(kind, sender, positions)``
    runs just before the fallback's call, so a crash during it is asked about at the account that was called.
    """
    accounts = [pick_account(settings, provider_kind)]
    if settings.fallback_account_id and not provider_kind:
        accounts.append(settings.fallback_account)
    results: list[GatewayResult | None] = [None] * len(items)
    pending = list(range(len(items)))
    tried = False
    for account in accounts:
        if not pending:
            break
        if account is None or account.workspace_id != settings.workspace_id or _account_problem(account):
            continue  # never another workspace's account (its credit), whatever the settings row says
        provider = provider_for(account.provider)
        going = pending
        if not (primary_rate_taken and not tried and account is accounts[0]):
            granted, wait = rate_limits.take_batch_or_wait(
                account,
                [count_segments(items[i].text).segments for i in pending],
                lines=[_line(account, items[i].sender) for i in pending],
            )
            if not granted:
                if not tried:
                    limited = SendResponse("limited", error_code=RATE_LIMITED, error_message=f"retry in {wait:.1f}s")
                    for i in pending:
                        results[i] = GatewayResult(limited, account.provider, _line(account, items[i].sender), wait)
                break
            going = pending[:granted]
            if not tried:  # the primary's limit holds the rest of the batch back (deferred shortly)
                limited = SendResponse("limited", error_code=RATE_LIMITED, error_message="retry in 1.0s")
                for i in pending[granted:]:
                    results[i] = GatewayResult(limited, account.provider, _line(account, items[i].sender), 1.0)
        if tried and before_fallback is not None:
            for line in {_line(account, items[i].sender) for i in going}:
                before_fallback(account.provider, line, [i for i in going if _line(account, items[i].sender) == line])
        requests = [
            SendRequest(
                phone=items[i].phone,
                text=items[i].text,
                sender=_line(account, items[i].sender),
                local_id=items[i].local_id,
            )
            for i in going
        ]
        responses = provider.send_batch(account_credentials(account), requests)
        backoff = 0.0
        if any(r.status == "throttled" for r in responses):
            backoff = rate_limits.back_off(account)
        for i, request, response in zip(going, requests, responses, strict=True):
            count_send(provider=account.provider, result=response.status)
            throttled = backoff if response.status == "throttled" else 0.0
            results[i] = GatewayResult(response, account.provider, request.sender, throttled)
        tried = True
        pending = [i for i in going if results[i].response.status == "unavailable"]
    missing = GatewayResult(SendResponse("unavailable", error_code="not_configured"), "", "")
    return [r or missing for r in results]


def first_account(settings: SmsSettings, provider_kind: str | None) -> SmsProviderAccount | None:
    """The account a send calls first (the primary, or the step's chosen provider), if usable."""
    account = pick_account(settings, provider_kind)
    if account is None or account.workspace_id != settings.workspace_id or _account_problem(account):
        return None
    return account


def rate_take_first(
    settings: SmsSettings, provider_kind: str | None, parts: list[int], *, senders: list[str | None] | None = None
) -> tuple[int, float]:
    """Take a batch's cost (one call, ``parts`` message parts per receptor, sent from the steps' ``senders``)
    from the first account's rate limit, shared by every worker: ``(granted, wait)`` — the first ``granted``
    receptors may go; with none, ``wait`` seconds until one may. No usable account: everything may go (the
    gateway answers for it)."""
    account = first_account(settings, provider_kind)
    if account is None:
        return len(parts), 0.0
    lines = [_line(account, sender) for sender in (senders if senders is not None else [None] * len(parts))]
    return rate_limits.take_batch_or_wait(account, parts, lines=lines)


def limited_result(settings: SmsSettings, provider_kind: str | None, wait: float) -> GatewayResult:
    account = first_account(settings, provider_kind)
    limited = SendResponse("limited", error_code=RATE_LIMITED, error_message=f"retry in {wait:.1f}s")
    return GatewayResult(
        limited, account.provider if account else "", account.default_sender if account else "", max(wait, 1.0)
    )


def status_account(settings: SmsSettings, provider_kind: str) -> SmsProviderAccount | None:
    """The workspace account to ask about a message sent through ``provider_kind``."""
    candidates = [settings.primary_account, settings.fallback_account if settings.fallback_account_id else None]
    account = next((a for a in candidates if a is not None and a.provider == provider_kind), None)
    return account or pick_account(settings, provider_kind)


def ask_status(
    account: SmsProviderAccount, *, local_ids: list[str] = (), message_ids: list[str] = ()
) -> dict[str, StatusAnswer] | None:
    """One status request (local ids or message ids, at most the provider's batch size) through the
    account's rate limit; None = limited, nothing asked. The one status-query path: settling unknown
    outcomes and polling delivery both come here."""
    provider = provider_for(account.provider)
    if provider is None:
        return {}
    if rate_limits.take(account, requests=1):
        return None
    return provider.query_status(account_credentials(account), local_ids=local_ids, message_ids=message_ids)


def query_sent(settings: SmsSettings, *, provider_kind: str, local_id: str) -> StatusAnswer | None:
    """Ask the provider an attempt went to whether local id ``local_id`` was sent; None = it cannot be asked."""
    provider = provider_for(provider_kind)
    if provider is None or not provider.has_status_query:
        return None
    account = status_account(settings, provider_kind)
    if account is None:
        return StatusAnswer("unknown", error_code="no_account")
    answers = ask_status(account, local_ids=[local_id])
    if answers is None:
        return StatusAnswer("unknown", error_code=RATE_LIMITED)
    return answers.get(local_id) or StatusAnswer("unknown", error_code="no_answer")


# --- blacklist -------------------------------------------------------------------------------------
def normalize_number(raw: str) -> str | None:
    try:
        return parse_phone(raw).e164
    except PhoneError:
        return None


def blacklisted_values(workspace_id: int) -> QuerySet:
    """The workspace's active SMS blacklist as a subquery (``mobile__in=…``: the check stays in the database)."""
    return BlacklistEntry.objects.filter(workspace_id=workspace_id, channel="sms", is_active=True).values("value")


def blacklisted_numbers(workspace_id: int, numbers: list[str]) -> set[str]:
    numbers = [n for n in numbers if n]
    if not numbers:
        return set()
    entries = BlacklistEntry.objects.filter(texts_match("value", numbers), workspace_id=workspace_id, channel="sms")
    return set(entries.filter(is_active=True).order_by().values_list("value", flat=True))


def is_blacklisted(workspace_id: int, number: str | None) -> bool:
    return bool(number) and bool(blacklisted_numbers(workspace_id, [number]))


def now() -> datetime:
    return timezone.now()
