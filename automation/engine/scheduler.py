"""The scheduler tick (journeys.md "Scheduler"): reap, lifecycle, per-campaign claim, dispatch.

It never sends anything: it moves due executions to ``queued`` with a lock
token in one conditional UPDATE (``FOR UPDATE SKIP LOCKED`` on PostgreSQL) and
dispatches their ids to the ``engine`` queue after commit, in batches.
"""

from __future__ import annotations

import logging
import time
import traceback
import uuid
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from itertools import zip_longest
from typing import NamedTuple

from celery import current_app
from celery.exceptions import SoftTimeLimitExceeded
from django.conf import settings as django_settings
from django.db import connection, transaction
from django.db.models import F
from django.utils import timezone

from automation import events
from automation.choices import (
    DUE_STATUSES,
    IN_FLIGHT_STATUSES,
    CounterScope,
    ExecutionStatus,
    VersionStatus,
)
from automation.engine.campaign_effects import activate_pending
from automation.engine.context import automation_settings, effective_window, workspace_tz
from automation.engine.counters import budget_scopes, used
from automation.engine.graph import published_graph
from automation.engine.registry import ACTIONS
from automation.engine.transitions import bulk_transition
from automation.engine.window import local_day
from automation.models import Execution
from automation.selectors import campaign_journey_version, campaign_journey_version_id
from campaigns.choices import CampaignKind, CampaignStatus
from campaigns.events import campaign_tick_failed_event, campaign_tick_skipped_event
from campaigns.models import Campaign, PlatformHeartbeat
from campaigns.platform.collector import collector_paused
from campaigns.platform.database import is_postgresql
from campaigns.platform.errors import InvalidTransition, StaleRevision
from campaigns.platform.fairness import fair_rounds
from campaigns.services.lifecycle import campaign_status_change

logger = logging.getLogger(__name__)
S = ExecutionStatus
TICK_LOCK_KEY = 0x6A6F75726E6579  # "journey"
HEARTBEAT = "automation_tick"
# The jobs the engine sends by name (``automation.tasks``), so that nothing under them imports their Celery
# entry points: the tick, and the run of a dispatched batch.
TICK_TASK = "automation.tick"
PROCESS_EXECUTIONS_TASK = "automation.process_executions"
BUDGET_ORDER = ["next_run_at", "eligible_at", "id"]  # budget-consuming steps: oldest eligibility first
_EVENT_FIELDS = events.EVENT_ROW_FIELDS


@dataclass
class TickReport:
    reaped: int = 0
    activated_campaigns: int = 0
    ended_campaigns: int = 0
    deferred: int = 0
    claimed: int = 0
    skipped_campaigns: list[int] = field(default_factory=list)
    failed_campaigns: list[int] = field(default_factory=list)
    skipped: bool = False
    # What the back-pressure let the tick claim (``queue_room``): 0 when AUTOMATION_MAX_QUEUED executions
    # already waited for a worker.
    room: int | None = None


def _is_postgres() -> bool:
    return is_postgresql(connection)


class _TickLock:
    """Session advisory lock on PostgreSQL so two ticks never run at once (claims are safe anyway)."""

    def __enter__(self) -> bool:
        if not _is_postgres():
            return True
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_try_advisory_lock(%s)", [TICK_LOCK_KEY])
            self.held = bool(cursor.fetchone()[0])
        return self.held

    def __exit__(self, *exc) -> None:
        if _is_postgres() and getattr(self, "held", False):
            with connection.cursor() as cursor:
                cursor.execute("SELECT pg_advisory_unlock(%s)", [TICK_LOCK_KEY])


# --- 0. reap ---------------------------------------------------------------------------------------
def reap_expired_leases(now: datetime) -> int:
    """queued/processing rows whose lease expired go back to waiting (still due).

    Half-sent attempts are the action's business: it closes them as unknown on the next run. The row comes
    back without budget (``needs_budget`` false): settling what the dead job left asks and sends nothing, so
    neither a used-up daily limit nor a closed window holds it; with nothing to settle the step returns to
    the budgeted selection at once.
    """
    cutoff = now - timedelta(seconds=django_settings.AUTOMATION_LEASE_SECONDS)
    with transaction.atomic():
        qs = Execution.objects.filter(status__in=IN_FLIGHT_STATUSES, locked_at__lt=cutoff)
        if _is_postgres():
            qs = qs.select_for_update(skip_locked=True)
        rows = list(qs.values(*_EVENT_FIELDS)[:5000])
        if not rows:
            return 0
        released = {"lock_token": None, "locked_at": None, "needs_budget": False}  # no lease; settling asks nothing
        count = bulk_transition(rows, source=IN_FLIGHT_STATUSES, now=now, status=S.WAITING, **released)
        events.lease_expired_events(rows, now=now)
    return count


# --- 1. lifecycle ----------------------------------------------------------------------------------
def _campaign_transition(campaign: Campaign, name: str, now: datetime, data: dict) -> bool:
    """Continues what a guarded request allowed (only a person's schedule makes a journey scheduled)."""
    try:
        campaign_status_change(campaign=campaign, transition=name, event_data=data, guarded=False, now=now)
        return True
    except (StaleRevision, InvalidTransition):  # lost a race with a person or another tick: look again next tick
        logger.info("campaign %s: %s lost a race", campaign.pk, name)
        return False


def run_lifecycle(now: datetime, report: TickReport) -> None:
    journeys = Campaign.objects.filter(kind=CampaignKind.JOURNEY, deleted_at__isnull=True)
    for campaign in journeys.filter(status=CampaignStatus.SCHEDULED, starts_at__lte=now):
        if run_isolated(
            campaign,
            "activate",
            report,
            lambda c=campaign: _campaign_transition(c, "activate", now, {"by": "scheduler"}),
        ):
            report.activated_campaigns += 1
    ending = journeys.filter(status__in=[CampaignStatus.ACTIVE, CampaignStatus.PAUSED], ends_at__lte=now)
    for campaign in ending:
        if run_isolated(campaign, "complete", report, lambda c=campaign: _end_campaign(c, now)):
            report.ended_campaigns += 1


def _end_campaign(campaign: Campaign, now: datetime) -> bool:
    if not _campaign_transition(campaign, "complete", now, {"by": "scheduler", "reason": "ends_at"}):
        return False  # the journey's finish effect cancelled its live executions (the creator is notified)
    return True


# --- one campaign's failure never stops the tick ---------------------------------------------------
def run_isolated(campaign: Campaign, step: str, report: TickReport, work: Callable[[], object]):
    """Run one campaign's part of the tick in its own transaction.

    If it raises, its writes roll back (no execution is left claimed but never dispatched), the failure
    is logged with ids only and recorded as a ``tick_failed`` campaign event, and the tick goes on with
    the next campaign. A soft time limit still stops the whole tick.
    """
    try:
        with transaction.atomic():
            return work()
    except SoftTimeLimitExceeded:
        raise
    except Exception as exc:
        report.failed_campaigns.append(campaign.id)
        logger.error(
            "scheduler tick: %s failed for campaign %s (workspace %s): %s\n%s",
            step,
            campaign.id,
            campaign.workspace_id,
            type(exc).__name__,
            "".join(traceback.format_tb(exc.__traceback__)),  # frames only: the message may carry data
        )
        _failure_event(campaign, step, type(exc).__name__)
        return None


def _failure_event(campaign: Campaign, step: str, error: str) -> None:
    """One event per kind of failure in a row, not one per minute."""
    try:
        with transaction.atomic():
            campaign_tick_failed_event(campaign=campaign, step=step, error=error)
    except SoftTimeLimitExceeded:
        raise
    except Exception:  # the database itself may be the problem: the log line above is the record then
        logger.error("scheduler tick: could not record the failure of campaign %s", campaign.id)


# --- 2. per campaign -----------------------------------------------------------------------------------
def channel_problems(campaign: Campaign) -> list[str]:
    graph = published_graph(campaign_journey_version_id(campaign))
    problems = []
    for key in sorted({n.subtype for n in graph.nodes if n.type == "action"}):
        action = ACTIONS.get(key)
        problem = action.channel_problem(campaign.workspace) if action else f"unknown action {key}"
        if problem:
            problems.append(problem)
    return problems


def _skip_event(campaign: Campaign, reason: str) -> None:
    """One event per skip reason, not one per minute."""
    campaign_tick_skipped_event(campaign=campaign, reason=reason)


def _claim(qs, *, order: list[str], limit: int, now: datetime) -> list[tuple[int, str]]:
    if limit <= 0:
        return []
    token = uuid.uuid4()
    with transaction.atomic():
        if _is_postgres():
            rows = _claim_returning(qs, order=order, limit=limit, token=token, now=now)
        else:
            rows = list(qs.order_by(*order).values(*_EVENT_FIELDS)[:limit])
            if rows:
                picked = [r["id"] for r in rows]
                Execution.objects.filter(pk__in=picked, status__in=DUE_STATUSES).update(
                    status=S.QUEUED, lock_token=token, locked_at=now, revision=F("revision") + 1, updated_at=now
                )
                claimed = set(Execution.objects.filter(pk__in=picked, lock_token=token).values_list("id", flat=True))
                rows = [r for r in rows if r["id"] in claimed]
        if not rows:
            return []
    return [(r["id"], str(token)) for r in rows]


def claim_statement(qs, *, order: list[str], limit: int, token: uuid.UUID, now: datetime):
    """The claim as one statement (PostgreSQL): pick, queue and return the first ``limit`` rows of ``qs``.

    ``WITH picked AS (SELECT id, status … ORDER BY … LIMIT n FOR UPDATE SKIP LOCKED) UPDATE … FROM picked
    RETURNING …`` — exactly the rows now holding the token. ``picked`` is numbered in the selection's order
    (the rows come back in any order) and keeps the pre-claim status (the ``claimed`` event's from-status).
    Returns (sql, params, names of the returned columns). Its plan: docs/journeys.md "Tick".
    """
    selection = qs.order_by(*order).select_for_update(skip_locked=True, of=("self",)).values("id", "status")
    pick_sql, params = selection[:limit].query.sql_with_params()
    quote = connection.ops.quote_name
    returned = [f for f in _EVENT_FIELDS if f != "status"]
    columns = ", ".join(f"e.{quote(f)}" for f in returned)
    sql = (
        f"WITH picked AS ({pick_sql}), "  # noqa: S608 - table and column names come from the model
        "numbered AS (SELECT id, status, row_number() OVER () AS position FROM picked) "
        f"UPDATE {quote(Execution._meta.db_table)} AS e SET status = %s, lock_token = %s, locked_at = %s, "
        "revision = e.revision + 1, updated_at = %s FROM numbered WHERE e.id = numbered.id "
        f"RETURNING {columns}, numbered.status, numbered.position"
    )
    return sql, [*params, S.QUEUED, token, now, now], [*returned, "status", "position"]


def _claim_returning(qs, *, order: list[str], limit: int, token: uuid.UUID, now: datetime) -> list[dict]:
    sql, params, names = claim_statement(qs, order=order, limit=limit, token=token, now=now)
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        rows = [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]
    rows.sort(key=lambda r: r["position"])  # the selection's order: dispatched first = due first
    return rows


def due_selection(campaign: Campaign, now: datetime):
    """The rows the tick may claim for this campaign (both selections filter it on ``needs_budget``)."""
    return Execution.objects.filter(campaign=campaign, status__in=DUE_STATUSES, next_run_at__lte=now)


class Scheduled(NamedTuple):
    claimed: list[tuple[int, str]]
    deferred: int
    non_budget: int = 0  # of ``claimed``, the non-consuming steps (their own per-campaign cap per tick)


def schedule_campaign(
    campaign: Campaign, now: datetime, *, limit: int, non_budget_limit: int | None = None
) -> Scheduled:
    """Claim at most ``limit`` of this campaign's due executions (of which at most ``non_budget_limit``
    non-consuming ones, default ``AUTOMATION_NON_BUDGET_PER_TICK``)."""
    settings = automation_settings(campaign.workspace)
    if not settings.enabled:
        _skip_event(campaign, "automation_disabled")
        return Scheduled([], 0)
    version = campaign_journey_version(campaign)
    if version is None or version.status == VersionStatus.DRAFT:
        _skip_event(campaign, "version_missing")
        return Scheduled([], 0)
    problems = channel_problems(campaign)
    if problems:
        _skip_event(campaign, problems[0])
        return Scheduled([], 0)
    activate_pending(campaign, now)
    graph = published_graph(version.id)
    tz = workspace_tz(campaign.workspace, settings)
    window = effective_window(campaign, graph.settings, settings, tz)
    base = due_selection(campaign, now)
    deferred = 0
    claimed: list[tuple[int, str]] = []
    if window is not None and not window.is_open(now):
        opening = window.next_open_at(now)
        if opening is not None:
            # Move due budget-consuming steps to the opening; eligible_at keeps their order.
            deferred = base.filter(needs_budget=True).update(next_run_at=opening, updated_at=now)
    else:
        budget = _budget(campaign, settings, now, tz)
        claimed += _claim(
            base.filter(needs_budget=True),
            order=BUDGET_ORDER,
            limit=min(budget, limit),
            now=now,
        )
    if non_budget_limit is None:
        non_budget_limit = django_settings.AUTOMATION_NON_BUDGET_PER_TICK
    non_budget = _claim(
        base.filter(needs_budget=False),
        order=["next_run_at", "id"],
        limit=min(non_budget_limit, limit - len(claimed)),
        now=now,
    )
    return Scheduled(claimed + non_budget, deferred, len(non_budget))


def daily_budget_left(campaign: Campaign, now: datetime) -> int:
    """What the tick may still claim of the campaign's sends today under its and its workspace's daily limits:
    at 0 its due sends stay due, unclaimed until the next day (the health check does not blame the tick)."""
    settings = automation_settings(campaign.workspace)
    return _budget(campaign, settings, now, workspace_tz(campaign.workspace, settings))


def _budget(campaign: Campaign, settings, now: datetime, tz: str) -> int:
    """min(limits) − used today − in flight (queued/processing budget-consuming executions)."""
    day = local_day(now, tz)
    scopes = budget_scopes(campaign, settings=settings)
    budget = 10**9
    channels = {
        ACTIONS.get(n.subtype).channel
        for n in published_graph(campaign_journey_version_id(campaign)).nodes
        if n.type == "action" and ACTIONS.get(n.subtype)
    }
    for scope in scopes:
        if scope.limit is None:
            continue
        in_flight = Execution.objects.filter(status__in=IN_FLIGHT_STATUSES, needs_budget=True)
        in_flight = (
            in_flight.filter(campaign_id=campaign.id)
            if scope.scope == CounterScope.CAMPAIGN
            else in_flight.filter(workspace_id=campaign.workspace_id)
        )
        spent = max((used(scope.scope, scope.scope_id, ch, day) for ch in channels), default=0)
        budget = min(budget, scope.limit - spent - in_flight.count())
    return max(0, budget)


def queue_room() -> int:
    """How many more executions the tick may claim: ``AUTOMATION_MAX_QUEUED`` less those already claimed
    and waiting for a worker (``queued``; a job that started them holds them as ``processing``).

    The back-pressure of the engine: a claimed row waits in the broker with the lease of its claim, so
    claiming faster than the workers start batches only makes rows whose lease ends in the queue — the reaper
    takes them back, the tick claims them again and their batches find them taken (a livelock with nothing
    sent). Counted up to the bound only, on the live status index."""
    bound = django_settings.AUTOMATION_MAX_QUEUED
    waiting = Execution.objects.filter(status=S.QUEUED).values("id")[:bound].count()
    return max(0, bound - waiting)


def dispatch(per_workspace: dict[int, list[tuple[int, str]]], send: Callable[[list[tuple[int, str]]], None]) -> None:
    """Send the claimed ids in batches, one batch of each workspace in turn: the engine queue is first in,
    first out, so one workspace's thousands of sends never queue ahead of another's first batch."""
    size = django_settings.AUTOMATION_DISPATCH_BATCH
    batches = [[items[i : i + size] for i in range(0, len(items), size)] for items in per_workspace.values()]
    for turn in zip_longest(*batches):
        for chunk in turn:
            if chunk:
                transaction.on_commit(lambda chunk=chunk: send(chunk))


def tick(*, now: datetime | None = None, send: Callable | None = None) -> TickReport:
    """One scheduler run; bounded by AUTOMATION_TICK_MAX_CLAIMS, AUTOMATION_TICK_SECONDS and the room left
    under AUTOMATION_MAX_QUEUED (``queue_room``)."""
    now = now or timezone.now()
    report = TickReport()
    if send is None:

        def send(chunk):
            current_app.signature(PROCESS_EXECUTIONS_TASK).delay([list(item) for item in chunk])

    with _TickLock() as held, collector_paused():
        if not held:
            report.skipped = True
            return report
        PlatformHeartbeat.objects.update_or_create(name=HEARTBEAT, defaults={"beat_at": now})
        report.reaped = reap_expired_leases(now)
        run_lifecycle(now, report)
        started = time.monotonic()
        campaigns = (
            Campaign.objects.filter(kind=CampaignKind.JOURNEY, status=CampaignStatus.ACTIVE, deleted_at__isnull=True)
            .filter(journey__isnull=False)
            .select_related("workspace", "journey__workflow_version")
            .order_by("workspace_id", "id")
        )
        groups: dict[int, list[Campaign]] = {}
        for campaign in campaigns:
            groups.setdefault(campaign.workspace_id, []).append(campaign)
        # The first turn rotates with the minute, so a tick cut short by its time limit is not always
        # cut short for the same workspaces.
        order = list(groups)
        if order:
            first = int(now.timestamp() // 60) % len(order)
            groups = {k: groups[k] for k in order[first:] + order[:first]}
        claimed_by_workspace: dict[int, list[tuple[int, str]]] = defaultdict(list)
        non_budget_left: dict[int, int] = defaultdict(lambda: django_settings.AUTOMATION_NON_BUDGET_PER_TICK)

        def claim(campaign: Campaign, limit: int) -> int | None:
            result = run_isolated(
                campaign,
                "schedule",
                report,
                lambda: schedule_campaign(campaign, now, limit=limit, non_budget_limit=non_budget_left[campaign.id]),
            )
            if result is None:
                return None
            claimed_by_workspace[campaign.workspace_id].extend(result.claimed)
            non_budget_left[campaign.id] -= result.non_budget
            report.deferred += result.deferred
            return len(result.claimed)

        room = report.room = queue_room()
        if room == 0:
            logger.warning(
                "scheduler tick: %s claimed executions wait for a worker (AUTOMATION_MAX_QUEUED), nothing claimed",
                django_settings.AUTOMATION_MAX_QUEUED,
            )
        try:
            report.claimed = fair_rounds(
                groups,
                min(django_settings.AUTOMATION_TICK_MAX_CLAIMS, room),
                claim,
                out_of_time=lambda: time.monotonic() - started > django_settings.AUTOMATION_TICK_SECONDS,
            )
        finally:  # what was claimed is sent even when the tick is stopped (its lease would hold it otherwise)
            dispatch(claimed_by_workspace, send)
    return report
