"""Unknown send outcomes that outlive the engine's own settling (services; the beat job ``sms.unknown_watch``).

The engine asks about an unknown attempt by local id a few minutes after it (``SMS_UNKNOWN_SETTLE_SECONDS``),
far inside Kavenegar's ~12-hour ``sms/statuslocalmessageid`` window. What is still ``unknown`` after that (the
provider did not answer, the step followed ``on_unknown_outcome``) is watched here:

- asked again by local id, in the provider's batches (≤ 200 ids a request), while the window is open
  (``SMS_UNKNOWN_LOCAL_ID_WINDOW_HOURS``, 11): "sent" → ``submitted``, "rejected" → ``rejected``, "no such
  message" → ``failed`` (``not_sent``: its unit stays reserved, a late-landing request cannot exceed the limit);
- past ``SMS_UNKNOWN_ALARM_HOURS`` (6) each workspace's owners get one notification per day and the
  ``sms_unknown_aged_total`` metric counts the attempts;
- after the window, looked up by receptor over one-day ranges (Kavenegar ``sms/statusbyreceptor``): a message to
  that number with the same text from the attempt's request day on → ``submitted``.

Silence never resends: an attempt nobody can vouch for stays ``unknown``.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from django.conf import settings as django_settings
from django.db import transaction
from django.dispatch import Signal
from django.utils import timezone

from campaigns.platform.metrics import count_unknown_aged
from sms import channel, webhook_events
from sms.action.unknowns import NOT_SENT
from sms.choices import AttemptStatus
from sms.delivery import attempt_status_apply
from sms.models import SmsAttempt, SmsLogEvent
from sms.providers import PROVIDERS, provider_for

# Sent once per workspace and day with kwargs workspace_id, count (owner notifications: sms.receivers).
unknowns_aged = Signal()

AGED = "unknown_aged"  # an attempt's log event once it was counted past the alarm age
WATCH_MIN_AGE = timedelta(minutes=30)  # the engine's own settling goes first
ASK_EVERY = timedelta(minutes=30)


def local_id_window() -> timedelta:
    return timedelta(hours=float(django_settings.SMS_UNKNOWN_LOCAL_ID_WINDOW_HOURS))


def alarm_age() -> timedelta:
    return timedelta(hours=float(django_settings.SMS_UNKNOWN_ALARM_HOURS))


def unknown_watch(*, now: datetime | None = None, batch: int = 2000) -> dict[str, int]:
    """One pass: settle what the providers can vouch for, then alarm about what stays unknown too long."""
    now = now or timezone.now()
    report = {"asked": 0, "settled": 0, "alarmed": 0}
    kinds = [p.kind for p in PROVIDERS.values() if p.status_by_local_id or p.status_by_receptor]
    due = (
        SmsAttempt.objects.filter(status=AttemptStatus.UNKNOWN, provider__in=kinds)
        .filter(request_at__lte=now - WATCH_MIN_AGE, request_at__gte=now - timedelta(days=3))
        .exclude(status_checked_at__gt=now - ASK_EVERY)
        .order_by("request_at")
        .values("id", "workspace_id", "provider", "local_id", "phone", "message", "request_at")[:batch]
    )
    rows = list(due)
    SmsAttempt.objects.filter(id__in=[r["id"] for r in rows]).update(status_checked_at=now)
    groups: dict[tuple[int, str], list[dict]] = {}
    for row in rows:
        groups.setdefault((row["workspace_id"], row["provider"]), []).append(row)
    for (workspace_id, kind), members in groups.items():
        account = channel.status_account(channel.sms_settings(workspace_id), kind)
        if account is None or account.workspace_id != workspace_id:
            continue
        recent = [m for m in members if m["local_id"] and m["request_at"] > now - local_id_window()]
        _by_local_id(account, kind, recent, report)
        _by_receptor(account, kind, [m for m in members if m not in recent], report)
    _alarm(now, report)
    return report


def _by_local_id(account, kind: str, members: list[dict], report: dict) -> None:
    provider = provider_for(kind)
    if not provider.status_by_local_id:
        return
    size = max(1, provider.status_batch_size)
    for chunk in (members[i : i + size] for i in range(0, len(members), size)):
        asked = {str(m["local_id"]): m for m in chunk}
        answers = channel.ask_status(account, local_ids=list(asked))
        if answers is None:
            return  # the account's rate limit: asked at a later pass
        report["asked"] += len(chunk)
        for local_id, answer in answers.items():
            member = asked.get(local_id)
            if member is not None:
                report["settled"] += _apply(member, answer.state, answer.message_id, answer)


def _by_receptor(account, kind: str, members: list[dict], report: dict) -> None:
    provider = provider_for(kind)
    if not provider.status_by_receptor:
        return
    for member in members:
        start = member["request_at"] - timedelta(minutes=1)
        entries = provider.query_by_receptor(
            channel.account_credentials(account), phone=member["phone"], start=start, end=start + timedelta(days=1)
        )
        if entries is None:
            continue  # no usable answer: asked at a later pass
        report["asked"] += 1
        found = next((e for e in entries if e.get("message") == member["message"]), None)
        if found is not None:
            answer = provider.answer_for(found.get("status"), message_id=str(found.get("messageid", "")), raw=found)
            state = "sent" if answer.state in ("sent", "unknown") else answer.state
            report["settled"] += _apply(member, state, answer.message_id, answer)


def _apply(member: dict, state: str, message_id: str, answer) -> int:
    """Settle one unknown attempt from a provider's word (only while it is still ``unknown``); the settled
    status's webhook event (``sms.sent`` / ``sms.failed``) commits with it."""
    unknown = SmsAttempt.objects.filter(pk=member["id"], status=AttemptStatus.UNKNOWN)
    if state == "sent":
        values = {"status": AttemptStatus.SUBMITTED, "provider_message_id": (message_id or "")[:64]}
    elif state == "rejected":
        values = {"status": AttemptStatus.REJECTED, "error_code": (answer.error_code or "rejected")[:40]}
    elif state == "not_sent":
        values = {"status": AttemptStatus.FAILED, "error_code": NOT_SENT}
    else:
        return 0
    with transaction.atomic():
        moved = unknown.update(**values)
        if moved:
            webhook_events.attempts_moved(attempt_ids=[member["id"]], workspace_ids=[member["workspace_id"]])
    if moved and state == "sent" and answer.status and answer.status != AttemptStatus.SUBMITTED:
        attempt_status_apply(  # already further (sent, delivered, …): its own report and event
            attempt_id=member["id"],
            workspace_id=member["workspace_id"],
            status=answer.status,
            event="delivery_status",
            provider_status=answer.provider_status,
            dedupe_key=f"poll:{answer.provider_status}",
            payload=answer.raw,
        )
    return moved


def _alarm(now: datetime, report: dict) -> None:
    aged = SmsAttempt.objects.filter(
        status=AttemptStatus.UNKNOWN, request_at__lte=now - alarm_age(), request_at__gte=now - timedelta(days=3)
    ).exclude(events__dedupe_key=AGED)
    rows = list(aged.values_list("id", "workspace_id", "provider")[:5000])
    if not rows:
        return
    SmsLogEvent.objects.bulk_create(
        [SmsLogEvent(workspace_id=w, attempt_id=pk, event=AGED, dedupe_key=AGED, occurred_at=now) for pk, w, _ in rows],
        ignore_conflicts=True,
    )
    per_workspace: dict[int, int] = {}
    for _, workspace_id, provider in rows:
        per_workspace[workspace_id] = per_workspace.get(workspace_id, 0) + 1
        count_unknown_aged(provider=provider)
    for workspace_id, count in per_workspace.items():
        unknowns_aged.send(sender=SmsAttempt, workspace_id=workspace_id, count=count, day=now.date())
    report["alarmed"] += len(rows)
