"""The chain run scheduler (one beat job, small batches, never two at once on the same row).

* ``root_runs_reconcile``: every approved, NORMAL chain root has its next
  occurrence as a SCHEDULED run (created from the approved package's root
  schedule; the unique index (campaign, planned_at) is the last guard), and
  every open root run has one INHERITED run per descendant for its period
  (created only where missing: a crash mid-way is repaired on the next tick).
* ``due_runs_process``: runs due at ``next_check_at`` are locked with
  ``FOR UPDATE SKIP LOCKED`` and moved one step: wait for the source, plan,
  skip (timeout, new period, end date, source skipped), or hand a build /
  dispatch to a worker after commit. Nothing heavy runs here.
* ``dispatched_runs_check``: the shared completion function on DISPATCHED runs.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import F
from django.utils import timezone

from campaigns.chains import schedule as sched
from campaigns.chains.choices import ChainControl, PackageStatus
from campaigns.chains.node_models import ChainNode
from campaigns.chains.run_models import CampaignRun, RunAudienceSnapshot
from campaigns.chains.runs.audience import delivery_reports_pending
from campaigns.chains.runs.choices import (
    OPEN,
    AudienceClass,
    RunStatus,
    RunType,
    SkipReason,
    SnapshotStatus,
    WaitReason,
)
from campaigns.chains.runs.completion import run_complete_if_done
from campaigns.chains.runs.dispatch import dispatch_attempts_exhausted, run_dispatch_give_up
from campaigns.chains.runs.notices import root_audience_review
from campaigns.chains.runs.skips import run_skip
from campaigns.chains.runs.transitions import LEASE, log_run, new_lease, run_apply, run_task_send
from campaigns.choices import CampaignStatus

BATCH = 50
RECHECK = timedelta(minutes=5)
WAIT_DEADLINE = timedelta(hours=48)
COMPLETION_RECHECK = timedelta(minutes=1)

Send = Callable[..., None]


def chain_runs_tick(*, now: datetime | None = None, send: Send | None = None) -> dict:
    now = now or timezone.now()
    send = send or run_task_send
    completed = dispatched_runs_check(now=now)  # first: a source completed now lets its child start now
    return {
        "completed": completed,
        "root_runs": root_runs_reconcile(now=now),
        "due": due_runs_process(now=now, send=send),
    }


# --------------------------------------------------------------------------- schedule helpers


def root_schedule_of(root: ChainNode) -> sched.RootSchedule | None:
    """The approved package's root schedule (runs are built from the snapshot, never from live edits)."""
    stored = root.root_schedule
    package = root.approval_package
    if package is not None:
        for item in package.items:
            if item.get("campaign_id") == root.id:
                stored = item.get("root_schedule") or stored
    try:
        rs = sched.parse_root_schedule(stored or {"type": "EVENT"})
    except sched.ScheduleErrors:
        return None
    return rs if rs.recurring else None


def period_end(root: ChainNode, root_run: CampaignRun) -> datetime | None:
    """The next root occurrence after the period's root run (periods are half-open at the end)."""
    rs = root_schedule_of(root)
    if rs is None or root_run.planned_at is None:
        return None
    tz = sched.workspace_zone(root.workspace)
    return next(sched.root_occurrences(rs, tz, root_run.planned_at + timedelta(seconds=1)), None)


def end_of_schedule(root: ChainNode) -> datetime | None:
    """The campaign end date as a no-new-turn mark (end of that local day)."""
    rs = root_schedule_of(root)
    if rs is None or rs.end_date is None:
        return None
    tz = sched.workspace_zone(root.workspace)
    return sched.local(rs.end_date + timedelta(days=1), datetime.min.time(), tz)


# --------------------------------------------------------------------------- root runs and periods


def _approved_roots():
    return ChainNode.objects.filter(
        root_id=F("pk"),
        deleted_at=None,
        status__in=[CampaignStatus.SCHEDULED, CampaignStatus.ACTIVE],
        chain_control=ChainControl.NORMAL,
        approval_package__status=PackageStatus.APPROVED,
    ).select_related("workspace", "approval_package")


def root_runs_reconcile(*, now: datetime, root_ids: list[int] | None = None) -> int:
    """Create the missing next root run (and its period's child runs) for every approved root."""
    created = 0
    qs = _approved_roots()
    if root_ids is not None:
        qs = qs.filter(pk__in=root_ids)
    for root_id in qs.values_list("id", flat=True)[:500]:
        with transaction.atomic():
            root = (
                _approved_roots()
                .select_for_update(skip_locked=True, of=("self", "campaign"))
                .filter(pk=root_id)
                .first()
            )
            if root is None:
                continue  # another scheduler holds it
            created += _root_reconcile(root, now)
    return created


def _root_reconcile(root: ChainNode, now: datetime) -> int:
    created = 0
    latest = CampaignRun.objects.filter(campaign=root, run_type=RunType.SCHEDULED).order_by("-planned_at").first()
    if latest is None or latest.planned_at <= now:
        rs = root_schedule_of(root)
        if rs is not None:
            tz = sched.workspace_zone(root.workspace)
            if latest is not None:
                after = latest.planned_at + timedelta(seconds=1)
            else:
                after = root.approval_package.decided_at or now
                created += _missed_periods_record(root, rs, tz, until=after, now=now)
            occurrence = next(sched.root_occurrences(rs, tz, after), None)
            if occurrence is not None:
                root_audience_review(root)  # a late change that emptied the audience shows before the run
                created += int(_create_root_run(root, occurrence) is not None)
    for run in CampaignRun.objects.filter(campaign=root, run_type=RunType.SCHEDULED, status__in=OPEN):
        created += ensure_child_runs(root, run)
    return created


MAX_MISSED = 50


def _missed_periods_record(root: ChainNode, rs: sched.RootSchedule, tz, *, until: datetime, now: datetime) -> int:
    """Late approval: each root occurrence between submission and approval is a SKIPPED APPROVED_LATE run.

    Runs start at the first occurrence after the approval; the periods the approval came too late for
    are recorded (the newest ``MAX_MISSED``) so the run list shows them and says why nothing was sent.
    """
    submitted = root.approval_package.submitted_at
    if submitted is None or submitted >= until:
        return 0
    missed = []
    for occurrence in sched.root_occurrences(rs, tz, submitted):
        if occurrence >= until:
            break
        missed = [*missed[-(MAX_MISSED - 1) :], occurrence]
    created = 0
    for occurrence in missed:
        run = _create_root_run(root, occurrence)
        if run is not None:
            run_skip(run, SkipReason.APPROVED_LATE, now=now)
            created += 1
    return created


def root_run_create(
    root: ChainNode, *, run_type: str, at: datetime, source_run: CampaignRun | None = None
) -> CampaignRun:
    """A run of a chain root under its approval package, due at ``at`` (planned, scheduled and checked then)."""
    return CampaignRun.objects.create(
        workspace_id=root.workspace_id,
        campaign=root,
        root=root,
        package=root.approval_package,
        run_type=run_type,
        source_run=source_run,
        planned_at=at,
        scheduled_at=at,
        next_check_at=at,
    )


def _create_root_run(root: ChainNode, occurrence: datetime) -> CampaignRun | None:
    try:
        with transaction.atomic():
            run = root_run_create(root, run_type=RunType.SCHEDULED, at=occurrence)
            # The id is allocated first; the root run opens its own period.
            CampaignRun.objects.filter(pk=run.pk).update(period_key=run.pk)
            run.period_key = run.pk
    except IntegrityError:
        return None  # the same occurrence exists: read it, never mint another
    log_run("root run created", run)
    return run


def ensure_child_runs(root: ChainNode, root_run: CampaignRun) -> int:
    """One INHERITED run per descendant for the period; only the missing ones are created."""
    nodes = list(ChainNode.objects.filter(root_id=root.id, deleted_at=None).exclude(pk=root.id).order_by("id"))
    if not nodes:
        return 0
    existing = {
        r.campaign_id: r
        for r in CampaignRun.objects.filter(
            workspace_id=root.workspace_id, period_key=root_run.period_key, run_type=RunType.INHERITED
        )
    }
    runs_by_campaign = {root.id: root_run, **existing}
    created = 0
    pending = [n for n in nodes if n.id not in existing]
    progressed = True
    while pending and progressed:
        progressed = False
        for node in list(pending):
            source_run = runs_by_campaign.get(node.parent_id)
            if source_run is None:
                continue
            run, was_created = _create_child_run(node, root, root_run, source_run)
            runs_by_campaign[node.id] = run
            created += int(was_created)
            pending.remove(node)
            progressed = True
    return created


def _create_child_run(node: ChainNode, root: ChainNode, root_run: CampaignRun, source_run: CampaignRun):
    inherit_type = (node.inheritance or {}).get("type", "")
    try:
        with transaction.atomic():
            run = CampaignRun.objects.create(
                workspace_id=root.workspace_id,
                campaign=node,
                root=root,
                package=root_run.package,
                run_type=RunType.INHERITED,
                period_key=root_run.period_key,
                source_run=source_run,
                inherit_type=inherit_type,
                next_check_at=root_run.scheduled_at,
            )
    except IntegrityError:
        # Two creators raced: the unique index kept one; read it.
        run = CampaignRun.objects.get(
            workspace_id=root.workspace_id, campaign=node, period_key=root_run.period_key, run_type=RunType.INHERITED
        )
        return run, False
    log_run("child run created", run)
    if source_run.status in (RunStatus.SKIPPED, RunStatus.FAILED):
        run_skip(run, SkipReason.SOURCE_SKIPPED, now=timezone.now())
    return run, True


# --------------------------------------------------------------------------- due runs

DUE = (
    RunStatus.SCHEDULED,
    RunStatus.WAITING_SOURCE,
    RunStatus.BUILDING,
    RunStatus.READY_TO_DISPATCH,
    RunStatus.DISPATCHING,
)


def due_runs_process(*, now: datetime, send: Send) -> int:
    done = 0
    with transaction.atomic():
        runs = list(
            CampaignRun.objects.select_for_update(skip_locked=True)
            .filter(status__in=DUE, next_check_at__lte=now)
            .order_by("next_check_at", "id")[:BATCH]
        )
        for run in runs:
            run_step(run, now=now, send=send)
            done += 1
    return done


def run_step(run: CampaignRun, *, now: datetime, send: Send) -> None:
    root = ChainNode.objects.select_related("workspace", "approval_package").get(pk=run.root_id or run.campaign_id)
    if run.status in (RunStatus.SCHEDULED, RunStatus.WAITING_SOURCE):
        if root.chain_control != ChainControl.NORMAL:
            return _later(run, now + RECHECK)
        if run.run_type == RunType.INHERITED:
            return _child_step(run, root, now, send)
        if now < run.scheduled_at:
            return _later(run, run.scheduled_at)
        end = end_of_schedule(root)
        if end is not None and now >= end:
            run_skip(run, SkipReason.PAST_END_DATE, now=now)
            return None
        return begin_build(run, now=now, send=send)
    if run.status == RunStatus.BUILDING:
        # The build lease expired: the old attempt is never published; a new attempt starts.
        return begin_build(run, now=now, send=send)
    # READY_TO_DISPATCH / DISPATCHING whose trigger was lost or whose worker died: emit again, a bounded
    # number of times (each hand-out is an attempt); then the run ends FAILED with what was sent kept.
    if dispatch_attempts_exhausted(run):
        run_dispatch_give_up(run, now=now)
        return None
    run.dispatch_attempts += 1
    CampaignRun.objects.filter(pk=run.pk).update(next_check_at=now + LEASE, dispatch_attempts=run.dispatch_attempts)
    transaction.on_commit(lambda: send("dispatch", run.id))
    log_run("dispatch re-emitted", run)
    return None


def _later(run: CampaignRun, at: datetime) -> None:
    CampaignRun.objects.filter(pk=run.pk, status=run.status).update(next_check_at=at)


def _child_step(run: CampaignRun, root: ChainNode, now: datetime, send: Send) -> None:
    source = run.source_run
    if source.status in (RunStatus.SKIPPED, RunStatus.FAILED):
        run_skip(run, SkipReason.SOURCE_SKIPPED, now=now)
        return
    root_run = CampaignRun.objects.get(pk=run.period_key)
    next_period = period_end(root, root_run)
    if next_period is not None and now >= next_period:
        run_skip(run, SkipReason.NEW_PERIOD, now=now)
        return
    if source.started_at is None:
        # AFTER_INTERVAL / FIXED_DAY: nothing is known until the source really starts.
        if source.scheduled_at is not None and now > source.scheduled_at + RECHECK:
            _wait(run, WaitReason.SOURCE_PROCESSING, now, now + RECHECK)
        else:
            _later(run, max(now + RECHECK, source.scheduled_at or now))
        return
    if run.planned_at is None:
        try:
            cs = sched.parse_child_schedule(
                _snapshot_inheritance(run) or (run.campaign.inheritance or {}).get("schedule")
            )
        except sched.ScheduleErrors:
            run_skip(run, SkipReason.NO_FEASIBLE_RUN, now=now)
            return
        tz = sched.workspace_zone(root.workspace)
        planned = sched.plan_child(cs, source_at=source.started_at, next_root_at=next_period, tz=tz)
        if planned is None:
            run_skip(run, SkipReason.NO_FEASIBLE_RUN, now=now)
            return
        # Computed once: planned_at never moves when the run is postponed.
        CampaignRun.objects.filter(pk=run.pk, planned_at=None).update(
            planned_at=planned, scheduled_at=planned, wait_deadline_at=planned + WAIT_DEADLINE, next_check_at=planned
        )
        run.refresh_from_db()
    end = end_of_schedule(root)
    if end is not None and run.scheduled_at >= end:
        run_skip(run, SkipReason.PAST_END_DATE, now=now)
        return
    if now < run.scheduled_at:
        _later(run, run.scheduled_at)
        return
    if source.status != RunStatus.COMPLETED:
        if now >= run.wait_deadline_at:
            run_skip(run, SkipReason.SOURCE_TIMEOUT, now=now)
            return
        _wait(run, WaitReason.SOURCE_PROCESSING, now, min(now + RECHECK, run.wait_deadline_at))
        return
    if run.inherit_type == AudienceClass.FAILED_DELIVERY:
        report_end = delivery_report_end(source)
        if now < report_end and delivery_reports_pending(source):
            # A COMPLETED source is not settled delivery data: wait for its reports (never past the period).
            until = min(now + RECHECK, report_end, next_period or report_end)
            _wait(run, WaitReason.DELIVERY_DATA_PENDING, now, until)
            return
    begin_build(run, now=now, send=send)


def delivery_report_end(source: CampaignRun) -> datetime:
    """The end of the source run's delivery report window (``CHAIN_DELIVERY_REPORT_WINDOW_HOURS`` after it
    completed): a FAILED_DELIVERY follow-up freezes then with what is known."""
    return (source.completed_at or source.started_at) + timedelta(hours=settings.CHAIN_DELIVERY_REPORT_WINDOW_HOURS)


def _snapshot_inheritance(run: CampaignRun) -> dict | None:
    for item in (run.package.items if run.package else []) or []:
        if item.get("campaign_id") == run.campaign_id:
            return (item.get("inheritance") or {}).get("schedule")
    return None


def _wait(run: CampaignRun, reason: str, now: datetime, until: datetime) -> None:
    first = run.status != RunStatus.WAITING_SOURCE
    if first:
        run_apply(run, "wait_source", now=now, wait_reason=reason, next_check_at=until)
    else:
        CampaignRun.objects.filter(pk=run.pk, status=RunStatus.WAITING_SOURCE).update(
            wait_reason=reason, next_check_at=until
        )
    if first and run.postponement_notified_at is None:
        # Notified once: on first entering WAITING_SOURCE (a changed scheduled_at notifies again).
        CampaignRun.objects.filter(pk=run.pk).update(postponement_notified_at=now)
        log_run("run postponed", run, wait_reason=reason)
        _notify_postponed(run, reason)


def _notify_postponed(run: CampaignRun, reason: str) -> None:
    from django.urls import reverse

    from campaigns.notifications.services import campaign_recipients, notification_send

    campaign = ChainNode.objects.filter(pk=run.campaign_id).only("name", "created_by_id", "workspace_id").first()
    if not campaign:
        return
    notification_send(
        workspace=run.workspace_id,
        recipients=campaign_recipients(campaign),
        kind="chain_run_postponed",
        title=f"اجرای کمپین «{campaign.name}» به تعویق افتاد",
        body=f"دلیل: {WaitReason(reason).label if reason in WaitReason.values else reason}",
        link=reverse("chain-campaign-runs", args=[run.campaign_id]),
        dedupe_key=f"run_postponed:{run.pk}:{run.scheduled_at.isoformat() if run.scheduled_at else ''}",
    )


def begin_build(run: CampaignRun, *, now: datetime, send: Send) -> None:
    """Claim a new build attempt (the previous one, if any, is abandoned and never published)."""
    RunAudienceSnapshot.objects.filter(run=run, status=SnapshotStatus.BUILDING).update(status=SnapshotStatus.ABANDONED)
    attempt_no = RunAudienceSnapshot.objects.filter(run=run).count() + 1
    build_id = new_lease()
    RunAudienceSnapshot.objects.create(
        workspace_id=run.workspace_id, run=run, attempt_no=attempt_no, build_id=build_id, lease_expires_at=now + LEASE
    )
    if run_apply(
        run,
        "build",
        now=now,
        lease_token=build_id,
        lease_expires_at=now + LEASE,
        next_check_at=now + LEASE,
        wait_reason="",
    ):
        transaction.on_commit(lambda: send("build", run.id, str(build_id)))


# --------------------------------------------------------------------------- completion


def dispatched_runs_check(*, now: datetime) -> int:
    done = 0
    with transaction.atomic():
        runs = list(
            CampaignRun.objects.select_for_update(skip_locked=True)
            .filter(status=RunStatus.DISPATCHED, next_check_at__lte=now)
            .order_by("next_check_at", "id")[:BATCH]
        )
        for run in runs:
            if run_complete_if_done(run, now=now):
                done += 1
            else:
                CampaignRun.objects.filter(pk=run.pk).update(next_check_at=now + COMPLETION_RECHECK)
    return done
