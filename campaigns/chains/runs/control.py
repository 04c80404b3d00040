"""Chain pause / resume / stop effects on campaigns and runs (inside the chain control transaction).

Runs the caller's transaction, which already holds the root row lock — the
same lock the dispatch claim takes, so a run is either claimed before the
pause (it finishes sending) or skipped by it (never both).
"""

from __future__ import annotations

from datetime import datetime

from campaigns.chains.node_models import ChainNode
from campaigns.chains.run_models import CampaignRun
from campaigns.chains.runs.choices import NOT_STARTED, RunStatus, SkipReason
from campaigns.chains.runs.skips import run_skip
from campaigns.choices import CampaignStatus
from campaigns.platform.tenancy import Actor
from campaigns.services.lifecycle import campaign_status_change

SENDING = (RunStatus.DISPATCHING, RunStatus.DISPATCHED)
STOPPABLE = (CampaignStatus.SCHEDULED, CampaignStatus.ACTIVE, CampaignStatus.PAUSED)


def chain_control_effects(*, actor: Actor, root: ChainNode, nodes: list[ChainNode], action: str, now: datetime) -> None:
    if action in ("pause", "stop"):
        reason = SkipReason.CHAIN_PAUSED if action == "pause" else SkipReason.CHAIN_STOPPED
        for run in CampaignRun.objects.filter(root=root, status__in=NOT_STARTED, started_at=None).order_by("id"):
            run_skip(run, reason, now=now)
    for node in nodes:
        node.refresh_from_db()
        transition = None
        if action == "pause" and node.status == CampaignStatus.ACTIVE:
            transition = "pause"
        elif action == "resume" and node.status == CampaignStatus.PAUSED:
            transition = "resume"
        elif action == "stop" and node.status in STOPPABLE:
            # A campaign still sending finishes it (the completion function finishes the campaign after).
            if not CampaignRun.objects.filter(campaign=node, status__in=SENDING).exists():
                transition = "cancel"
        if transition is not None:
            campaign_status_change(
                campaign=node, transition=transition, actor=actor, event_data={"chain": action}, guarded=False, now=now
            )
