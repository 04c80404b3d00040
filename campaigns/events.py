"""Append-only history rows for campaigns (one writer, Saleor-style)."""

from typing import Any

from campaigns.models import Campaign, CampaignEvent


def campaign_status_changed_event(
    *, campaign: Campaign, from_status: str, to_status: str, actor=None, data: dict[str, Any] | None = None
) -> CampaignEvent:
    return CampaignEvent.objects.create(
        workspace_id=campaign.workspace_id,
        campaign=campaign,
        type="status_changed",
        from_status=from_status,
        to_status=to_status,
        actor=actor,
        data=data or {},
    )


def campaign_event(*, campaign: Campaign, type: str, actor=None, data: dict[str, Any] | None = None) -> CampaignEvent:
    """Any other audited campaign action (e.g. a bulk action on its executions: one row per request)."""
    return CampaignEvent.objects.create(
        workspace_id=campaign.workspace_id, campaign=campaign, type=type, actor=actor, data=data or {}
    )
