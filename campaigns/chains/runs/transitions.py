"""Run status changes: the FSM decides, a compare-and-set UPDATE persists, a log line records.

``run_apply`` (``campaigns.platform.fsm.fsm_apply`` non-strict) returns False when another process
changed the run first (the run is re-read; the caller moves on); it never overwrites.
"""

from __future__ import annotations

import logging
import uuid
from datetime import datetime, timedelta

from celery import current_app

from campaigns.chains.run_models import CampaignRun
from campaigns.platform.fsm import fsm_apply

log = logging.getLogger("campaigns.chains.runs")

LEASE = timedelta(minutes=10)  # an audience build or a dispatch renews it; past it the tick takes the run back

# Workers are handed runs by task name, so the services never import the task module.
RUN_TASKS = {
    "build": "campaigns.chain_run_build",
    "dispatch": "campaigns.chain_run_dispatch",
    "tick": "campaigns.chain_runs_tick",
}


def run_task_send(kind: str, *args) -> None:
    """The default way the scheduler and the build hand a run to a worker (call it after commit)."""
    current_app.signature(RUN_TASKS[kind]).delay(*args)


def log_run(event: str, run: CampaignRun, **extra) -> None:
    """Structured log: ids and counts only (never phone numbers, tokens or message text).

    Every line carries the dispatch attempt number and the people count (the frozen audience, null
    before the build); the build, dispatch, completion and failure lines add ``duration_ms``.
    """
    log.info(
        event,
        extra={
            "workspace_id": run.workspace_id,
            "campaign_id": run.campaign_id,
            "root_campaign_id": run.root_id,
            "period_key": run.period_key,
            "run_id": run.id,
            "source_run_id": run.source_run_id,
            "snapshot_id": run.target_snapshot_id,
            "status": run.status,
            "attempt": run.dispatch_attempts,
            "people": run.audience_count,
            **extra,
        },
    )


def run_apply(run: CampaignRun, transition: str, *, now: datetime | None = None, **fields) -> bool:
    """Apply ``run.<transition>()`` with CAS on (id, status, revision); False when not allowed or a lost race."""
    from_status = run.status
    if not fsm_apply(run, transition, values=fields, now=now, strict=False):
        return False
    log_run(f"run {transition}", run, from_status=from_status, to_status=run.status)
    return True


def duration_ms(since: datetime | None, now: datetime) -> int | None:
    return None if since is None else int((now - since).total_seconds() * 1000)


def new_lease() -> uuid.UUID:
    return uuid.uuid4()
