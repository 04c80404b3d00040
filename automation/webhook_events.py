"""Outbound webhook event of journeys: ``enrollment.committed``, written once when an enrollment batch reaches
``committed`` (the conditional UPDATE that finishes it, in its transaction; a resumed or repeated finish fires
nothing)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from campaigns.platform.webhook_payloads import webhook_data
from campaigns.platform.webhooks import webhook_event_emit, webhook_wanted

ENROLLMENT_COMMITTED = "enrollment.committed"


@dataclass(frozen=True)
class EnrollmentCommittedData:
    """A reviewed enrollment batch was added to a journey campaign. `result` counts the batch's items by
    outcome (added, skipped, already_live, blacklisted, invalid, conflict_skipped, …); no target ids or numbers."""

    batch_id: int
    campaign_id: int
    source: str
    total: int
    result: dict[str, int]
    committed_at: datetime | None
    finished_at: datetime


def register() -> None:
    """From ``AutomationConfig.ready()``."""
    from campaigns.platform.webhooks import register_webhook_event

    register_webhook_event(ENROLLMENT_COMMITTED, "افزودن گروهی مخاطبان به سفر", EnrollmentCommittedData)


def enrollment_committed(*, batch, result: dict[str, int], finished_at: datetime) -> None:
    """The batch just moved to ``committed`` (in that transaction)."""
    if not webhook_wanted(batch.workspace_id, ENROLLMENT_COMMITTED):
        return
    data = EnrollmentCommittedData(
        batch_id=batch.id,
        campaign_id=batch.campaign_id,
        source=batch.source or "",
        total=batch.total or 0,
        result={str(k): int(v) for k, v in result.items()},
        committed_at=batch.committed_at,
        finished_at=finished_at,
    )
    webhook_event_emit(workspace_id=batch.workspace_id, type=ENROLLMENT_COMMITTED, data=webhook_data(data))
