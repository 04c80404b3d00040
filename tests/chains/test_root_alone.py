"""A root without follow-ups is submitted alone: a chain of one, approved as a one-item package and run by the
chain scheduler; refused (no audience), it stays an independent campaign. A campaign without a root schedule keeps
single approval."""

from __future__ import annotations

import pytest
import time_machine

from campaigns.chains.models import ChainApprovalPackage
from campaigns.chains.run_models import CampaignRun
from campaigns.chains.runs.choices import RunType
from campaigns.chains.services.approval import package_approve
from campaigns.choices import CampaignStatus
from tests.conftest import make_campaign

from .conftest import make_node
from .runs_helpers import at, tick

pytestmark = pytest.mark.django_db


def submit(api, campaign_id, revision):
    return api.post(f"/api/v1/campaign/{campaign_id}/submit", {"expected_chain_revision": revision}, format="json")


def test_a_root_alone_is_submitted_as_a_one_item_package_and_runs(api, actor, workspace, group):
    with time_machine.travel(at(2026, 9, 20), tick=False):
        root = make_node(workspace, group=group, name="یادآوری قسط")
        response = submit(api, root.id, root.chain_revision)
        assert response.status_code == 200, response.content
        package = response.json()["package"]
        assert [item["campaign_id"] for item in package["items"]] == [root.id]
        root.refresh_from_db()
        assert (root.status, root.root_id) == (CampaignStatus.SUBMITTED, root.id)
        tree = api.get(f"/api/v1/campaign-groups/{group.id}/campaign-tree").json()
        assert tree["roots"][0]["campaign_id"] == root.id
        stored = ChainApprovalPackage.objects.get(pk=package["id"])
        package_approve(actor=actor, package_id=stored.id, expected_submitted_revision=stored.submitted_revision)
    tick(at(2026, 10, 1, 9, 0))
    (run,) = CampaignRun.objects.filter(campaign=root, run_type=RunType.SCHEDULED, started_at__isnull=False)
    assert run.expected_execution_count == 1  # the list's one person got the message


def test_a_root_alone_without_audience_is_refused_and_stays_independent(api, workspace, group):
    root = make_node(workspace, group=group, source_target_list=None)
    tree = api.get(f"/api/v1/campaign-groups/{group.id}/campaign-tree").json()
    assert "submit" in tree["roots"][0]["allowed_actions"]  # offered without any approval setting
    response = submit(api, root.id, root.chain_revision)
    assert response.status_code == 400
    (node,) = response.json()["error"]["details"]["nodes"]
    assert [r["code"] for r in node["reasons"]] == ["AUDIENCE_MISSING"]
    root.refresh_from_db()
    assert (root.status, root.root_id) == (CampaignStatus.DRAFT, None)
    assert not ChainApprovalPackage.objects.exists()


def test_a_group_campaign_without_a_root_schedule_keeps_single_approval(api, workspace, group):
    loose = make_campaign(workspace, group=group)
    tree = api.get(f"/api/v1/campaign-groups/{group.id}/campaign-tree").json()
    assert "submit" not in tree["roots"][0]["allowed_actions"]  # the workspace needs no single approval
    response = submit(api, loose.id, loose.chain_revision)
    assert response.status_code == 409 and response.json()["error"]["code"] == "APPROVAL_NOT_REQUIRED"
