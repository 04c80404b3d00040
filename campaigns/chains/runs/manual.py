"""Manual runs of a chain root (chains.md "Runs": run_type MANUAL — "run now" — and RERUN).

A manual run sends the root's campaign to its audience of the moment — the same build, control split and
dispatch as a scheduled run — but it opens no period (its ``period_key`` stays empty): no child run is
created for it, so the chain's children never inherit from it (the spec: MANUAL/RERUN do not trigger
children; the API says so). A child is never run on its own (its audience comes from its source's run): 409.

A RERUN sends an earlier run's frozen audience again (the same people, the same control split), with
the same rules and no period either.

Both are allowed on an approved chain that is running normally (not paused or stopped, not finished), before the
schedule's end date, while no other run of the campaign is being built or sent.
"""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone

from campaigns.chains.approval_selectors import load_chain
from campaigns.chains.choices import ChainControl
from campaigns.chains.errors import (
    ChainControlInvalid,
    ChildRunsWithItsSource,
    NotChainRoot,
    RunInProgress,
    RunNotFinished,
    ScheduleEnded,
)
from campaigns.chains.node_models import ChainNode
from campaigns.chains.nodes import node_get
from campaigns.chains.run_models import CampaignRun
from campaigns.chains.runs.choices import RunStatus, RunType
from campaigns.chains.runs.scheduler import end_of_schedule, root_run_create
from campaigns.chains.runs.transitions import log_run, run_task_send
from campaigns.chains.services.common import bump_chain, check_chain_revision, lock_roots
from campaigns.chains.tree import chain_state
from campaigns.choices import CampaignStatus
from campaigns.platform.permissions import Perm
from campaigns.platform.tenancy import Actor, get_scoped, scoped

# A run in one of these is building its audience or sending: a second one would send in parallel.
BUSY = (RunStatus.BUILDING, RunStatus.READY_TO_DISPATCH, RunStatus.DISPATCHING)
# A run that ran to its end (a FAILED run keeps what it sent) may be run again with its frozen audience.
RERUNNABLE = (RunStatus.COMPLETED, RunStatus.FAILED)
RUNNING = (CampaignStatus.SCHEDULED, CampaignStatus.ACTIVE)
CHILDREN_NOT_TRIGGERED = "اجرای دستی فقط همین کمپین را اجرا می‌کند؛ زیرکمپین‌های زنجیره از آن ارث نمی‌برند."


def manual_run_create(*, actor: Actor, campaign_id: int, expected_chain_revision: int | None) -> CampaignRun:
    """Create a MANUAL run of a chain root, due now; the runs tick builds and sends it right after commit."""
    actor.require(Perm.MANAGE_CAMPAIGNS)
    campaign = node_get(actor.workspace, campaign_id)
    return _root_run_now(actor, campaign, expected_chain_revision, RunType.MANUAL)


def rerun_create(*, actor: Actor, run_id: int, expected_chain_revision: int | None) -> CampaignRun:
    """Create a RERUN of an earlier run of a chain root: its frozen audience, sent again now (no period).

    Only a root's run that ran to its end (COMPLETED or FAILED, audience frozen) is run again; a child's run
    never is (its audience is a class of its source's run)."""
    actor.require(Perm.MANAGE_CAMPAIGNS)
    runs = scoped(CampaignRun, actor.workspace).select_related("campaign")
    earlier = get_scoped(CampaignRun, actor.workspace, run_id, queryset=runs)
    if earlier.run_type == RunType.INHERITED:
        raise ChildRunsWithItsSource(details={"root_campaign_id": earlier.root_id})
    if earlier.status not in RERUNNABLE or earlier.target_snapshot_id is None:
        raise RunNotFinished(details={"run_id": earlier.id, "status": earlier.status})
    return _root_run_now(actor, earlier.campaign, expected_chain_revision, RunType.RERUN, source_run=earlier)


def _root_run_now(
    actor: Actor,
    campaign: ChainNode,
    expected_chain_revision: int | None,
    run_type: str,
    source_run: CampaignRun | None = None,
) -> CampaignRun:
    if campaign.root_id is None:
        raise NotChainRoot("اجرای دستی برای کمپین ریشه یک زنجیره تأییدشده است.")
    if campaign.root_id != campaign.id:
        raise ChildRunsWithItsSource(details={"root_campaign_id": campaign.root_id})
    now = timezone.now()
    with transaction.atomic():
        root = lock_roots(actor, [campaign.id])[campaign.id]
        check_chain_revision(root, expected_chain_revision)
        if chain_state(load_chain(actor, root)) != "locked":
            raise ChainControlInvalid("اجرای دستی فقط برای زنجیره تأییدشده و تمام‌نشده ممکن است.")
        if root.chain_control != ChainControl.NORMAL or root.status not in RUNNING:
            raise ChainControlInvalid(
                "زنجیره متوقف یا کمپین ریشه پایان‌یافته است؛ اجرای دستی ساخته نمی‌شود.",
                details={"chain_control": root.chain_control, "status": root.status},
            )
        end = end_of_schedule(root)
        if end is not None and now >= end:
            raise ScheduleEnded(details={"end_at": end.isoformat()})
        busy = CampaignRun.objects.filter(campaign=root, status__in=BUSY).values_list("id", flat=True).first()
        if busy is not None:
            raise RunInProgress(details={"run_id": busy})
        run = root_run_create(root, run_type=run_type, at=now, source_run=source_run)
        bump_chain(root.id)
        log_run(f"{run_type.lower()} run created", run, actor_id=actor.user.pk if actor.user else None)
        transaction.on_commit(lambda: run_task_send("tick"))
    return run
