"""Journey campaign update/delete and the one approval/chain guard on every activation path."""

import pytest

from automation.choices import ExecutionStatus
from automation.models import AutoEnrollRule, Execution
from automation.services.auto_enroll import auto_enroll_rule_set
from automation.services.campaigns import journey_campaign_transition
from automation.services.enrollment import enroll_subjects
from campaigns.choices import Role
from campaigns.models import Campaign, CampaignEvent
from tests.api_base import TenantIsolationCases
from tests.conftest import api_client_for, make_actor, make_chain_member, make_member, make_target

from .helpers import end_node, journey, linear_graph, setup_sms, sms_node

GRAPH = linear_graph(sms_node("a"), end_node())
pytestmark = pytest.mark.django_db


@pytest.fixture
def draft(actor, workspace):
    setup_sms(workspace)
    return journey(actor, GRAPH, activate=False, daily_limit=50)


def test_update_changes_only_the_fields_sent(workspace, owner, draft):
    client = api_client_for(owner, workspace)
    window = {"timezone": "Asia/Tehran", "days": {"sat": [["09:00", "18:00"]]}}
    response = client.patch(
        f"/api/v1/campaigns/{draft.id}/journey",
        {"name": " تازه ", "daily_limit": 80, "send_window": window, "description": "d"},
        format="json",
    )
    assert response.status_code == 200, response.content
    draft.refresh_from_db()
    assert (draft.name, draft.daily_limit, draft.description) == ("تازه", 80, "d")
    assert draft.send_window == window and draft.status == "draft"
    assert CampaignEvent.objects.filter(campaign=draft, type="updated").count() == 1


def test_update_never_changes_the_pinned_workflow_or_version(workspace, owner, draft):
    client = api_client_for(owner, workspace)
    before = (draft.journey.workflow_id, draft.journey.workflow_version_id, draft.name)
    for body in ({"workflow_id": 1, "name": "x"}, {"workflow_version_id": 1}):
        response = client.patch(f"/api/v1/campaigns/{draft.id}/journey", body, format="json")
        assert response.status_code == 400
        assert set(body) - {"name"} <= set(response.json()["error"]["details"])
    draft.refresh_from_db()
    draft.journey.refresh_from_db()
    assert (draft.journey.workflow_id, draft.journey.workflow_version_id, draft.name) == before


def test_update_validates_dates_limits_and_window(workspace, owner, draft):
    client = api_client_for(owner, workspace)
    url = f"/api/v1/campaigns/{draft.id}/journey"
    bad_dates = {"starts_at": "2030-01-02T00:00:00Z", "ends_at": "2030-01-01T00:00:00Z"}
    assert client.patch(url, bad_dates, format="json").status_code == 400
    assert client.patch(url, {"daily_limit": 0}, format="json").status_code == 400
    closed = {"timezone": "Asia/Tehran", "days": {}}
    assert client.patch(url, {"send_window": closed}, format="json").status_code == 400
    assert client.patch(url, {"name": "  "}, format="json").status_code == 400


def test_update_of_a_cancelled_campaign_is_409(actor, workspace, owner, draft):
    journey_campaign_transition(actor=actor, campaign_id=draft.id, action="cancel")
    response = api_client_for(owner, workspace).patch(
        f"/api/v1/campaigns/{draft.id}/journey", {"name": "x"}, format="json"
    )
    assert response.status_code == 409 and response.json()["error"]["code"] == "CAMPAIGN_CLOSED"


def test_delete_a_draft_cancels_its_pending_executions(actor, workspace, owner, draft):
    target = make_target(workspace)
    enroll_subjects(actor=actor, campaign_id=draft.id, target_ids=[target.id])
    auto_enroll_rule_set(actor=actor, campaign_id=draft.id, filters={"province": "Fars"})
    client = api_client_for(owner, workspace)
    assert client.delete(f"/api/v1/campaigns/{draft.id}/journey").status_code == 204
    assert client.get(f"/api/v1/campaigns/{draft.id}").status_code == 404
    assert Execution.objects.get(campaign_id=draft.id).status == ExecutionStatus.CANCELLED
    assert not AutoEnrollRule.objects.get(campaign_id=draft.id).enabled


def test_delete_of_a_started_campaign_is_409_telling_to_cancel(actor, workspace, owner, draft):
    journey_campaign_transition(actor=actor, campaign_id=draft.id, action="activate")
    response = api_client_for(owner, workspace).delete(f"/api/v1/campaigns/{draft.id}/journey")
    assert response.status_code == 409
    error = response.json()["error"]
    assert error["code"] == "CAMPAIGN_NOT_DRAFT" and error["details"]["cancel"].endswith("/journey/cancel")
    assert Campaign.objects.get(pk=draft.id).deleted_at is None


def test_viewer_cannot_update_or_delete(workspace, draft):
    viewer = api_client_for(make_member(workspace, Role.VIEWER), workspace)
    url = f"/api/v1/campaigns/{draft.id}/journey"
    assert viewer.patch(url, {"name": "x"}, format="json").status_code == 403
    assert viewer.delete(url).status_code == 403
    draft.refresh_from_db()
    assert draft.deleted_at is None and draft.name != "x"


def test_chain_member_is_edited_and_deleted_through_its_chain(workspace, owner, draft):
    make_chain_member(draft)
    client = api_client_for(owner, workspace)
    assert client.patch(f"/api/v1/campaigns/{draft.id}/journey", {"name": "x"}, format="json").status_code == 409
    assert client.delete(f"/api/v1/campaigns/{draft.id}/journey").status_code == 409


# --------------------------------------------------------------------------- the activation guard
def test_journey_activate_in_a_workspace_needing_approval_is_409(workspace, owner, draft):
    workspace.settings = {"campaigns_need_approval": True}
    workspace.save()
    response = api_client_for(owner, workspace).post(f"/api/v1/campaigns/{draft.id}/journey/activate")
    assert response.status_code == 409 and response.json()["error"]["code"] == "APPROVAL_REQUIRED"
    draft.refresh_from_db()
    assert draft.status == "draft"


def test_journey_activate_of_a_chain_member_is_409(workspace, owner, draft):
    make_chain_member(draft)
    response = api_client_for(owner, workspace).post(f"/api/v1/campaigns/{draft.id}/journey/activate")
    assert response.status_code == 409 and response.json()["error"]["code"] == "CHAIN_MEMBER"


class TestJourneyCampaignIsolation(TenantIsolationCases):
    detail_url = "/api/v1/campaigns/{id}/journey"
    update_payload = {"name": "x"}

    def make(self, workspace):
        actor = make_actor(workspace)
        setup_sms(workspace)
        return journey(actor, GRAPH, activate=False)

    def test_retrieve_other_workspace_is_404(self, setup):  # PATCH/DELETE only: read through campaigns/{id}
        client, own, foreign = setup
        assert client.get(f"/api/v1/campaigns/{own.id}").status_code == 200
        assert client.get(f"/api/v1/campaigns/{foreign.id}").status_code == 404

    def test_header_naming_a_workspace_you_do_not_belong_to_is_404(self, setup):
        client, own, foreign = setup
        response = client.patch(
            self.detail_url.format(id=own.id), {"name": "y"}, format="json", HTTP_X_WORKSPACE=foreign.workspace.slug
        )
        assert response.status_code == 404 and response.json()["error"]["code"] == "WORKSPACE_NOT_FOUND"
