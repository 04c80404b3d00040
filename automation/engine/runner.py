"""ProcessExecution job: the worker side of the engine (journeys.md "Job").

Tx1 locks the execution and moves it queued → processing only if the lock
token still matches (a duplicate or stale job does nothing). The step loop
runs at most ``STEP_BUDGET`` nodes in memory; actions do their own short
transactions and never hold one during network calls. One final conditional
UPDATE writes the outcome with its events. A budget-consuming step reached
inside the loop goes back to the scheduler (status active) so the scheduler
stays the one place that budgets and orders sends.
"""

from __future__ import annotations

import inspect
import logging
import uuid
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db import transaction
from django.utils import timezone

from automation.choices import EndReason, EventType, ExecutionStatus, Port
from automation.engine.context import RunContext
from automation.engine.lease import STOP_EXCEPTIONS, Lease
from automation.engine.nodes import NODE_TYPES
from automation.engine.outcome import ERROR_BACKOFF, Outcome
from automation.engine.registry import ACTIONS, FACTS
from automation.engine.transitions import ExecutionRow, apply_transition
from automation.events import PendingEvent
from automation.models import Execution
from campaigns.models import Campaign

logger = logging.getLogger(__name__)
STEP_BUDGET = 50
MAX_JOB_ERRORS = 3


class _Run(RunContext):
    """One job's pass over one execution: the run context and its step loop."""

    # --- step loop -------------------------------------------------------------------------------
    def run(self) -> Outcome:
        """Drive ``steps`` alone: each action request is executed at once (the per-row path)."""
        gen = self.steps()
        try:
            ctx = next(gen)
            while True:
                ctx = gen.send(ACTIONS.get(ctx.node.subtype).execute(ctx))
        except StopIteration as stop:
            return stop.value

    def steps(self):
        """The step loop as a generator: it yields a StepContext whenever an action must execute and
        receives its ActionResult, so a batch driver can execute many executions' actions together.

        Each node type's handler (``automation.engine.nodes``) runs its step; an Outcome ends the pass."""
        journey_settings = self.campaign.journey_settings or {}
        stop_statuses = journey_settings.get("stop_when_target_status_in") or []
        stop_facts = [FACTS.get(key) for key in journey_settings.get("stop_when_facts") or [] if key in FACTS]
        if self.subject is not None and any(fact.resolve(self) is True for fact in stop_facts):
            return self.finish("cancel", EndReason.TARGET_RESPONDED, EventType.CANCELLED)
        for step in range(STEP_BUDGET):
            if self.subject is None or getattr(self.subject, "deleted_at", None) is not None:
                return self.finish("cancel", EndReason.TARGET_REMOVED, EventType.CANCELLED)
            if stop_statuses and getattr(self.subject, "status", None) in stop_statuses:
                return self.finish("cancel", EndReason.TARGET_STATUS_CHANGED, EventType.CANCELLED)
            node = self.node()
            if not node.is_enabled:
                self.event(EventType.SKIPPED, node, "گام غیرفعال رد شد.")
                nxt = self.move(node, Port.DEFAULT, Port.SUCCESS, Port.YES)
                outcome = self.after_move(nxt, step)
            else:
                handler = NODE_TYPES.get(node.type)
                if handler is None:  # pragma: no cover - the validator refuses unknown types
                    raise ValueError(f"unknown node type {node.type}")
                result = handler.run(self, node, step)
                outcome = (yield from result) if inspect.isgenerator(result) else result
            if outcome is not None:
                return outcome
        return Outcome("ready", {"next_run_at": self.now})


def _claim_one(execution_id: int, lock_token, now: datetime) -> tuple[Execution, datetime | None] | None:
    """Tx1 for one execution: queued → processing only if the lock token still matches.

    Returns the execution and the moment the scheduler claimed it; both transitions are recorded on the
    job's outcome row (``claimed_at`` in its data, from_status processing), not by rows of their own."""
    with transaction.atomic():
        ex = Execution.objects.select_for_update().filter(pk=execution_id).first()
        if ex is None or ex.status != ExecutionStatus.QUEUED or str(ex.lock_token) != str(lock_token):
            return None
        claimed_at = ex.locked_at
        # The lease starts now, when processing starts (not at the scheduler's claim).
        ok = apply_transition(ex, "start_processing", event=None, extra={"last_run_at": now, "locked_at": now}, now=now)
    return (ex, claimed_at) if ok else None


@dataclass
class Finished:
    """What one job decided for one execution (written by ``_write_one`` or ``_write_many``)."""

    ex: Execution | ExecutionRow
    transition: str
    extra: dict[str, Any]
    event: PendingEvent
    events: list[PendingEvent]


def start_run(
    ex: Execution | ExecutionRow, lock_token, now: datetime, cache: dict, claimed_at: datetime | None = None
) -> _Run:
    ckey = ("campaign", ex.campaign_id)
    if ckey not in cache:
        cache[ckey] = Campaign.objects.select_related("workspace", "journey__workflow_version").get(pk=ex.campaign_id)
    tkey = ("job_token", str(lock_token))  # a batch shares a few tokens: parse each once
    if tkey not in cache:
        cache[tkey] = uuid.UUID(tkey[1])
    run = _Run(ex, cache[ckey], now, cache[tkey], cache)
    run.claimed_at = claimed_at
    return run


def failed_outcome(run: _Run, exc: Exception) -> Outcome:
    """A bug or an outage inside a step: release the lease, retry later, never loop forever."""
    logger.error("execution %s step failed: %s", run.ex.pk, type(exc).__name__, exc_info=exc)
    errors = int(run.metadata.get("_job_errors", 0)) + 1
    metadata = {**run.metadata, "_job_errors": errors}
    if errors >= MAX_JOB_ERRORS:
        outcome = Outcome("fail", {"end_reason": EndReason.STEP_ERROR, "completed_at": run.now})
    else:
        outcome = Outcome("wait", {"next_run_at": run.now + ERROR_BACKOFF})
    outcome.extra.update(last_error=f"{type(exc).__name__}: {exc}"[:1000], metadata=metadata)
    outcome.event = PendingEvent(
        EventType.FAILED if errors >= MAX_JOB_ERRORS else EventType.RETRY_SCHEDULED, None, "step error"
    )
    run.events = []
    run.fields = {}
    return outcome


_DEFAULT_EVENT = {"wait": EventType.WAIT_STARTED, "ready": EventType.ACTIVATED, "hold": EventType.HELD}


def finish_run(run: _Run, outcome: Outcome) -> Finished:
    """The job's outcome: the transition, its fields and its events — one row per step outcome.

    The transition's row (from_status processing → the new status) is the outcome's own event; for a plain
    wait or "ready" with none, the step's last event on the node the execution now stands at (wait started,
    deferred, retry scheduled, node entered) becomes that row instead of a second one saying the same; a
    completion at the end step just entered writes no entry row before its own. The scheduler's claim and the
    move to processing are recorded on it: ``claimed_at`` in its data, its ``occurred_at`` is the moment
    processing started."""
    ex, now = run.ex, run.now
    extra = {**run.fields, "metadata": run.metadata, **outcome.extra, "lock_token": None, "locked_at": None}
    node_id = extra.get("current_node_id", ex.current_node_id)
    events = run.events
    event = outcome.event
    if event is None:
        last = events[-1] if events else None
        if outcome.transition in ("wait", "ready") and last is not None and last.node_id == node_id:
            event, events = last, events[:-1]
        else:
            event = PendingEvent(_DEFAULT_EVENT.get(outcome.transition, outcome.transition), node_id)
    elif _entered_end(outcome, event, events):
        events = events[:-1]  # the completion row stands at the end step it just entered: it says both
    if run.claimed_at is not None:
        event.data = {**event.data, "claimed_at": run.claimed_at.isoformat()}
    if outcome.transition in ("wait", "ready") and extra.get("next_run_at") is None:
        extra["next_run_at"] = now
    extra["deferred_by_limit"] = outcome.transition == "wait" and event.type == EventType.DEFERRED_LIMIT
    return Finished(ex, outcome.transition, extra, event, events)


def _entered_end(outcome: Outcome, event: PendingEvent, events: list[PendingEvent]) -> bool:
    """A completion at the end step this pass just entered: the entry row says nothing the completion row does not."""
    last = events[-1] if events else None
    return (
        outcome.transition == "complete"
        and last is not None
        and last.type == EventType.NODE_ENTERED
        and last.node_id == event.node_id
        and not last.message
        and not last.data
    )


def _run_one(ex: Execution, claimed_at: datetime | None, lock_token, now: datetime, cache: dict) -> Finished:
    run = start_run(ex, lock_token, now, cache, claimed_at)
    try:
        outcome = run.run()
    except STOP_EXCEPTIONS:
        raise  # the task's time is up: stop; the lease brings the row back after the job is gone
    except Exception as exc:
        outcome = failed_outcome(run, exc)
    return finish_run(run, outcome)


def _write_one(done: Finished, now: datetime) -> str:
    ok = apply_transition(
        done.ex, done.transition, event=done.event, extra=done.extra, more_events=done.events, now=now
    )
    return done.transition if ok else "lost_race"


def process_execution(
    execution_id: int, lock_token: str | uuid.UUID, *, now: datetime | None = None, cache=None
) -> str:
    """Run one claimed execution; returns a short outcome word (for logs and tests)."""
    now = now or timezone.now()
    cache = cache if cache is not None else {}
    claimed = _claim_one(execution_id, lock_token, now)
    if claimed is None:
        return "stale"
    cache["lease"] = Lease([(execution_id, str(lock_token))], now)
    return _write_one(_run_one(*claimed, lock_token, now, cache), now)
