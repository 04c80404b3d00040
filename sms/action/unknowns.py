"""After a crash or an unknown outcome: a never-called ``queued`` row is dropped, an ``unknown`` attempt is
settled by asking the provider about its local id, or left to the step's ``on_unknown_outcome``."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime, timedelta
from typing import NamedTuple

from django.conf import settings as django_settings
from django.db import transaction
from django.utils import timezone

from automation.choices import EventType
from automation.engine.outcome import RESEND_UNKNOWN
from automation.engine.registry import ActionResult, ResultStatus
from automation.engine.window import local_day
from campaigns.platform.bulk import ids_match
from sms import channel, rate_limits, webhook_events
from sms.action.attempts import CHANNEL, record_id
from sms.action.guards import cached_settings, primary_kind
from sms.choices import ACCEPTED, AttemptStatus
from sms.delivery import attempt_status_apply
from sms.models import SmsAttempt, SmsLogEvent
from sms.providers import StatusAnswer, provider_for


def settle_delay() -> timedelta:
    """How long after an unknown outcome the provider is asked (and between unanswered questions)."""
    return timedelta(seconds=django_settings.SMS_UNKNOWN_SETTLE_SECONDS)


def settle_tries() -> int:
    """Unanswered status questions before ``on_unknown_outcome`` decides."""
    return int(django_settings.SMS_UNKNOWN_SETTLE_TRIES)


class Earlier(NamedTuple):
    """An earlier attempt of the same step (execution + cycle + node)."""

    id: int
    status: str
    provider: str
    local_id: int | None
    request_at: datetime
    error_code: str


EARLIER_FIELDS = ("id", "status", "provider", "local_id", "request_at", "error_code")


def earlier_attempts(ctx, execution_id: int, cycle: int, node_id: int) -> list[Earlier]:
    """Earlier attempts of this step, oldest first; one query for a whole batch when the runner batches."""
    batch_ids = ctx.cache.get("batch_execution_ids")
    if not batch_ids or execution_id not in batch_ids:
        qs = SmsAttempt.objects.filter(execution_id=execution_id, cycle=cycle, node_id=node_id).order_by("id")
        return [Earlier(*row) for row in qs.values_list(*EARLIER_FIELDS)]
    key = ("sms_earlier", node_id)  # one query per step node of the batch (usually one)
    if key not in ctx.cache:
        found: dict = {}
        for row in (
            SmsAttempt.objects.filter(ids_match("execution_id", batch_ids), node_id=node_id)
            .order_by("id")
            .values_list("execution_id", "cycle", *EARLIER_FIELDS)
        ):
            found.setdefault(row[:2], []).append(Earlier(*row[2:]))
        ctx.cache[key] = found
    return ctx.cache[key].get((execution_id, cycle), [])


def budget_of(ctx, request_at: datetime):
    """The budget a unit was reserved from: the workspace calendar day of its request."""
    return replace(ctx.budget(CHANNEL), day=local_day(request_at, ctx.tz))


NOT_SENT = "not_sent"  # error code of an attempt the provider had no message for: it keeps its unit
UNIT_GIVEN_BACK = "unit_given_back"  # its log event once the slot's message is at the provider


def release_kept_units(slots: dict[tuple[int, int, int], object]) -> None:
    """Steps whose message the provider now holds, ``(execution, cycle, node) → ctx``: a request of one of
    their attempts settled "not sent" that lands late would be the same message (one per local id), so the
    unit each of those attempts kept is given back, once (its log event is the guard). One query for a batch."""
    if not slots:
        return
    kept = SmsAttempt.objects.filter(
        ids_match("execution_id", sorted({execution for execution, _, _ in slots})),
        status=AttemptStatus.FAILED,
        error_code=NOT_SENT,
    ).values_list("id", "execution_id", "cycle", "node_id", "request_at")
    for attempt_id, execution_id, cycle, node_id, request_at in kept:
        ctx = slots.get((execution_id, cycle, node_id))
        if ctx is None:
            continue
        _, created = SmsLogEvent.objects.get_or_create(
            attempt_id=attempt_id,
            dedupe_key=UNIT_GIVEN_BACK,
            defaults={"workspace_id": ctx.workspace.id, "event": UNIT_GIVEN_BACK, "occurred_at": timezone.now()},
        )
        if created:
            budget_of(ctx, request_at).release()


def drop_queued(ctx, rows: list[Earlier]) -> None:
    for e in rows:
        deleted, _ = SmsAttempt.objects.filter(pk=e.id, status=AttemptStatus.QUEUED).delete()
        if deleted:
            budget_of(ctx, e.request_at).release()


ASKED = "sms_asked"  # job cache: (ASKED, provider kind, local id) → the batch's answer about that local id


def ask_batch(ctxs: list) -> None:
    """Ask the provider about the undecided attempts of a whole batch at once — each step's latest
    ``unknown`` (or interrupted ``sending``) attempt, by local id, one status request per provider batch
    (Kavenegar: 200 ids) — instead of one request per step; ``settle_unknown`` reads the answers from the
    job's cache. A step a person chose to resend, or already accepted, is not asked about."""
    wanted: dict[tuple[int, str], dict[str, object]] = {}
    for ctx in ctxs:
        ex = ctx.execution
        if (ex.metadata or {}).get(RESEND_UNKNOWN) == ctx.node.id:
            continue
        earlier = earlier_attempts(ctx, ex.id, ex.cycle, ctx.node.id)
        if any(e.status in ACCEPTED for e in earlier):
            continue
        undecided = [e for e in earlier if e.status in (AttemptStatus.UNKNOWN, AttemptStatus.SENDING)]
        if not undecided or not undecided[-1].local_id:
            continue
        latest = undecided[-1]
        kind = latest.provider or ctx.node.config.get("provider") or primary_kind(ctx)
        provider = provider_for(kind or "")
        if provider is None or not provider.has_status_query:
            continue
        wanted.setdefault((ctx.workspace.id, kind), {})[str(latest.local_id)] = ctx
    for (_, kind), by_id in wanted.items():
        if len(by_id) < 2:
            continue  # one step: asked as before, in its own settling
        first = next(iter(by_id.values()))
        account = channel.status_account(cached_settings(first), kind)
        if account is None:
            continue
        ids, size = list(by_id), max(1, provider_for(kind).status_batch_size)
        for chunk in (ids[i : i + size] for i in range(0, len(ids), size)):
            first.heartbeat()
            answers = channel.ask_status(account, local_ids=chunk)
            for local_id in chunk:
                if answers is None:
                    answer = StatusAnswer("unknown", error_code=channel.RATE_LIMITED)
                else:
                    answer = answers.get(local_id) or StatusAnswer("unknown", error_code="no_answer")
                first.cache[(ASKED, kind, local_id)] = answer


def settle_unknown(ctx, unknown: list[Earlier]) -> ActionResult | None:
    """Decide an unknown attempt of this step; None means "surely not sent: send again (same local id)"."""
    latest = unknown[-1]
    data = {"attempt_id": latest.id, "event": EventType.ACTION_ATTEMPT}
    if (ctx.execution.metadata or {}).get(RESEND_UNKNOWN) == ctx.node.id:  # a person chose "resend"
        for e in unknown:
            if record_id(e.id, AttemptStatus.FAILED, error_code="resend_chosen", from_status="unknown"):
                budget_of(ctx, e.request_at).release()
        return None
    answer = None
    provider_kind = latest.provider or ctx.node.config.get("provider") or primary_kind(ctx)
    if latest.local_id and provider_kind:
        answer = ctx.cache.pop((ASKED, provider_kind, str(latest.local_id)), None)  # asked with its batch
        if answer is None:
            ctx.heartbeat()
            answer = channel.query_sent(
                cached_settings(ctx), provider_kind=provider_kind, local_id=str(latest.local_id)
            )
    if answer is None:  # this provider cannot be asked: the step's on_unknown_outcome decides
        reason = latest.error_code or "no_status_query"
        return ActionResult(ResultStatus.UNKNOWN, message=reason, data={**data, "reason": reason})
    if answer.error_code == channel.RATE_LIMITED:  # not asked: shortly again, not counted as a question
        return ActionResult(
            ResultStatus.DEFERRED,
            until=ctx.now + timedelta(seconds=rate_limits.defer_seconds(1)),
            message="settling: rate limited",
            data={**data, "event": EventType.DEFERRED_CHANNEL, "reason": "rate_limited"},
            settling=True,
        )
    asked = SmsLogEvent.objects.filter(attempt_id=latest.id, event="status_query").count() + 1
    SmsLogEvent.objects.create(
        workspace_id=ctx.workspace.id,
        attempt_id=latest.id,
        event="status_query",
        provider_status=answer.state,
        payload=answer.raw or {"error": answer.error_code},
        dedupe_key=f"status_query:{asked}",
        occurred_at=timezone.now(),
    )
    if answer.state == "sent":
        with transaction.atomic():  # settled as accepted: ``sms.sent`` with it
            if SmsAttempt.objects.filter(pk=latest.id, status=AttemptStatus.UNKNOWN).update(
                status=AttemptStatus.SUBMITTED, provider_message_id=answer.message_id[:64]
            ):
                webhook_events.attempts_moved(attempt_ids=[latest.id], workspace_ids=[ctx.workspace.id])
        if answer.status and answer.status != AttemptStatus.SUBMITTED:  # already further: sent, delivered, …
            attempt_status_apply(
                attempt_id=latest.id,
                workspace_id=ctx.workspace.id,
                status=answer.status,
                event="delivery_status",
                provider_status=answer.provider_status,
                dedupe_key=f"poll:{answer.provider_status}",
                payload=answer.raw,
            )
        for e in unknown[:-1]:  # the provider holds one message per local id
            if record_id(e.id, AttemptStatus.FAILED, error_code="same_local_id", from_status="unknown"):
                budget_of(ctx, e.request_at).release()
        release_kept_units({(ctx.execution.id, ctx.execution.cycle, ctx.node.id): ctx})
        return ActionResult(ResultStatus.SUCCESS, message="settled: sent", data={**data, "settled": "sent"})
    if answer.state in ("not_sent", "rejected"):
        status = AttemptStatus.FAILED if answer.state == "not_sent" else AttemptStatus.REJECTED
        with transaction.atomic():  # the attempts closed and their ``sms.failed`` together
            closed_ids = []
            for e in unknown:
                code = NOT_SENT if answer.state == "not_sent" else answer.error_code or answer.state
                closed = record_id(e.id, status, error_code=code, from_status="unknown")
                closed_ids += [e.id] if closed else []
                # "No such message" does not prove the request will never land — a process paused while writing
                # it still holds it — so that attempt keeps its unit on its request day until the step's message
                # is at the provider (``release_kept_units``): never a message beyond the limit, the resend takes
                # a unit of its own meanwhile. A rejection was decided: its unit goes back now.
                if closed and answer.state == "rejected":
                    budget_of(ctx, e.request_at).release()
            webhook_events.attempts_moved(attempt_ids=closed_ids, workspace_ids=[ctx.workspace.id])
        if answer.state == "rejected":
            return ActionResult(ResultStatus.REJECTED, message="settled: rejected", data=data)
        return None
    if asked < settle_tries():
        return ActionResult(
            ResultStatus.DEFERRED,
            until=ctx.now + settle_delay(),
            message="settling: no answer",
            data={**data, "event": EventType.UNKNOWN_OUTCOME, "reason": answer.error_code or "no_answer"},
            settling=True,
        )
    reason = f"unsettled after {asked} status queries"
    return ActionResult(ResultStatus.UNKNOWN, message=reason, data={**data, "reason": reason})


def unknown_result(ctx, provider_kind: str, reason: str, data: dict) -> ActionResult:
    """Right after an unknown outcome: ask the provider later (if it can be asked), else on_unknown_outcome."""
    provider = provider_for(provider_kind or "")
    if provider is not None and provider.has_status_query:
        return ActionResult(
            ResultStatus.DEFERRED,
            until=ctx.now + settle_delay(),
            message=f"settling: {reason}",
            data={**data, "event": EventType.UNKNOWN_OUTCOME, "reason": reason},
            settling=True,
        )
    return ActionResult(ResultStatus.UNKNOWN, message=reason or "unknown", data={**data, "reason": reason})
