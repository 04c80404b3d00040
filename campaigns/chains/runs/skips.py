"""Skipping runs: a skipped or failed run gives no audience, so its descendants in the period are skipped too."""

from __future__ import annotations

from datetime import datetime

from campaigns.chains.run_models import CampaignRun
from campaigns.chains.runs.choices import NOT_STARTED, SkipReason
from campaigns.chains.runs.transitions import run_apply


def run_skip(run: CampaignRun, reason: str, *, now: datetime) -> bool:
    """SKIPPED with a reason (never a run that started sending), then SOURCE_SKIPPED down the period."""
    done = run_apply(
        run, "skip", now=now, skip_reason=reason, next_check_at=None, lease_token=None, lease_expires_at=None
    )
    if done:
        skip_descendants(run, now=now)
        if reason not in QUIET_SKIPS:
            _notify_skipped(run, reason)
    return done


# Skips staff caused themselves (pause/stop), that follow a skip already told about, or that the approver
# was warned of (late approval: NO_FEASIBLE_RUN_IN_CURRENT_PERIOD) are not notified.
QUIET_SKIPS = {SkipReason.SOURCE_SKIPPED, SkipReason.CHAIN_PAUSED, SkipReason.CHAIN_STOPPED, SkipReason.APPROVED_LATE}


def _notify_skipped(run: CampaignRun, reason: str) -> None:
    label = SkipReason(reason).label if reason in SkipReason.values else reason
    run_notify(run, kind="chain_run_skipped", title="اجرای کمپین «{name}» رد شد", body=f"دلیل: {label}")


def run_notify(run: CampaignRun, *, kind: str, title: str, body: str) -> None:
    """Tell the campaign's owner about this run once (``title`` may name the campaign as ``{name}``)."""
    from django.urls import reverse

    from campaigns.chains.node_models import ChainNode
    from campaigns.notifications.services import campaign_recipients, notification_send

    campaign = ChainNode.objects.filter(pk=run.campaign_id).first()
    if campaign is None:
        return
    notification_send(
        workspace=run.workspace_id,
        recipients=campaign_recipients(campaign),
        kind=kind,
        title=title.format(name=campaign.name),
        body=body,
        link=reverse("chain-campaign-runs", args=[run.campaign_id]),
        dedupe_key=f"{kind.removeprefix('chain_')}:{run.pk}",
    )


def skip_descendants(run: CampaignRun, *, now: datetime) -> None:
    for child in CampaignRun.objects.filter(source_run=run, status__in=NOT_STARTED):
        run_skip(child, SkipReason.SOURCE_SKIPPED, now=now)
