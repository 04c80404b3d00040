"""Delivery status (services): one forward-only apply for every source — the webhook, the delivery poll
and the unknown-outcome settling — and the poll itself.

Every report is an ``SmsLogEvent`` stored once (unique per attempt + dedupe key: a repeated answer is
recorded once); the attempt's status only moves forward (submitted → sent → delivered | failed |
rejected); a report for an attempt already final adds history only. Nothing here changes a journey's path.
"""

from __future__ import annotations

import logging
from contextlib import nullcontext
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings as django_settings
from django.db import IntegrityError, transaction
from django.db.models import F, Q
from django.utils import timezone

from campaigns.platform.fairness import claim_fairly
from campaigns.platform.webhooks import webhook_wanted
from sms import channel, telecom_blocks, webhook_events
from sms.choices import AWAITING_DELIVERY, STATUS_RANK, AttemptStatus
from sms.models import SmsAttempt, SmsLogEvent
from sms.providers import PROVIDERS, provider_for

logger = logging.getLogger(__name__)

# A report may move an attempt that is accepted or whose outcome is still unknown — never one in flight.
_MOVABLE = (AttemptStatus.UNKNOWN, AttemptStatus.SUBMITTED, AttemptStatus.SENT)
# A report of these on an attempt whose outcome is unknown settles it as accepted: ``sms.sent`` with the move.
_SETTLED_AS_SENT = (AttemptStatus.SENT, AttemptStatus.DELIVERED)


def attempt_status_apply(
    *,
    attempt_id: int,
    workspace_id: int,
    status: str,
    event: str,
    provider_status: str,
    dedupe_key: str,
    payload: dict[str, Any] | None = None,
    occurred_at: datetime | None = None,
    emit: bool = True,
) -> bool:
    """Record one report of an attempt (once per dedupe key) and move its status forward; True if it moved.
    A move to ``delivered`` / ``failed`` / ``rejected`` writes its webhook event in the same transaction, unless
    ``emit`` is False (the caller writes the events of a batch at once: ``delivery_poll``). A move of an attempt
    whose outcome was ``unknown`` to ``sent`` / ``delivered`` settles it as accepted and writes its ``sms.sent``
    here, ``emit`` or not (the caller's batch writes status events only)."""
    try:
        with transaction.atomic():
            SmsLogEvent.objects.create(
                workspace_id=workspace_id,
                attempt_id=attempt_id,
                event=event,
                provider_status=str(provider_status)[:40],
                payload=payload or {},
                dedupe_key=dedupe_key[:120],
                occurred_at=occurred_at or timezone.now(),
            )
    except IntegrityError:
        return False  # the same report again: recorded once
    if str(provider_status) in _ad_blocked_codes():
        attempt = (
            SmsAttempt.objects.filter(pk=attempt_id, workspace_id=workspace_id).values("phone", "provider").first()
        )
        if attempt is not None:
            telecom_blocks.remember_if_blocked(
                workspace_id=workspace_id, phone=attempt["phone"], provider=attempt["provider"], code=provider_status
            )
    if status not in STATUS_RANK:
        return False
    lower = [s for s in _MOVABLE if STATUS_RANK[s] < STATUS_RANK[status]]
    rows = SmsAttempt.objects.filter(pk=attempt_id, workspace_id=workspace_id)
    # An unknown outcome the report shows accepted is settled as sent: moved on its own, so that only that move
    # writes its ``sms.sent`` (once: the status moves forward once); an accepted attempt moves first, as ever.
    settles = status in _SETTLED_AS_SENT
    moving = [s for s in lower if s != AttemptStatus.UNKNOWN] if settles else lower
    event = webhook_events.STATUS_EVENTS.get(status) if emit else None
    status_event = event is not None and webhook_wanted(workspace_id, event)
    sent_event = settles and webhook_wanted(workspace_id, webhook_events.SENT)
    with transaction.atomic() if status_event else nullcontext():  # the move and its event commit together
        moved = rows.filter(status__in=moving).update(status=status) == 1
        if moved and status_event:
            webhook_events.attempts_moved(attempt_ids=[attempt_id])
    if moved or not settles:
        return moved
    with transaction.atomic() if status_event or sent_event else nullcontext():  # settled, sms.sent with it
        settled = rows.filter(status=AttemptStatus.UNKNOWN).update(status=status) == 1
        if settled and sent_event:
            webhook_events.attempts_moved(attempt_ids=[attempt_id], as_event=webhook_events.SENT)
        if settled and status_event:
            webhook_events.attempts_moved(attempt_ids=[attempt_id])
    return settled


def _ad_blocked_codes() -> set[str]:
    """Every provider's "blocked for advertising" codes (a report carrying one is looked at more closely)."""
    return {code for provider in PROVIDERS.values() for code in provider.ad_blocked_codes}


def poll_interval() -> timedelta:
    return timedelta(seconds=int(django_settings.SMS_DELIVERY_POLL_INTERVAL_SECONDS))


def poll_max_age(kind: str | None = None) -> timedelta:
    """How long after its send an attempt of provider ``kind`` is polled: the provider's own status window
    (``Provider.delivery_status_hours``, Kavenegar 48 h), else ``SMS_DELIVERY_POLL_MAX_AGE_HOURS``."""
    provider = PROVIDERS.get(kind) if kind else None
    hours = provider.delivery_status_hours if provider is not None else None
    return timedelta(hours=int(hours if hours is not None else django_settings.SMS_DELIVERY_POLL_MAX_AGE_HOURS))


def poll_batch() -> int:
    return int(django_settings.SMS_DELIVERY_POLL_BATCH)


def _claim(now: datetime, kinds: list[str], batch: int) -> list[int]:
    """Attempts still without a final status, not asked about for an interval: stamped now (rows another
    poll holds are skipped), so two polls never ask about the same attempt. The batch is shared fairly
    between workspaces (``fair_rounds``): one workspace's flood of sends never delays another's reports;
    the longest-unasked come first within a workspace."""
    young = Q()
    for kind in kinds:  # each provider's own window: past it the provider no longer answers
        young |= Q(provider=kind, request_at__gte=now - poll_max_age(kind))
    due = (
        SmsAttempt.objects.filter(young, status__in=AWAITING_DELIVERY)
        .filter(Q(status_checked_at__isnull=True) | Q(status_checked_at__lte=now - poll_interval()))
        .order_by(F("status_checked_at").asc(nulls_first=True), "id")
    )
    return claim_fairly(due, batch, status_checked_at=now)


def reports_close(*, now: datetime, kinds: list[str], batch: int) -> int:
    """Attempts still ``submitted`` past their provider's status window (``poll_max_age``) end ``sent``: the
    provider accepted them and will answer no more, so — as a FAILED_DELIVERY follow-up counts a send still
    unreported (docs/chains.md "Delivery data pending") — they count as sent, never guessed failed, and no longer
    look in progress. Each keeps a ``report_window_closed`` log event; a later pushed report still moves it
    forward (delivered / failed). An attempt already ``sent`` stays as it is. No webhook event: ``sms.sent`` was
    written when the provider accepted it."""
    closed = 0
    for kind in kinds:
        # no order: any of them will do, and an ORDER BY id LIMIT would tempt the planner to walk the whole
        # table by id when none is due; unordered, the submitted rows are read through the poll's status index
        due = SmsAttempt.objects.filter(
            status=AttemptStatus.SUBMITTED, provider=kind, request_at__lt=now - poll_max_age(kind)
        ).order_by()
        rows = list(due.values_list("id", "workspace_id")[:batch])
        if not rows:
            continue
        with transaction.atomic():
            SmsLogEvent.objects.bulk_create(
                [
                    SmsLogEvent(
                        workspace_id=workspace_id,
                        attempt_id=attempt_id,
                        event="report_window_closed",
                        provider_status="",
                        payload={"hours": int(poll_max_age(kind).total_seconds() // 3600)},
                        dedupe_key="report_window_closed",
                        occurred_at=now,
                    )
                    for attempt_id, workspace_id in rows
                ],
                ignore_conflicts=True,
            )
            closed += SmsAttempt.objects.filter(
                id__in=[attempt_id for attempt_id, _ in rows], status=AttemptStatus.SUBMITTED
            ).update(status=AttemptStatus.SENT)
    return closed


def delivery_poll(*, now: datetime | None = None, batch: int | None = None) -> dict[str, int]:
    """Beat: close the attempts past their provider's status window (``reports_close``), then ask the providers
    that can answer (by message id, else by local id) what became of accepted attempts, in the providers'
    batches (Kavenegar ``sms/status``: 500 message ids, by local id 200) through each account's rate limit, and
    apply the answers."""
    now = now or timezone.now()
    kinds = [p.kind for p in PROVIDERS.values() if p.polls_delivery]
    report = {"asked": 0, "moved": 0, "limited": 0, "closed": 0}
    if not kinds:
        return report
    report["closed"] = reports_close(now=now, kinds=kinds, batch=batch or poll_batch())
    ids = _claim(now, kinds, batch or poll_batch())
    rows = SmsAttempt.objects.filter(id__in=ids).values(
        "id", "workspace_id", "provider", "provider_message_id", "local_id"
    )
    groups: dict[tuple[int, str], list[dict]] = {}
    for row in rows.order_by("id"):
        groups.setdefault((row["workspace_id"], row["provider"]), []).append(row)
    for (workspace_id, kind), members in groups.items():
        provider = provider_for(kind)
        account = channel.status_account(channel.sms_settings(workspace_id), kind)
        if account is None or account.workspace_id != workspace_id:
            continue
        by_message = [m for m in members if provider.status_by_message_id and m["provider_message_id"]]
        by_local = [
            m for m in members if m not in by_message and provider.status_by_local_id and m["local_id"] is not None
        ]
        size = provider.message_batch_size
        chunks = [
            ("message_ids", "provider_message_id", by_message[i : i + size]) for i in range(0, len(by_message), size)
        ] + [
            ("local_ids", "local_id", by_local[i : i + provider.status_batch_size])
            for i in range(0, len(by_local), provider.status_batch_size)
        ]
        for position, (argument, field, chunk) in enumerate(chunks):
            asked = {str(m[field]): m for m in chunk}
            answers = channel.ask_status(account, **{argument: list(asked)})
            if answers is None:  # the account's rate limit: these (and the rest) are asked at the next run
                rest = [m["id"] for _, _, later in chunks[position:] for m in later]
                SmsAttempt.objects.filter(id__in=rest, status_checked_at=now).update(status_checked_at=None)
                report["limited"] += len(rest)
                break
            report["asked"] += len(chunk)
            report["moved"] += _answers_apply(workspace_id, asked, answers, now)
    return report


def _answers_apply(workspace_id: int, asked: dict[str, dict], answers: dict, now: datetime) -> int:
    """One status call's answers; when the workspace subscribes to an attempt webhook, the moves and their
    events (one INSERT per event type) commit together."""
    wanted = webhook_events.attempts_wanted([workspace_id])
    moved: list[int] = []
    with transaction.atomic() if wanted else nullcontext():
        for key, answer in answers.items():
            member = asked.get(key)
            if member is None or not answer.status:
                continue  # an answer that says nothing new (queued, unknown code, no such message)
            if attempt_status_apply(
                attempt_id=member["id"],
                workspace_id=workspace_id,
                status=answer.status,
                event="delivery_status",
                provider_status=answer.provider_status,
                dedupe_key=f"poll:{answer.provider_status}",
                payload=answer.raw,
                occurred_at=now,
                emit=False,
            ):
                moved.append(member["id"])
        if wanted:
            webhook_events.attempts_moved(attempt_ids=moved)
    return len(moved)
