"""Browser campaign creation goes through the approval guard (it activates the campaign at once)."""

import pytest

from campaigns.chains.errors import ApprovalRequired
from campaigns.models import Campaign

from .conftest import make_account, make_browser_campaign

pytestmark = pytest.mark.django_db
LINKS = ["http://127.0.0.1:9/post/1"]


def test_browser_create_in_a_workspace_needing_approval_is_refused_and_rolled_back(actor, workspace):
    workspace.settings = {"campaigns_need_approval": True}
    workspace.save()
    with pytest.raises(ApprovalRequired):
        make_browser_campaign(actor, accounts=[make_account(workspace)], links=LINKS)
    assert not Campaign.objects.filter(workspace=workspace).exists()


def test_browser_create_elsewhere_activates_at_once(actor, workspace):
    campaign = make_browser_campaign(actor, accounts=[make_account(workspace)], links=LINKS)
    assert campaign.status == "active"


def test_browser_create_api_answers_409_approval_required(workspace, owner):
    from tests.conftest import api_client_for

    workspace.settings = {"campaigns_need_approval": True}
    workspace.save()
    account = make_account(workspace)
    body = {
        "kind": "browser",
        "name": "b",
        "platform": "demo",
        "accounts": [account.pk],
        "target_links": LINKS,
        "action": "like",
        "steps": [{"action": "goto"}, {"action": "click", "selector": "#like"}],
    }
    response = api_client_for(owner, workspace).post("/api/v1/campaigns", body, format="json")
    assert response.status_code == 409, response.content
    assert response.json()["error"]["code"] == "APPROVAL_REQUIRED"
