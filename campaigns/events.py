"""Append-only history rows of a campaign: one function per ``CampaignEventType`` (the only writer).

``campaign_status_changed_event`` is called by the lifecycle (``campaigns/services/lifecycle.py``) only.
"""

from dataclasses import dataclass
from typing import Any

from campaigns.choices import CampaignEventType as T
from campaigns.choices import WorkspaceSettingsEventType
from campaigns.models import Campaign, CampaignEvent, WorkspaceSettingsEvent
from campaigns.platform.events import event_write, event_write_unless_repeated
from campaigns.platform.webhook_payloads import webhook_data
from campaigns.platform.webhooks import webhook_event_emit

STATUS_CHANGED_EVENT = "campaign.status_changed"


@dataclass(frozen=True)
class CampaignStatusChangedData:
    """A campaign's status changed (a person's action, the scheduler or a chain run's end)."""

    campaign_id: int
    name: str
    kind: str
    from_status: str
    to_status: str


@dataclass(frozen=True)
class WebhookTestData:
    """The test event sent from the webhooks page or `POST /webhooks/{id}/test`, to that endpoint only."""

    webhook_id: int


def _write(campaign: Campaign, type: str, *, actor=None, data: dict[str, Any] | None = None, **fields) -> CampaignEvent:
    return event_write(
        CampaignEvent,
        workspace_id=campaign.workspace_id,
        campaign=campaign,
        type=type,
        actor=actor,
        data=data,
        **fields,
    )


def campaign_status_changed_event(
    *, campaign: Campaign, from_status: str, to_status: str, actor=None, data: dict[str, Any] | None = None
) -> CampaignEvent:
    event = _write(campaign, T.STATUS_CHANGED, actor=actor, data=data, from_status=from_status, to_status=to_status)
    data = CampaignStatusChangedData(
        campaign_id=campaign.id, name=campaign.name, kind=campaign.kind, from_status=from_status, to_status=to_status
    )  # in this transaction: the outbox row commits with the event
    webhook_event_emit(workspace_id=campaign.workspace_id, type=STATUS_CHANGED_EVENT, data=webhook_data(data))
    return event


def campaign_updated_event(*, campaign: Campaign, actor, fields: list[str]) -> CampaignEvent:
    return _write(campaign, T.UPDATED, actor=actor, data={"fields": sorted(fields)})


def campaign_deleted_event(*, campaign: Campaign, actor) -> CampaignEvent:
    return _write(campaign, T.DELETED, actor=actor)


def campaign_executions_controlled_event(
    *, campaign: Campaign, actor, action: str, counts: dict[str, Any]
) -> CampaignEvent:
    """A bulk action on the campaign's executions: one row per request (``executions_<action>``)."""
    return _write(campaign, f"executions_{action}", actor=actor, data={"action": action, **counts})


def campaign_tick_failed_event(*, campaign: Campaign, step: str, error: str) -> CampaignEvent | None:
    """The scheduler's step failed for this campaign: one row per change, not one per tick."""
    return _unless_repeated(campaign, T.TICK_FAILED, {"step": step, "error": error})


def campaign_tick_skipped_event(*, campaign: Campaign, reason: str) -> CampaignEvent | None:
    """The scheduler skipped this campaign (e.g. its channel is unusable): one row per change."""
    return _unless_repeated(campaign, T.TICK_SKIPPED, {"reason": reason})


def _unless_repeated(campaign: Campaign, type: str, data: dict[str, Any]) -> CampaignEvent | None:
    return event_write_unless_repeated(
        CampaignEvent,
        scope={"campaign_id": campaign.id},
        workspace_id=campaign.workspace_id,
        campaign=campaign,
        type=type,
        data=data,
    )


def workspace_settings_changed_event(
    *, workspace_id: int, actor, before: dict[str, Any], after: dict[str, Any]
) -> WorkspaceSettingsEvent:
    """A change of the workspace's settings: the keys that changed, with their values before and after
    (``None``: the key was absent, i.e. its default)."""
    return event_write(
        WorkspaceSettingsEvent,
        workspace_id=workspace_id,
        type=WorkspaceSettingsEventType.CHANGED,
        actor=actor,
        data={"before": before, "after": after},
    )
