"""A person's request to change a campaign's status. Each kind is created by its channel's service
(``campaigns.platform.registry``); the status itself changes only in ``campaigns.services.lifecycle``."""

from campaigns.models import Campaign
from campaigns.platform.errors import StaleRevision, ValidationFailed
from campaigns.platform.permissions import Perm
from campaigns.platform.tenancy import Actor, get_scoped
from campaigns.services.lifecycle import campaign_status_change

# Lifecycle transitions. Approval (submit/approve/reject/withdraw) has its own services in
# campaigns/chains/services/approval.py, for single campaigns and chain packages alike.
CAMPAIGN_TRANSITIONS = {"schedule", "activate", "pause", "resume", "complete", "cancel"}


def campaign_transition(*, actor: Actor, campaign_id: int, transition: str, expected_revision: int | None = None):
    """Apply one named FSM transition (schedule, activate, pause, resume, complete, cancel).

    The lifecycle's policies decide (a chain member's start → 409, a chain root's control → chain control).
    """
    actor.require(Perm.MANAGE_CAMPAIGNS)
    if transition not in CAMPAIGN_TRANSITIONS:
        raise ValidationFailed.field("transition", "تغییر وضعیت ناشناخته است.")
    campaign = get_scoped(Campaign, actor.workspace, campaign_id)
    if expected_revision is not None and campaign.revision != expected_revision:
        raise StaleRevision(details={"current_revision": campaign.revision})
    return campaign_status_change(campaign=campaign, transition=transition, actor=actor)
