"""Campaign lifecycle writes. Each kind is created by its channel's service (``campaigns.platform.registry``)."""

from django.db import transaction

from campaigns.chains.guards import assert_can_activate_directly, route_campaign_control
from campaigns.choices import CampaignStatus
from campaigns.events import campaign_status_changed_event
from campaigns.models import Campaign
from campaigns.platform.errors import StaleRevision, ValidationFailed
from campaigns.platform.fsm import fsm_apply
from campaigns.platform.permissions import Perm
from campaigns.platform.tenancy import Actor, get_scoped

# Lifecycle transitions. Approval (submit/approve/reject/withdraw) has its own services in
# campaigns/chains/services/approval.py, for single campaigns and chain packages alike.
CAMPAIGN_TRANSITIONS = {"schedule", "activate", "pause", "resume", "complete", "cancel"}


def campaign_transition(*, actor: Actor, campaign_id: int, transition: str, expected_revision: int | None = None):
    """Apply one named FSM transition (activate, pause, resume, complete, cancel)."""
    actor.require(Perm.MANAGE_CAMPAIGNS)
    if transition not in CAMPAIGN_TRANSITIONS:
        raise ValidationFailed.field("transition", "تغییر وضعیت ناشناخته است.")
    campaign = get_scoped(Campaign, actor.workspace, campaign_id)
    if expected_revision is not None and campaign.revision != expected_revision:
        raise StaleRevision(details={"current_revision": campaign.revision})
    if transition in {"schedule", "activate"} and campaign.status == CampaignStatus.DRAFT:
        assert_can_activate_directly(campaign)  # chain members and "needs approval" workspaces go via approval
    if transition in {"pause", "resume", "cancel"}:
        routed = route_campaign_control(actor=actor, campaign=campaign, action=transition)  # root → chain control
        if routed is not None:
            return routed

    def record(from_status: str, to_status: str) -> None:
        campaign_status_changed_event(campaign=campaign, from_status=from_status, to_status=to_status, actor=actor.user)

    with transaction.atomic():
        return fsm_apply(campaign, transition, on_applied=record)
