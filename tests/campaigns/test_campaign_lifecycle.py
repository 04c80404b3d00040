"""Direct lifecycle transitions respect approval: chain members and "needs approval" workspaces."""

import pytest

from campaigns.chains.errors import ChainMemberNeedsPackage
from campaigns.errors import ApprovalRequired
from campaigns.platform.errors import ValidationFailed
from campaigns.services.campaigns import campaign_transition

from ..conftest import make_campaign, make_chain_member

pytestmark = pytest.mark.django_db


def test_standalone_campaign_activates_directly(actor, workspace):
    campaign = make_campaign(workspace)
    assert campaign_transition(actor=actor, campaign_id=campaign.id, transition="activate").status == "active"


def test_chain_member_cannot_be_activated_directly(actor, workspace):
    campaign = make_chain_member(make_campaign(workspace))
    with pytest.raises(ChainMemberNeedsPackage):
        campaign_transition(actor=actor, campaign_id=campaign.id, transition="activate")


def test_workspace_needing_approval_refuses_direct_activation(actor, workspace):
    workspace.settings = {"campaigns_need_approval": True}
    workspace.save()
    campaign = make_campaign(workspace)
    with pytest.raises(ApprovalRequired):
        campaign_transition(actor=actor, campaign_id=campaign.id, transition="schedule")


def test_approval_is_not_a_lifecycle_transition(actor, workspace):
    campaign = make_campaign(workspace, status="submitted")
    with pytest.raises(ValidationFailed):
        campaign_transition(actor=actor, campaign_id=campaign.id, transition="approve")


def test_a_scheduled_chain_member_cannot_be_started_directly(actor, workspace):
    """The chain policy guards every requested start, not only a draft's."""
    campaign = make_chain_member(make_campaign(workspace, status="scheduled"))
    with pytest.raises(ChainMemberNeedsPackage):
        campaign_transition(actor=actor, campaign_id=campaign.id, transition="activate")
    campaign.refresh_from_db()
    assert campaign.status == "scheduled"
