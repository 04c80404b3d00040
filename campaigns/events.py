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


def campaign_event_unless_repeated(*, campaign: Campaign, type: str, data: dict[str, Any]) -> CampaignEvent | None:
    """A system notice (the scheduler skipped or failed a campaign): one row per change, not one per tick.

    Nothing is written when the campaign's latest event is the same notice with the same data.
    """
    last = CampaignEvent.objects.filter(campaign_id=campaign.id).order_by("-id").values("type", "data").first()
    if last and last["type"] == type and last["data"] == data:
        return None
    return campaign_event(campaign=campaign, type=type, data=data)
