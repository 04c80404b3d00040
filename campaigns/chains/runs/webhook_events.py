"""Outbound webhook event of chain runs: ``chain.run_completed``, written once by the one completion function
(``completion.run_complete_if_done``) in the transaction of the run's DISPATCHED → COMPLETED compare-and-set."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from campaigns.chains.run_models import CampaignRun
from campaigns.platform.webhook_payloads import webhook_data
from campaigns.platform.webhooks import webhook_event_emit, webhook_wanted

RUN_COMPLETED = "chain.run_completed"


@dataclass(frozen=True)
class ChainRunCompletedData:
    """A run of a chain campaign finished processing its sends (every execution settled; delivery reports may
    still come). `run_type`: SCHEDULED (a root run) or INHERITED (a follow-up's)."""

    run_id: int
    campaign_id: int
    root_campaign_id: int | None
    source_run_id: int | None
    run_type: str
    audience_count: int | None
    expected_executions: int
    settled_executions: int
    started_at: datetime | None
    completed_at: datetime


def register() -> None:
    """From ``ChainsConfig.ready()``."""
    from campaigns.platform.webhooks import register_webhook_event

    register_webhook_event(RUN_COMPLETED, "پایان اجرای زنجیره", ChainRunCompletedData)


def run_completed(*, run: CampaignRun, expected: int, settled: int, completed_at: datetime) -> None:
    if not webhook_wanted(run.workspace_id, RUN_COMPLETED):
        return
    data = ChainRunCompletedData(
        run_id=run.id,
        campaign_id=run.campaign_id,
        root_campaign_id=run.root_id,
        source_run_id=run.source_run_id,
        run_type=run.run_type,
        audience_count=run.audience_count,
        expected_executions=expected,
        settled_executions=settled,
        started_at=run.started_at,
        completed_at=completed_at,
    )
    webhook_event_emit(workspace_id=run.workspace_id, type=RUN_COMPLETED, data=webhook_data(data))
