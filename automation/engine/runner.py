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

import logging
import uuid
import zoneinfo
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from django.contrib.contenttypes.models import ContentType
from django.db import connection, transaction
from django.utils import timezone

from automation.choices import EndReason, EventType, ExecutionStatus, NodeType, OnUnknownOutcome, Port
from automation.engine import conditions
from automation.engine.context import StepContext, automation_settings, effective_window, workspace_tz
from automation.engine.graph import Graph, NodeSpec, published_graph, wait_seconds
from automation.engine.lease import STOP_EXCEPTIONS, Lease
from automation.engine.registry import ACTIONS, GUARDS, RETRY_STRATEGIES, ActionResult, ResultStatus
from automation.engine.transitions import PendingEvent, apply_transition
from automation.engine.validator import delay_seconds
from automation.models import Execution
from campaigns.models import Campaign

logger = logging.getLogger(__name__)
STEP_BUDGET = 50
# Execution metadata keys: the node an execution was held at after an unknown outcome, and a person's
# decision to send that step again (read by the action through ``ctx.execution.metadata``).
HELD_UNKNOWN = "_held_unknown"
RESEND_UNKNOWN = "_resend_unknown"
SKIP_UNKNOWN = "_skip_unknown"
ERROR_BACKOFF = timedelta(minutes=5)
MAX_JOB_ERRORS = 3


@dataclass
class Outcome:
    transition: str
    extra: dict[str, Any] = field(default_factory=dict)
    event: PendingEvent | None = None


class _Run:
    """One job's pass over one execution."""

    def __init__(self, execution: Execution, campaign: Campaign, now: datetime, job_token: uuid.UUID, cache: dict):
        self.ex = execution
        self.campaign = campaign
        self.now = now
        self.job_token = job_token
        self.graph: Graph = published_graph(execution.version_id)
        self.workspace = campaign.workspace
        key = ("settings", campaign.workspace_id)
        if key not in cache:
            cache[key] = automation_settings(self.workspace)
        self.settings = cache[key]
        self.tz = workspace_tz(self.workspace, self.settings)
        wkey = ("window", campaign.id)
        if wkey not in cache:
            cache[wkey] = effective_window(campaign, self.graph.settings, self.settings, self.tz)
        self.window = cache[wkey]
        self.events: list[PendingEvent] = []
        self.metadata = dict(execution.metadata or {})
        self.fields: dict[str, Any] = {}
        self.cache = cache
        self.subject = self._load_subject()

    # --- helpers -----------------------------------------------------------------------------------
    @property
    def execution(self) -> Execution:
        """Conditions read ``execution.metadata``/``cycle`` through this (live metadata of this run)."""
        self.ex.metadata = self.metadata
        return self.ex

    def _load_subject(self):
        key = ("subject", self.ex.subject_type_id, self.ex.subject_id)
        if key in self.cache:  # prefetched for the whole batch
            return self.cache[key]
        model = ContentType.objects.get_for_id(self.ex.subject_type_id).model_class()
        return model._default_manager.filter(pk=self.ex.subject_id).first() if model else None

    def event(self, type: str, node: NodeSpec | None = None, message: str = "", **data) -> None:
        self.events.append(PendingEvent(type, node.id if node else None, message, data, self.now))

    def node(self) -> NodeSpec:
        return self.graph.by_id[self.fields.get("current_node_id", self.ex.current_node_id)]

    def enter(self, node: NodeSpec, at: datetime) -> None:
        self.fields.update(
            current_node_id=node.id,
            needs_budget=node.consumes_budget,
            node_entered_at=at,
            retry_count=0,
            eligible_at=at,
            next_run_at=at,
        )
        self.event(EventType.NODE_ENTERED, node)

    def move(self, node: NodeSpec, *ports: str, at: datetime | None = None) -> NodeSpec | None:
        """Follow the first connected port; None when the path ends (treated as complete)."""
        key = self.graph.next_key(node.node_key, *ports)
        if key is None:
            return None
        nxt = self.graph.by_key[key]
        self.enter(nxt, at or self.now)
        return nxt

    def entered_at(self) -> datetime:
        return self.fields.get("node_entered_at") or self.ex.node_entered_at or self.now

    def retry_count(self) -> int:
        return self.fields.get("retry_count", self.ex.retry_count)

    def finish(self, transition: str, reason: str, event: str) -> Outcome:
        extra = {"end_reason": reason, "next_run_at": None}
        if transition in ("complete", "fail", "cancel", "blacklist"):
            extra["completed_at"] = self.now
        return Outcome(
            transition, extra, PendingEvent(event, self.fields.get("current_node_id", self.ex.current_node_id), reason)
        )

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
        receives its ActionResult, so a batch driver can execute many executions' actions together."""
        stop_statuses = (self.campaign.journey_settings or {}).get("stop_when_target_status_in") or []
        for step in range(STEP_BUDGET):
            if self.subject is None or getattr(self.subject, "deleted_at", None) is not None:
                return self.finish("cancel", EndReason.TARGET_REMOVED, EventType.CANCELLED)
            if stop_statuses and getattr(self.subject, "status", None) in stop_statuses:
                return self.finish("cancel", EndReason.TARGET_STATUS_CHANGED, EventType.CANCELLED)
            node = self.node()
            if not node.is_enabled:
                self.event(EventType.SKIPPED, node, "گام غیرفعال رد شد.")
                nxt = self.move(node, Port.DEFAULT, Port.SUCCESS, Port.YES)
                outcome = self._after_move(nxt, step)
            elif node.type == NodeType.START:
                outcome = self._after_move(self.move(node, Port.DEFAULT), step)
            elif node.type == NodeType.WAIT:
                outcome = self._wait(node, step)
            elif node.type == NodeType.CONDITION:
                matched = conditions.evaluate(node.config, self)
                self.event(EventType.CONDITION_EVALUATED, node, result=matched)
                outcome = self._after_move(self.move(node, Port.YES if matched else Port.NO), step)
            elif node.type == NodeType.END:
                return self._end(node)
            elif node.type == NodeType.ACTION:
                if step > 0 and node.consumes_budget:
                    return Outcome("ready")
                outcome = yield from self._action(node, step)
            else:  # pragma: no cover - validator refuses unknown types
                raise ValueError(f"unknown node type {node.type}")
            if outcome is not None:
                return outcome
        return Outcome("ready", {"next_run_at": self.now})

    def _after_move(self, nxt: NodeSpec | None, step: int) -> Outcome | None:
        if nxt is None:
            return self.finish("complete", EndReason.COMPLETED, EventType.COMPLETED)
        if nxt.type == NodeType.ACTION and nxt.consumes_budget:
            return Outcome("ready")
        return None

    def _wait(self, node: NodeSpec, step: int) -> Outcome | None:
        config = node.config
        if config.get("mode", node.subtype) == "until":
            naive = datetime.fromisoformat(str(config["at"]))
            wake = naive if naive.tzinfo else naive.replace(tzinfo=zoneinfo.ZoneInfo(config.get("timezone", self.tz)))
        else:
            wake = self.entered_at() + timedelta(seconds=wait_seconds(config))
        if wake > self.now:
            if not self.metadata.get("_waiting") == node.node_key:
                self.event(EventType.WAIT_STARTED, node, until=wake.isoformat())
            self.metadata["_waiting"] = node.node_key
            return Outcome("wait", {"next_run_at": wake, "eligible_at": wake})
        self.metadata.pop("_waiting", None)
        self.event(EventType.WAIT_FINISHED, node)
        # The next step becomes due when the wait ended, not "now" (queue fairness).
        base = max(wake, self.entered_at())
        return self._after_move(self.move(node, Port.DEFAULT, at=min(base, self.now)), step)

    def _end(self, node: NodeSpec) -> Outcome:
        behavior = node.behavior
        if behavior in ("loop", "restart"):
            max_cycles = int(node.config.get("max_cycles") or 1)
            if self.ex.cycle >= max_cycles:
                return self.finish("complete", EndReason.MAX_CYCLES, EventType.COMPLETED)
            at = self.now + timedelta(seconds=delay_seconds(node.config.get("delay")))
            if behavior == "loop":
                target = self.graph.by_key[node.config["to_node"]]
                event = EventType.LOOPED
            else:
                target = self.graph.first_step()
                self.metadata = {}
                event = EventType.RESTARTED
            self.enter(target, at)
            self.events.append(
                PendingEvent(event, node.id, "", {"cycle": self.ex.cycle + 1, "at": at.isoformat()}, self.now)
            )
            return Outcome("wait", {"cycle": self.ex.cycle + 1})
        reason = EndReason.STOPPED if behavior == "stop" else EndReason.COMPLETED
        return self.finish("complete", reason, EventType.COMPLETED)

    def _action(self, node: NodeSpec, step: int) -> Outcome | None:
        if self.metadata.get(SKIP_UNKNOWN) == node.id:  # a person resumed a held step with "skip"
            self.metadata.pop(SKIP_UNKNOWN)
            self.event(EventType.SKIPPED, node, "unknown outcome skipped by a person")
            return self._after_move(self.move(node, Port.SUCCESS, Port.DEFAULT), step)
        action = ACTIONS.get(node.subtype)
        ctx = StepContext(
            execution=self.ex,
            graph=self.graph,
            node=node,
            campaign=self.campaign,
            workspace=self.workspace,
            subject=self.subject,
            now=self.now,
            settings=self.settings,
            tz=self.tz,
            job_token=self.job_token,
            window=self.window,
            cache=self.cache,
        )
        ctx.execution.retry_count = self.retry_count()
        ctx.scratch["channel"] = action.channel
        for key in action.guards:
            decision = GUARDS.get(key)(ctx)
            if decision.kind == "block":
                self.event(EventType.BLACKLISTED, node, decision.reason)
                return self.finish("blacklist", EndReason.BLACKLISTED, EventType.BLACKLISTED)
            if decision.kind == "defer":
                self.event(
                    decision.event or EventType.DEFERRED_WINDOW, node, decision.reason, until=_iso(decision.until)
                )
                return Outcome("wait", {"next_run_at": decision.until or self.now + ERROR_BACKOFF})
            if decision.kind == "skip":
                self.event(EventType.SKIPPED, node, decision.reason)
                return self._after_move(self.move(node, Port.SUCCESS, Port.DEFAULT), step)
        result = yield ctx
        self.metadata.pop(RESEND_UNKNOWN, None)  # a person's "resend" is used by this one run of the step
        self.metadata["last_action_status"] = result.status
        return self._result(node, result, step)

    def _result(self, node: NodeSpec, result: ActionResult, step: int) -> Outcome | None:
        data = dict(result.data)
        event_type = data.pop("event", EventType.ACTION_RESULT)
        self.event(event_type, node, result.message, **{**data, "result": result.status})
        status = result.status
        if status in (ResultStatus.SUCCESS, ResultStatus.SKIPPED):
            return self._after_move(self.move(node, Port.SUCCESS, Port.DEFAULT), step)
        if status in (ResultStatus.DEFERRED, ResultStatus.UNAVAILABLE):
            # The channel or the budget said "not now": no retry consumed.
            return Outcome("wait", {"next_run_at": result.until or self.now + ERROR_BACKOFF})
        if status == ResultStatus.BLOCKED:
            return self.finish("blacklist", EndReason.BLACKLISTED, EventType.BLACKLISTED)
        if status == ResultStatus.UNKNOWN:
            self.event(EventType.UNKNOWN_OUTCOME, node, result.message)
            if node.config.get("on_unknown_outcome", OnUnknownOutcome.CONTINUE) == OnUnknownOutcome.HOLD:
                # Resuming offers "skip" (follow the success port) or "resend" (run the step again).
                self.metadata[HELD_UNKNOWN] = node.id
                return Outcome("hold", {"paused_at": self.now, "paused_from_status": ExecutionStatus.ACTIVE})
            return self._after_move(self.move(node, Port.SUCCESS, Port.DEFAULT), step)
        retry = node.config.get("retry") or {}
        used = self.retry_count()
        if status == ResultStatus.FAILED and result.retryable and retry.get("enabled", True):
            if used < int(retry.get("max_attempts", 0)):
                strategy = RETRY_STRATEGIES.get(retry.get("strategy", "fixed"))
                due = self.now + timedelta(seconds=strategy.delay_seconds(used + 1, retry))
                self.event(EventType.RETRY_SCHEDULED, node, "", retry=used + 1, at=due.isoformat())
                return Outcome("wait", {"next_run_at": due, "retry_count": used + 1})
        return self._exhausted(node, retry, step)

    def _exhausted(self, node: NodeSpec, retry: dict, step: int) -> Outcome | None:
        if self.graph.next_key(node.node_key, Port.FAILURE):
            return self._after_move(self.move(node, Port.FAILURE), step)
        policy = retry.get("on_exhausted", "fail")
        if policy == "fail":
            return self.finish("fail", EndReason.RETRIES_EXHAUSTED, EventType.FAILED)
        if policy == "stop":
            return self.finish("complete", EndReason.RETRIES_EXHAUSTED, EventType.COMPLETED)
        if policy == "skip_step":
            self.event(EventType.SKIPPED, node, "retries exhausted")
        return self._after_move(self.move(node, Port.SUCCESS, Port.DEFAULT), step)


def _iso(value: datetime | None) -> str | None:
    return value.isoformat() if value else None


def _claim_one(execution_id: int, lock_token, now: datetime) -> Execution | None:
    """Tx1 for one execution: queued → processing only if the lock token still matches."""
    with transaction.atomic():
        ex = Execution.objects.select_for_update().filter(pk=execution_id).first()
        if ex is None or ex.status != ExecutionStatus.QUEUED or str(ex.lock_token) != str(lock_token):
            return None
        # The lease starts now, when processing starts (not at the scheduler's claim).
        ok = apply_transition(
            ex,
            "start_processing",
            event=PendingEvent(EventType.PROCESSING),
            extra={"last_run_at": now, "locked_at": now},
            now=now,
        )
    return ex if ok else None


@dataclass
class Finished:
    """What one job decided for one execution (written by ``_write_one`` or ``_write_many``)."""

    ex: Execution
    transition: str
    extra: dict[str, Any]
    event: PendingEvent
    events: list[PendingEvent]


def start_run(ex: Execution, lock_token, now: datetime, cache: dict) -> _Run:
    ckey = ("campaign", ex.campaign_id)
    if ckey not in cache:
        cache[ckey] = Campaign.objects.select_related("workspace", "journey__workflow_version").get(pk=ex.campaign_id)
    return _Run(ex, cache[ckey], now, uuid.UUID(str(lock_token)), cache)


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


def finish_run(run: _Run, outcome: Outcome) -> Finished:
    ex, now = run.ex, run.now
    extra = {**run.fields, "metadata": run.metadata, **outcome.extra, "lock_token": None, "locked_at": None}
    event = outcome.event or PendingEvent(
        {"wait": EventType.WAIT_STARTED, "ready": EventType.ACTIVATED, "hold": EventType.HELD}.get(
            outcome.transition, outcome.transition
        ),
        extra.get("current_node_id", ex.current_node_id),
    )
    if outcome.transition in ("wait", "ready") and extra.get("next_run_at") is None:
        extra["next_run_at"] = now
    return Finished(ex, outcome.transition, extra, event, run.events)


def _run_one(ex: Execution, lock_token, now: datetime, cache: dict) -> Finished:
    run = start_run(ex, lock_token, now, cache)
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
    ex = _claim_one(execution_id, lock_token, now)
    if ex is None:
        return "stale"
    cache["lease"] = Lease([(execution_id, str(lock_token))], now)
    return _write_one(_run_one(ex, lock_token, now, cache), now)


def process_batch(items: list[tuple[int, str]], *, now: datetime | None = None) -> dict[str, int]:
    """Run a dispatched batch. On PostgreSQL the claim and the final writes are batched (see ``batch``)."""
    now = now or timezone.now()
    if connection.vendor == "postgresql" and len(items) > 1:
        from automation.engine.batch import process_batch_postgres

        return process_batch_postgres(items, now=now)
    cache: dict = {}
    counts: dict[str, int] = {}
    for execution_id, token in items:
        result = process_execution(execution_id, token, now=now, cache=cache)
        counts[result] = counts.get(result, 0) + 1
    return counts
