"""The one completion condition of a run, and the campaign FINISHED rule.

Both the dispatcher (right after DISPATCHED) and the scheduler (every tick for
DISPATCHED runs) call ``run_complete_if_done``; nothing else decides that a
run is complete. Conversions never block completion or finishing.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.db import transaction

from campaigns.chains import schedule as sched
from campaigns.chains.choices import ChainControl
from campaigns.chains.node_models import ChainNode
from campaigns.chains.run_models import CampaignRun, RunExecution
from campaigns.chains.runs.choices import OPEN, RunStatus, RunType
from campaigns.chains.runs.transitions import duration_ms, log, log_run, run_apply
from campaigns.chains.runs.webhook_events import run_completed
from campaigns.choices import CampaignStatus
from campaigns.platform.registry import run_engine
from campaigns.services.lifecycle import campaign_status_change

ACTIVE_CAMPAIGN = (CampaignStatus.SCHEDULED, CampaignStatus.ACTIVE, CampaignStatus.PAUSED)


def completion_deadline() -> timedelta:
    return timedelta(hours=settings.CHAIN_RUN_COMPLETION_DEADLINE_HOURS)


@dataclass(frozen=True)
class CompletionCheck:
    complete: bool
    expected: int
    existing: int
    settled: int
    pending: int
    excluded: dict[str, int] | None = None  # sends that left their person out, by reason (None: not read)


def run_completion_check(run: CampaignRun) -> CompletionCheck:
    """Complete = every expected execution exists and is terminal. Unknown or pending keeps the run open."""
    expected = run.expected_execution_count
    if run.status != RunStatus.DISPATCHED or expected is None:
        return CompletionCheck(False, expected or 0, 0, 0, 0)
    ids = list(RunExecution.objects.filter(run=run, execution_id__isnull=False).values_list("execution_id", flat=True))
    if len(ids) < expected:
        return CompletionCheck(False, expected, len(ids), 0, expected - len(ids))
    engine = run_engine()
    outcomes = engine.outcomes(execution_ids=ids) if (engine and ids) else {}
    settled = sum(1 for i in ids if outcomes.get(i, {}).get("terminal"))
    pending = len(ids) - settled
    excluded: dict[str, int] = {}
    for outcome in outcomes.values():
        if outcome.get("excluded"):
            excluded[outcome["excluded"]] = excluded.get(outcome["excluded"], 0) + 1
    return CompletionCheck(pending == 0, expected, len(ids), settled, pending, excluded)


def _keep_exclusions(run: CampaignRun, check: CompletionCheck) -> None:
    """The run's send-time exclusions by reason, written when they changed (every check of a dispatched run)."""
    if check.excluded is None or check.excluded == (run.excluded_reasons or {}):
        return
    CampaignRun.objects.filter(pk=run.pk).update(excluded_reasons=check.excluded)
    run.excluded_reasons = check.excluded


def run_complete_if_done(run: CampaignRun, *, now: datetime) -> bool:
    """DISPATCHED → COMPLETED by compare-and-set; past the deadline a still-open run gets an operational error."""
    check = run_completion_check(run)
    _keep_exclusions(run, check)
    if check.complete:
        with transaction.atomic():  # the run's end and its webhook event commit together, once
            completed = run_apply(run, "complete", now=now, completed_at=now, next_check_at=None, operational_error="")
            if completed:
                run_completed(run=run, expected=check.expected, settled=check.settled, completed_at=now)
        if completed:
            log_run(
                "run completed",
                run,
                expected=check.expected,
                settled=check.settled,
                duration_ms=duration_ms(run.started_at, now),
            )
            chain_finish_if_done(root_id=run.root_id or run.campaign_id, now=now)
            return True
        return False
    if run.status == RunStatus.DISPATCHED and run.dispatched_at and now - run.dispatched_at > completion_deadline():
        if not run.operational_error:
            message = f"COMPLETION_OVERDUE: {check.pending} of {check.expected} executions not settled"
            CampaignRun.objects.filter(pk=run.pk, operational_error="").update(operational_error=message)
            run.operational_error = message
            log.error(
                "run completion overdue",
                extra={"run_id": run.id, "campaign_id": run.campaign_id, "pending": check.pending},
            )
    return False


# --------------------------------------------------------------------------- campaign FINISHED


def root_has_future_turn(root: ChainNode, *, now: datetime) -> bool:
    """The root schedule still has an occurrence after its latest root run (STOPPED chains have none)."""
    if root.chain_control == ChainControl.STOPPED:
        return False
    try:
        rs = sched.parse_root_schedule(root.root_schedule or {"type": "EVENT"})
    except sched.ScheduleErrors:
        return False
    latest = (
        CampaignRun.objects.filter(campaign=root, run_type=RunType.SCHEDULED)
        .order_by("-planned_at")
        .values_list("planned_at", flat=True)
        .first()
    )
    after = latest + timedelta(seconds=1) if latest else now
    return next(sched.root_occurrences(rs, sched.workspace_zone(root.workspace), after), None) is not None


def _finish(campaign: ChainNode, reason: str) -> None:
    """Closing the runs of an approved chain package: no request guard."""
    closing = {"event_data": {"reason": reason}, "guarded": False}
    if campaign.status == CampaignStatus.SCHEDULED:
        campaign = campaign_status_change(campaign=campaign, transition="activate", **closing)
    campaign_status_change(campaign=campaign, transition="complete", **closing)


def campaign_finish_if_done(*, campaign_id: int, now: datetime) -> bool:
    """FINISHED when no future turn and no open run; a finished root re-checks its children."""
    campaign = ChainNode.objects.select_related("workspace").get(pk=campaign_id)
    if campaign.status not in ACTIVE_CAMPAIGN or campaign.root_id is None:
        return False
    if CampaignRun.objects.filter(campaign=campaign, status__in=OPEN).exists():
        return False
    if campaign.root_id == campaign.id:
        if root_has_future_turn(campaign, now=now):
            return False
    else:
        root = ChainNode.objects.select_related("workspace").get(pk=campaign.root_id)
        if root.status in ACTIVE_CAMPAIGN and root_has_future_turn(root, now=now):
            return False
        if CampaignRun.objects.filter(root=root, status__in=OPEN).exists():
            return False  # an ancestor's open run may still give this child a turn
    with transaction.atomic():
        try:
            _finish(campaign, "SCHEDULE_EXHAUSTED")
        except Exception:  # lost a race with pause/stop: the next tick decides again
            log.warning("campaign finish skipped", extra={"campaign_id": campaign.id})
            return False
    log.info("campaign finished", extra={"campaign_id": campaign.id, "workspace_id": campaign.workspace_id})
    return True


def chain_finish_if_done(*, root_id: int, now: datetime) -> None:
    """After a run closes: every node of the chain (root first) re-checks the FINISHED rule."""
    ids = list(ChainNode.objects.filter(root_id=root_id, deleted_at=None).order_by("id").values_list("id", flat=True))
    for campaign_id in sorted(ids, key=lambda i: i != root_id):
        campaign_finish_if_done(campaign_id=campaign_id, now=now)
