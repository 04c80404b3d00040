"""Dispatching a frozen audience into the engine.

The claim READY_TO_DISPATCH → DISPATCHING happens in one transaction that
locks the chain root row, checks ``chain_control`` NORMAL and bumps
``chain_revision`` — chain pause writes the same row, so pause and claim are
serialised. ``started_at`` is set once by the first claim ("started" = this
durable claim, before any command); a reclaim after a crash keeps it.

Enrollment goes chunk by chunk in audience order. Each chunk, in one
transaction: insert the deterministic link keys (run + target + action code;
``ON CONFLICT DO NOTHING``), ask the engine (through ``campaigns.platform.registry``)
to create executions only for links that have none, store the execution ids
and advance the cursor. A replayed chunk finds its links filled and creates
nothing. After the last chunk: DISPATCHED + ``dispatched_at`` +
``expected_execution_count``, then the shared completion function.

A run whose dispatch keeps failing (every attempt's lease passes unfinished) is given up by the
scheduler after ``CHAIN_RUN_DISPATCH_MAX_ATTEMPTS`` attempts: ``run_dispatch_give_up`` ends it FAILED
with what was sent kept (``expected_execution_count`` = the executions created), skips its followers
and lets the campaign finish by the usual rule.
"""

from __future__ import annotations

from datetime import datetime

from django.conf import settings
from django.db import transaction
from django.db.models import Count, F
from django.utils import timezone

from campaigns.chains.choices import ChainControl
from campaigns.chains.node_models import ChainNode
from campaigns.chains.run_models import CampaignRun, RunAudienceMember, RunExecution
from campaigns.chains.runs.choices import NOT_STARTED, RunStatus, RunType, SkipReason
from campaigns.chains.runs.completion import chain_finish_if_done, run_complete_if_done
from campaigns.chains.runs.skips import run_notify, run_skip, skip_descendants
from campaigns.chains.runs.transitions import LEASE, duration_ms, log_run, new_lease, run_apply
from campaigns.choices import CampaignStatus
from campaigns.platform.jalali import fa_digits
from campaigns.platform.registry import campaign_journey, run_engine
from campaigns.services.lifecycle import campaign_status_change

CHUNK = 200


def action_code(campaign: ChainNode) -> str:
    """The node's stable chain code, given when its chain was validated (``chain_codes_assign``).

    A node of a chain approved before codes existed has none: its channel or pinned journey version stands in.
    """
    if campaign.chain_code:
        return campaign.chain_code
    action = campaign.chain_action or {}
    code = action.get("code") or action.get("channel")
    journey = None if code else campaign_journey(campaign)
    if journey:
        code = f"journey-v{journey['version_id']}"
    return str(code or "action")[:60]


def run_action_code(run: CampaignRun) -> str:
    """The code this run's execution keys use: the one its first links were written with, if any (a run
    never changes code half-way, so a replay finds its keys), else the node's ``action_code``."""
    first = RunExecution.objects.filter(run=run).order_by("id").values_list("action_code", flat=True).first()
    return first or action_code(run.campaign)


def execution_key(run_id: int, target_id: int, code: str) -> str:
    return f"run:{run_id}:target:{target_id}:action:{code}"


def run_claim(run_id: int, *, now: datetime) -> CampaignRun | None:
    """The durable start of sending, serialised with chain pause on the root row. None = not ours to send."""
    with transaction.atomic():
        run = CampaignRun.objects.select_related("campaign").get(pk=run_id)
        root = ChainNode.objects.select_for_update().get(pk=run.root_id or run.campaign_id)
        run = CampaignRun.objects.select_for_update().select_related("campaign").get(pk=run_id)
        if run.status == RunStatus.DISPATCHING:
            if run.lease_expires_at and run.lease_expires_at > now:
                return None  # a live worker is sending it
        elif run.status != RunStatus.READY_TO_DISPATCH:
            return None
        elif root.chain_control != ChainControl.NORMAL:
            return None
        ChainNode.objects.filter(pk=root.pk).update(chain_revision=F("chain_revision") + 1)
        lease = new_lease()
        if not run_apply(
            run,
            "claim",
            now=now,
            started_at=run.started_at or now,
            lease_token=lease,
            lease_expires_at=now + LEASE,
            next_check_at=now + LEASE,
        ):
            return None
        _campaign_started(run.campaign)
        if run.run_type == RunType.SCHEDULED and run.root_id == run.campaign_id:
            _close_old_periods(run, now)
    return run


def _campaign_started(campaign: ChainNode) -> None:
    """First run start → IN_PROGRESS (``active``), which holds between periods."""
    campaign.refresh_from_db()
    if campaign.status == CampaignStatus.SCHEDULED:
        # The run of an approved chain package: no request guard.
        campaign_status_change(
            campaign=campaign, transition="activate", event_data={"reason": "FIRST_RUN_STARTED"}, guarded=False
        )


def _close_old_periods(root_run: CampaignRun, now: datetime) -> None:
    """A root run that starts sending opens a new period: unsent child runs of older periods are SKIPPED."""
    older_periods = CampaignRun.objects.filter(
        campaign_id=root_run.campaign_id, run_type=RunType.SCHEDULED, planned_at__lt=root_run.planned_at
    ).values("period_key")
    old = CampaignRun.objects.filter(
        root_id=root_run.root_id, run_type=RunType.INHERITED, status__in=NOT_STARTED, period_key__in=older_periods
    )
    for run in old.order_by("id"):
        run_skip(run, SkipReason.NEW_PERIOD, now=now)


def run_dispatch(*, run_id: int, now: datetime | None = None) -> str:
    now = now or timezone.now()
    began = timezone.now()
    run = run_claim(run_id, now=now)
    if run is None:
        return "not_claimed"
    engine = run_engine()
    if engine is None:
        raise RuntimeError("no run engine registered")
    code = run_action_code(run)
    members = RunAudienceMember.objects.filter(build_id=run.target_snapshot.build_id, is_control=False).order_by("id")
    while True:
        chunk = list(members.filter(id__gt=run.cursor).values_list("id", "target_id")[:CHUNK])
        if not chunk:
            break
        with transaction.atomic():
            locked = CampaignRun.objects.select_for_update().select_related("campaign").get(pk=run.pk)
            if locked.status != RunStatus.DISPATCHING or locked.lease_token != run.lease_token:
                return "lease_lost"
            _enroll_chunk(locked, code, [t for _, t in chunk], engine, now)
            CampaignRun.objects.filter(pk=run.pk).update(
                cursor=chunk[-1][0], lease_expires_at=now + LEASE, next_check_at=now + LEASE
            )
            run.cursor = chunk[-1][0]
    with transaction.atomic():
        run = CampaignRun.objects.select_for_update().get(pk=run.pk)
        if run.status != RunStatus.DISPATCHING:
            return "lease_lost"
        counts = _sent_counts(run)
        run_apply(run, "dispatched", now=now, dispatched_at=now, next_check_at=now, **counts)
        log_run(
            "run dispatched",
            run,
            expected=counts["expected_execution_count"],
            refused=counts["refused_count"],
            duration_ms=duration_ms(began, timezone.now()),
        )
    run_complete_if_done(run, now=now)
    return "dispatched"


def _sent_counts(run: CampaignRun) -> dict:
    """The run's executions (what it expects) and refusals (in all and by reason); the lease ends with them."""
    links = RunExecution.objects.filter(run=run)
    reasons = dict(links.exclude(refused_reason="").values_list("refused_reason").annotate(n=Count("id")).order_by())
    return {
        "expected_execution_count": links.filter(execution_id__isnull=False).count(),
        "refused_count": sum(reasons.values()),
        "refused_reasons": reasons,
        "lease_token": None,
        "lease_expires_at": None,
    }


def dispatch_attempts_exhausted(run: CampaignRun) -> bool:
    return run.dispatch_attempts >= settings.CHAIN_RUN_DISPATCH_MAX_ATTEMPTS


def run_dispatch_give_up(run: CampaignRun, *, now: datetime) -> bool:
    """FAILED after the last dispatch attempt (call with the run row locked): what was sent stays sent."""
    counts = _sent_counts(run)
    sent = counts["expected_execution_count"]
    sendable = (run.audience_count or 0) - run.control_count
    reason = f"DISPATCH_FAILED: {run.dispatch_attempts} attempts, {sent} of {sendable} sent"
    if not run_apply(run, "fail", now=now, failure_reason=reason[:200], next_check_at=None, completed_at=now, **counts):
        return False
    log_run("run failed: dispatch attempts exhausted", run, sent=sent, duration_ms=duration_ms(run.started_at, now))
    skip_descendants(run, now=now)
    run_notify(
        run,
        kind="chain_run_failed",
        title="اجرای کمپین «{name}» ناموفق ماند",
        body=(
            f"ارسال پس از {fa_digits(run.dispatch_attempts)} تلاش متوقف شد؛ "
            f"{fa_digits(sent)} نفر از {fa_digits(sendable)} نفر پیام گرفتند و دنباله‌های این اجرا رد شدند."
        ),
    )
    chain_finish_if_done(root_id=run.root_id or run.campaign_id, now=now)
    return True


def _enroll_chunk(run: CampaignRun, code: str, target_ids: list[int], engine, now: datetime) -> None:
    RunExecution.objects.bulk_create(
        [
            RunExecution(
                workspace_id=run.workspace_id,
                run=run,
                target_id=tid,
                action_code=code,
                key=execution_key(run.id, tid, code),
            )
            for tid in target_ids
        ],
        ignore_conflicts=True,
    )
    todo = list(RunExecution.objects.filter(run=run, target_id__in=target_ids, execution_id=None, refused_reason=""))
    if not todo:
        return  # replay: every link already has its execution
    result = engine.enroll(
        campaign=run.campaign,
        target_ids=[link.target_id for link in todo],
        now=now,
        action=run.campaign.chain_action,
    )
    for link in todo:
        kind, value = result.get(link.target_id, ("refused", "unknown"))
        if kind == "execution":
            RunExecution.objects.filter(pk=link.pk, execution_id=None).update(execution_id=value)
        else:
            RunExecution.objects.filter(pk=link.pk, execution_id=None).update(refused_reason=str(value)[:40])
