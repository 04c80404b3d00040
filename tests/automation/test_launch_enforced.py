"""The launch check is enforced by the services, not only by the pages' disabled buttons (docs/journeys.md
"Launch check"): Start and a standalone campaign's Approve answer 409 ``LAUNCH_BLOCKED`` with the blockers
(API and pages alike) and change nothing; warnings never refuse; once the cause is fixed the same request
goes through. The schema types the blockers of the refusal."""

import pytest
from drf_spectacular.generators import SchemaGenerator

from automation.services.enrollment import enroll_subjects
from campaigns.choices import CampaignStatus, Role
from campaigns.models import CampaignEvent
from sms.choices import LineKind
from sms.models import SmsProviderAccount
from tests.automation.helpers import end_node, journey, linear_graph, setup_sms, sms_node
from tests.conftest import api_client_for, make_member, make_target


@pytest.fixture
def advertising(workspace):
    """An advertising line: a text to several numbers without the opt-out line is a blocker."""
    settings = setup_sms(workspace)
    SmsProviderAccount.objects.filter(pk=settings.primary_account_id).update(line_kind=LineKind.ADVERTISING)
    return settings.primary_account_id


def _blocked_draft(actor, workspace):
    campaign = journey(actor, linear_graph(sms_node("a", body="تخفیف ویژه"), end_node()), activate=False)
    enroll_subjects(actor=actor, campaign_id=campaign.id, target_ids=[make_target(workspace).id for _ in range(2)])
    return campaign


def test_api_start_is_refused_with_the_blockers_then_starts_once_fixed(api, actor, workspace, advertising):
    campaign = _blocked_draft(actor, workspace)
    events = CampaignEvent.objects.filter(campaign=campaign).count()
    response = api.post(f"/api/v1/campaigns/{campaign.id}/journey/activate")
    assert response.status_code == 409
    error = response.json()["error"]
    assert error["code"] == "LAUNCH_BLOCKED"
    assert [b["code"] for b in error["details"]["blockers"]] == ["opt_out_missing"]
    assert "لغو۱۱" in error["details"]["blockers"][0]["message"] and "لغو۱۱" in error["message"]
    campaign.refresh_from_db()
    assert campaign.status == CampaignStatus.DRAFT
    assert CampaignEvent.objects.filter(campaign=campaign).count() == events

    SmsProviderAccount.objects.filter(pk=advertising).update(line_kind=LineKind.SERVICE)  # a service line: no rule
    response = api.post(f"/api/v1/campaigns/{campaign.id}/journey/activate")
    assert response.status_code == 200 and response.json()["status"] == CampaignStatus.ACTIVE


def test_warnings_never_refuse_an_empty_journey_starts(api, actor, workspace):
    setup_sms(workspace)  # credit never read: the warning credit_unknown
    campaign = journey(actor, linear_graph(sms_node("a", body="سلام"), end_node()), activate=False)
    check = api.get(f"/api/v1/campaigns/{campaign.id}/journey/launch-check").json()
    assert check["blockers"] == [] and {w["code"] for w in check["warnings"]} >= {"empty_audience"}
    response = api.post(f"/api/v1/campaigns/{campaign.id}/journey/activate")
    assert response.status_code == 200 and response.json()["status"] == CampaignStatus.ACTIVE


def test_the_pages_start_is_refused_by_the_same_service(client, owner, actor, workspace, advertising):
    """A page opened before the blocker appeared still posts Start: the service refuses, the message names it."""
    campaign = _blocked_draft(actor, workspace)
    client.force_login(owner)
    response = client.post(f"/automation/campaigns/{campaign.id}/control/activate/", follow=True)
    campaign.refresh_from_db()
    assert campaign.status == CampaignStatus.DRAFT
    text = response.content.decode()
    assert "شروع ممکن نیست" in text and "لغو۱۱" in text


def test_api_single_approve_is_refused_while_a_blocker_stands(api, actor, workspace, advertising):
    workspace.settings = {"campaigns_need_approval": True}
    workspace.save()
    campaign = _blocked_draft(actor, workspace)
    assert api.post(f"/api/v1/campaign/{campaign.id}/submit", {}, format="json").status_code == 200
    approver = api_client_for(make_member(workspace, Role.ADMIN), workspace)
    response = approver.post(f"/api/v1/campaign/{campaign.id}/approve", {}, format="json")
    assert response.status_code == 409 and response.json()["error"]["code"] == "LAUNCH_BLOCKED"
    assert [b["code"] for b in response.json()["error"]["details"]["blockers"]] == ["opt_out_missing"]
    campaign.refresh_from_db()
    assert campaign.status == CampaignStatus.SUBMITTED

    SmsProviderAccount.objects.filter(pk=advertising).update(line_kind=LineKind.SERVICE)
    response = approver.post(f"/api/v1/campaign/{campaign.id}/approve", {}, format="json")
    assert response.status_code == 200 and response.json()["status"] == CampaignStatus.SCHEDULED


def test_the_schema_types_the_blockers_of_start_and_approve():
    schema = SchemaGenerator().get_schema(request=None, public=True)
    operations = {
        op["operationId"]: op for ops in schema["paths"].values() for op in ops.values() if "operationId" in op
    }
    for operation_id in ("journey_campaigns_transition", "campaign_approve", "chain_approval_approve"):
        conflict = operations[operation_id]["responses"]["409"]["content"]["application/json"]["schema"]
        assert conflict == {"$ref": "#/components/schemas/LaunchBlockedEnvelope"}, operation_id
    components = schema["components"]["schemas"]
    blockers = components["LaunchBlockedDetails"]["properties"]["blockers"]
    assert blockers["type"] == "array" and blockers["items"] == {"$ref": "#/components/schemas/LaunchBlocker"}
    assert set(components["LaunchBlocker"]["properties"]) == {"code", "message"}
