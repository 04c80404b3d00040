"""Browser campaigns and approval: in a workspace whose campaigns need approval a new browser campaign
stays a draft (no task is created) until it is submitted and approved; elsewhere it activates at once."""

import pytest
from django.utils import timezone

from campaigns.models import Campaign
from workers.models import BrowserTask
from workers.services.creation import due_platforms_create_tasks

from ..conftest import api_client_for, make_member
from .conftest import make_account, make_browser_campaign

pytestmark = pytest.mark.django_db
LINKS = ["http://127.0.0.1:9/post/1"]


def needs_approval(workspace) -> None:
    workspace.settings = {"campaigns_need_approval": True}
    workspace.save()


def test_browser_create_in_a_workspace_needing_approval_waits_as_a_draft(actor, workspace):
    needs_approval(workspace)
    campaign = make_browser_campaign(actor, accounts=[make_account(workspace)], links=LINKS)
    assert campaign.status == "draft"
    due_platforms_create_tasks(now=timezone.now())
    assert not BrowserTask.objects.filter(campaign=campaign).exists()  # nothing runs before approval


def test_browser_create_elsewhere_activates_at_once(actor, workspace):
    campaign = make_browser_campaign(actor, accounts=[make_account(workspace)], links=LINKS)
    assert campaign.status == "active"


def test_browser_campaign_runs_once_submitted_and_approved_through_the_api(workspace, owner):
    needs_approval(workspace)
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
    api = api_client_for(owner, workspace)
    created = api.post("/api/v1/campaigns", body, format="json")
    assert created.status_code == 201, created.content
    campaign_id = created.json()["id"]
    assert created.json()["status"] == "draft"

    assert api.post(f"/api/v1/campaign/{campaign_id}/submit", {}, format="json").status_code == 200
    approver = api_client_for(make_member(workspace, "admin"), workspace)
    approved = approver.post(f"/api/v1/campaign/{campaign_id}/approve", {}, format="json")
    assert approved.status_code == 200, approved.content
    assert Campaign.objects.get(pk=campaign_id).status == "scheduled"

    due_platforms_create_tasks(now=timezone.now())  # the creation job starts it at its start date
    assert Campaign.objects.get(pk=campaign_id).status == "active"
    assert BrowserTask.objects.filter(campaign_id=campaign_id).count() == 1


def test_a_draft_is_replaced_through_the_api_and_a_submitted_one_is_409(workspace, owner, other_workspace):
    needs_approval(workspace)
    first, second = make_account(workspace), make_account(workspace)
    api = api_client_for(owner, workspace)
    body = {
        "name": "b",
        "platform": "demo",
        "accounts": [first.pk],
        "target_links": LINKS,
        "action": "like",
        "steps": [{"action": "goto"}, {"action": "click", "selector": "#like"}],
    }
    created = api.post("/api/v1/campaigns", {**body, "kind": "browser"}, format="json").json()
    url = f"/api/v1/browser/campaigns/{created['id']}"
    replaced = api.put(url, {**body, "name": "b2", "accounts": [first.pk, second.pk]}, format="json")
    assert replaced.status_code == 200, replaced.content
    campaign = Campaign.objects.get(pk=created["id"])
    assert campaign.name == "b2"
    assert campaign.browser_platforms.get().metadata["account_ids"] == [first.pk, second.pk]
    bad = api.put(url, {**body, "target_links": ["http://169.254.169.254/latest"]}, format="json")
    assert bad.status_code == 400  # the same address guard as creation
    assert api.post(f"/api/v1/campaign/{campaign.pk}/submit", {}, format="json").status_code == 200
    assert api.put(url, body, format="json").status_code == 409
    outsider = api_client_for(make_member(other_workspace), other_workspace)
    assert outsider.put(url, body, format="json").status_code == 404
