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
    return done


def skip_descendants(run: CampaignRun, *, now: datetime) -> None:
    for child in CampaignRun.objects.filter(source_run=run, status__in=NOT_STARTED):
        run_skip(child, SkipReason.SOURCE_SKIPPED, now=now)
