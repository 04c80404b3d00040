"""Journey health: the tick's heartbeat and the stale queues (journeys.md "Health").

- ``heartbeat``: the scheduler's tick wrote ``PlatformHeartbeat(automation_tick)`` less than 5 minutes
  ago (only a problem while a campaign is active: without one the tick has nothing to do);
- ``due_unclaimed``: executions of active campaigns due for more than 5 minutes but not claimed (a send held
  by a daily limit spent today is not counted: the tick leaves it due on purpose);
- ``queued_stale``: executions claimed (queued) more than 5 minutes ago and never processed.

One report serves the staff JSON (all workspaces) and the pages' banner (one workspace).
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from django.utils import timezone

from automation.choices import DUE_STATUSES, ExecutionStatus
from automation.engine.scheduler import HEARTBEAT, daily_budget_left
from automation.models import Execution
from campaigns.choices import CampaignKind, CampaignStatus
from campaigns.models import Campaign, PlatformHeartbeat

STALE_HEARTBEAT = timedelta(minutes=5)
STALE_DUE = timedelta(minutes=5)
STALE_QUEUE = timedelta(minutes=5)


def due_unclaimed(executions, now: datetime):
    """Executions of running campaigns whose moment passed more than ``STALE_DUE`` ago and no tick claimed; a
    send of a campaign whose daily limit (its own or its workspace's) is spent today is not one: the tick leaves
    it due on purpose."""
    stale = executions.filter(
        campaign__status=CampaignStatus.ACTIVE, status__in=DUE_STATUSES, next_run_at__lt=now - STALE_DUE
    )
    waiting_sends = stale.filter(needs_budget=True).values("campaign_id").distinct()
    limited = [c.pk for c in Campaign.objects.filter(pk__in=waiting_sends) if daily_budget_left(c, now) == 0]
    return stale.exclude(needs_budget=True, campaign_id__in=limited) if limited else stale


def stale_queued(executions, now: datetime):
    """Executions claimed (queued) more than ``STALE_QUEUE`` ago that no worker has taken."""
    return executions.filter(status=ExecutionStatus.QUEUED, updated_at__lt=now - STALE_QUEUE)


def journey_health_report(*, now: datetime | None = None, workspace_id: int | None = None) -> dict[str, Any]:
    """``{"ok": bool, "checked_at", "checks": {name: {"ok": bool, ...}}}`` (workspace_id=None: every workspace)."""
    now = now or timezone.now()
    campaigns = Campaign.objects.filter(
        kind=CampaignKind.JOURNEY, status=CampaignStatus.ACTIVE, deleted_at__isnull=True
    )
    executions = Execution.objects.all()
    if workspace_id is not None:
        campaigns = campaigns.filter(workspace_id=workspace_id)
        executions = executions.filter(workspace_id=workspace_id)
    active = campaigns.exists()
    beat = PlatformHeartbeat.objects.filter(name=HEARTBEAT).values_list("beat_at", flat=True).first()
    age = int((now - beat).total_seconds()) if beat else None
    due = due_unclaimed(executions, now).count()
    queued = stale_queued(executions, now).count()
    checks = {
        "heartbeat": {
            "ok": not active or (age is not None and age <= STALE_HEARTBEAT.total_seconds()),
            "last_beat_at": beat.isoformat() if beat else None,
            "age_seconds": age,
            "active_campaigns": active,
        },
        "due_unclaimed": {"ok": due == 0, "count": due},
        "queued_stale": {"ok": queued == 0, "count": queued},
    }
    return {"ok": all(c["ok"] for c in checks.values()), "checked_at": now.isoformat(), "checks": checks}
