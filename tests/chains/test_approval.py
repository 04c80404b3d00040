"""Chain approval packages, single-campaign approval and chain control (LAV-442)."""

import json
from datetime import UTC, datetime

import pytest
import time_machine
from django.test import override_settings

from campaigns.chains.choices import ChainControl, PackageStatus
from campaigns.chains.errors import ChainLocked, ChainMemberNeedsPackage
from campaigns.chains.guards import assert_campaign_editable, chain_transition_policy
from campaigns.chains.models import ChainApprovalPackage, ChainNode
from campaigns.chains.services import approval as approval_services
from campaigns.choices import CampaignStatus, Role
from campaigns.errors import ApprovalRequired
from campaigns.models import CampaignEvent
from campaigns.platform.errors import StaleRevision
from campaigns.services.lifecycle import campaign_assert_startable

from ..api_base import TenantIsolationCases
from ..conftest import api_client_for, make_campaign, make_member
from .conftest import make_chain, make_group


def submit(api, campaign_id, revision):
    return api.post(f"/api/v1/campaign/{campaign_id}/submit", {"expected_chain_revision": revision}, format="json")


def decide(api, package_id, action, revision, **extra):
    return api.post(
        f"/api/v1/campaign-chain-approvals/{package_id}/{action}",
        {"expected_submitted_revision": revision, **extra},
        format="json",
    )


def statuses(chain):
    return {ChainNode.objects.get(pk=c.id).status for c in chain.values()}


@pytest.fixture
def chain(workspace, group):
    return make_chain(workspace, group, shape="A>B>D,A>C")


@pytest.fixture
def submitted(api, chain):
    response = submit(api, chain["B"].id, 1)
    assert response.status_code == 200, response.content
    return response.json()["package"]


class TestPackageIsolation(TenantIsolationCases):
    detail_url = "/api/v1/campaign-chain-approvals/{id}"
    can_delete = False

    def make(self, workspace):
        chain = make_chain(workspace, make_group(workspace))
        return ChainApprovalPackage.objects.create(
            workspace=workspace, root=chain["A"], submitted_revision=2, submitted_at="2026-01-01T00:00:00Z"
        )

    def test_list_shows_only_own_workspace(self, setup):
        """Packages have no list endpoint; the decision endpoints answer 404 for another workspace's package."""
        client, own, foreign = setup
        for action in ("approve", "reject", "withdraw"):
            response = decide(client, foreign.id, action, 2, reason="x")
            assert response.status_code == 404, action
        foreign.refresh_from_db()
        assert foreign.status == PackageStatus.SUBMITTED
        assert client.get(self.detail_url.format(id=own.id)).status_code == 200

    def test_update_other_workspace_is_404_and_unchanged(self, setup):
        """Packages are never edited through the API (405 for everyone); the snapshot stays as written."""
        client, own, foreign = setup
        before = self.snapshot(foreign)
        for obj in (own, foreign):
            assert client.put(self.detail_url.format(id=obj.id), {"items": []}, format="json").status_code == 405
        assert self.snapshot(foreign) == before

    def test_delete_other_workspace_is_404_and_kept(self, setup):
        client, own, foreign = setup
        assert client.delete(self.detail_url.format(id=foreign.id)).status_code == 405
        assert ChainApprovalPackage.objects.filter(pk__in=[own.id, foreign.id]).count() == 2


@pytest.mark.django_db
class TestSubmit:
    def test_submit_whole_tree_creates_snapshot_package(self, api, chain, workspace):
        ChainNode.objects.filter(pk=chain["A"].id).update(daily_limit=500)
        response = submit(api, chain["D"].id, 1)
        assert response.status_code == 200, response.content
        package = response.json()["package"]
        assert package["status"] == "SUBMITTED" and package["submitted_revision"] == 2 and package["is_current"]
        assert statuses(chain) == {CampaignStatus.SUBMITTED}
        assert all(ChainNode.objects.get(pk=c.id).approval_package_id == package["id"] for c in chain.values())
        items = {item["campaign_id"]: item for item in package["items"]}
        assert set(items) == {c.id for c in chain.values()}
        a = items[chain["A"].id]
        assert a["root_schedule"] and a["goal"] and a["chain_action"] and a["ab_seed"] and a["daily_limit"] == 500
        assert items[chain["D"].id]["parent_campaign_id"] == chain["B"].id
        assert "status" not in a and "members" not in a  # no members or run history
        assert ChainNode.objects.get(pk=chain["A"].id).chain_revision == 2

    def test_case_node_needs_review_or_lacks_action_400_with_nodes(self, api, chain):
        ChainNode.objects.filter(pk=chain["C"].id).update(chain_action=None)
        ChainNode.objects.filter(pk=chain["D"].id).update(
            inheritance={
                "type": "NOT_CONVERTED",
                "schedule": {"type": "AFTER_INTERVAL", "offset_days": 40, "run_time": "09:00"},
            }
        )
        response = submit(api, chain["A"].id, 1)
        assert response.status_code == 400
        error = response.json()["error"]
        assert error["code"] == "CHAIN_INVALID"
        nodes = {n["campaign_id"]: [r["code"] for r in n["reasons"]] for n in error["details"]["nodes"]}
        assert nodes == {chain["C"].id: ["ACTION_MISSING"], chain["D"].id: ["AFTER_INTERVAL_LONGER_THAN_PERIOD"]}
        assert statuses(chain) == {CampaignStatus.DRAFT}  # one invalid node → no node changes
        assert ChainApprovalPackage.objects.count() == 0

    @override_settings(CHAINS_PACKAGE_MAX_BYTES=200)
    def test_snapshot_too_large_is_refused_whole(self, api, chain):
        response = submit(api, chain["A"].id, 1)
        assert response.status_code == 400 and response.json()["error"]["code"] == "PACKAGE_TOO_LARGE"
        assert statuses(chain) == {CampaignStatus.DRAFT} and ChainApprovalPackage.objects.count() == 0

    def test_submit_twice_409(self, api, chain, submitted):
        response = submit(api, chain["A"].id, 2)
        assert response.status_code == 409
        assert ChainApprovalPackage.objects.count() == 1

    def test_submit_stale_revision(self, api, chain):
        assert submit(api, chain["A"].id, 5).status_code == 409

    def test_case_error_mid_way_rolls_back_everything(self, api, chain, monkeypatch):
        """The third node's transition fails: no package, no status, no revision change."""
        from campaigns.services import lifecycle

        original = lifecycle.fsm_apply
        calls = {"n": 0}

        def flaky(instance, transition, **kwargs):
            calls["n"] += 1
            if calls["n"] == 3:
                raise StaleRevision()
            return original(instance, transition, **kwargs)

        monkeypatch.setattr(lifecycle, "fsm_apply", flaky)
        assert submit(api, chain["A"].id, 1).status_code == 409
        assert statuses(chain) == {CampaignStatus.DRAFT}
        assert ChainApprovalPackage.objects.count() == 0
        assert ChainNode.objects.get(pk=chain["A"].id).chain_revision == 1
        assert CampaignEvent.objects.count() == 0


@pytest.mark.django_db
class TestDecide:
    def test_get_package(self, api, submitted):
        response = api.get(f"/api/v1/campaign-chain-approvals/{submitted['id']}")
        assert response.status_code == 200 and len(response.json()["items"]) == 4

    def test_approve(self, api, chain, submitted):
        response = decide(api, submitted["id"], "approve", submitted["submitted_revision"])
        assert response.status_code == 200, response.content
        assert response.json()["status"] == "APPROVED" and response.json()["decided_by_id"]
        assert statuses(chain) == {CampaignStatus.SCHEDULED}  # WAITING_SCHEDULE
        root = ChainNode.objects.get(pk=chain["A"].id)
        assert root.chain_control == ChainControl.NORMAL

    def test_case_approve_twice_same_result_nothing_twice(self, api, chain, submitted):
        first = decide(api, submitted["id"], "approve", submitted["submitted_revision"])
        events = CampaignEvent.objects.count()
        revision = ChainNode.objects.get(pk=chain["A"].id).chain_revision
        second = decide(api, submitted["id"], "approve", submitted["submitted_revision"])
        assert second.status_code == 200
        assert second.json()["status"] == first.json()["status"] == "APPROVED"
        assert second.json()["decided_at"] == first.json()["decided_at"]
        assert CampaignEvent.objects.count() == events
        assert ChainNode.objects.get(pk=chain["A"].id).chain_revision == revision

    def test_case_approver_opened_old_version_409(self, api, submitted):
        response = decide(api, submitted["id"], "approve", submitted["submitted_revision"] - 1)
        assert response.status_code == 409
        assert ChainApprovalPackage.objects.get(pk=submitted["id"]).status == PackageStatus.SUBMITTED

    def test_case_old_package_after_resubmit_409(self, api, chain, submitted):
        assert decide(api, submitted["id"], "withdraw", submitted["submitted_revision"]).status_code == 200
        again = submit(api, chain["A"].id, ChainNode.objects.get(pk=chain["A"].id).chain_revision).json()["package"]
        response = decide(api, submitted["id"], "approve", submitted["submitted_revision"])
        assert response.status_code == 409
        assert ChainApprovalPackage.objects.get(pk=submitted["id"]).status == PackageStatus.WITHDRAWN
        assert decide(api, again["id"], "approve", again["submitted_revision"]).status_code == 200

    def test_current_pointer_decides_even_if_old_package_still_submitted(self, api, chain, submitted):
        """An old SUBMITTED row that is no longer the current package cannot be approved."""
        newer = ChainApprovalPackage.objects.create(
            workspace=chain["A"].workspace, root=chain["A"], submitted_revision=2, submitted_at="2026-01-01T00:00:00Z"
        )
        ChainNode.objects.filter(root_id=chain["A"].id).update(approval_package=newer)
        response = decide(api, submitted["id"], "approve", submitted["submitted_revision"])
        assert response.status_code == 409 and response.json()["error"]["code"] == "PACKAGE_NOT_CURRENT"

    def test_reject_keeps_snapshot_and_sets_rejected(self, api, chain, submitted):
        response = decide(api, submitted["id"], "reject", submitted["submitted_revision"], reason="متن نامناسب")
        assert response.status_code == 200, response.content
        package = ChainApprovalPackage.objects.get(pk=submitted["id"])
        assert package.status == PackageStatus.REJECTED and package.reason == "متن نامناسب"
        assert package.items == submitted["items"]
        assert statuses(chain) == {CampaignStatus.REJECTED}
        # a rejected chain can be edited and resubmitted as a new package
        again = submit(api, chain["A"].id, ChainNode.objects.get(pk=chain["A"].id).chain_revision)
        assert again.status_code == 200 and again.json()["package"]["id"] != submitted["id"]

    def test_reject_needs_reason(self, api, submitted):
        assert decide(api, submitted["id"], "reject", submitted["submitted_revision"]).status_code == 400

    def test_withdraw_returns_to_draft(self, api, chain, submitted):
        assert decide(api, submitted["id"], "withdraw", submitted["submitted_revision"]).status_code == 200
        assert statuses(chain) == {CampaignStatus.DRAFT}
        assert decide(api, submitted["id"], "approve", submitted["submitted_revision"]).status_code == 409

    def test_approval_needs_the_approve_permission(self, workspace, submitted):
        manager = api_client_for(make_member(workspace, Role.MANAGER), workspace)
        response = decide(manager, submitted["id"], "approve", submitted["submitted_revision"])
        assert response.status_code == 403
        assert decide(manager, submitted["id"], "withdraw", submitted["submitted_revision"]).status_code == 200

    def test_knowing_the_id_from_another_workspace_is_not_enough(self, other_workspace, submitted):
        stranger = api_client_for(make_member(other_workspace, Role.OWNER), other_workspace)
        assert decide(stranger, submitted["id"], "approve", submitted["submitted_revision"]).status_code == 404

    def test_case_late_approval_warns_but_approves(self, api, workspace, group):
        with time_machine.travel(datetime(2026, 3, 1, 0, 0, tzinfo=UTC), tick=False):
            chain = make_chain(workspace, group)  # monthly on the 1st 09:00, child 2 days later
            package = submit(api, chain["A"].id, 1).json()["package"]
        with time_machine.travel(datetime(2026, 3, 4, 12, 0, tzinfo=UTC), tick=False):
            view = api.get(f"/api/v1/campaign-chain-approvals/{package['id']}").json()
            assert [w["campaign_id"] for w in view["warnings"]] == [chain["B"].id]
            response = decide(api, package["id"], "approve", package["submitted_revision"])
        assert response.status_code == 200 and response.json()["warnings"]
        assert statuses(chain) == {CampaignStatus.SCHEDULED}

    def test_case_root_with_no_occurrence_left_finishes(self, api, workspace, group):
        with time_machine.travel(datetime(2026, 3, 10, 0, 0, tzinfo=UTC), tick=False):
            chain = make_chain(
                workspace, group, root_schedule={"type": "MONTHLY", "day": 1, "time": "09:00", "end_date": "2026-03-31"}
            )
            package = submit(api, chain["A"].id, 1).json()["package"]
            response = decide(api, package["id"], "approve", package["submitted_revision"])
        assert response.status_code == 200, response.content
        assert statuses(chain) == {CampaignStatus.COMPLETED}
        reasons = set(
            CampaignEvent.objects.filter(to_status=CampaignStatus.COMPLETED).values_list("data__reason", flat=True)
        )
        assert reasons == {"NO_FEASIBLE_RUN"}


@pytest.mark.django_db
class TestSingleApproval:
    def test_standalone_submit_needs_workspace_setting(self, api, workspace):
        campaign = make_campaign(workspace)
        response = api.post(f"/api/v1/campaign/{campaign.id}/submit", {}, format="json")
        assert response.status_code == 409 and response.json()["error"]["code"] == "APPROVAL_NOT_REQUIRED"
        campaign_assert_startable(campaign=campaign)  # no approval needed: activates directly

    def test_standalone_submit_approve_reject(self, api, workspace):
        workspace.settings = {"campaigns_need_approval": True}
        workspace.save()
        one, two = make_campaign(workspace), make_campaign(workspace)
        with pytest.raises(ApprovalRequired):
            campaign_assert_startable(campaign=one)
        for campaign in (one, two):
            response = api.post(f"/api/v1/campaign/{campaign.id}/submit", {}, format="json")
            assert response.status_code == 200 and response.json()["package"] is None
            assert response.json()["campaign"]["status"] == CampaignStatus.SUBMITTED
        assert api.post(f"/api/v1/campaign/{one.id}/approve", {}, format="json").json()["status"] == "scheduled"
        rejected = api.post(f"/api/v1/campaign/{two.id}/reject", {"reason": "نه"}, format="json")
        assert rejected.json()["status"] == "rejected"

    def test_case_single_approve_for_chain_member_409(self, api, workspace, chain, submitted):
        for node in chain.values():
            response = api.post(f"/api/v1/campaign/{node.id}/approve", {}, format="json")
            assert response.status_code == 409 and response.json()["error"]["code"] == "CHAIN_MEMBER"
        assert statuses(chain) == {CampaignStatus.SUBMITTED}

    def test_case_old_apis_blocked_by_one_shared_guard(self, chain):
        for transition in ("activate", "schedule", "submit", "approve", "reject"):
            with pytest.raises(ChainMemberNeedsPackage):
                chain_transition_policy(actor=None, campaign=chain["B"], transition=transition)
        with pytest.raises(ChainLocked):
            assert_campaign_editable(chain["A"])

    def test_single_approve_needs_permission(self, workspace):
        workspace.settings = {"campaigns_need_approval": True}
        workspace.save()
        campaign = make_campaign(workspace, status=CampaignStatus.SUBMITTED)
        manager = api_client_for(make_member(workspace, Role.MANAGER), workspace)
        assert manager.post(f"/api/v1/campaign/{campaign.id}/approve", {}, format="json").status_code == 403


@pytest.mark.django_db
class TestChainControl:
    def _approved(self, api, chain, submitted):
        assert decide(api, submitted["id"], "approve", submitted["submitted_revision"]).status_code == 200
        return ChainNode.objects.get(pk=chain["A"].id).chain_revision

    def test_pause_resume_stop(self, api, chain, submitted):
        revision = self._approved(api, chain, submitted)
        url = f"/api/v1/campaign/{chain['A'].id}/chain"
        response = api.post(f"{url}/pause", {"expected_chain_revision": revision}, format="json")
        assert response.status_code == 200 and response.json()["chain_control"] == "PAUSED"
        assert api.post(f"{url}/pause", {"expected_chain_revision": revision + 1}, format="json").status_code == 409
        response = api.post(f"{url}/resume", {"expected_chain_revision": revision + 1}, format="json")
        assert response.json()["chain_control"] == "NORMAL"
        response = api.post(f"{url}/stop", {"expected_chain_revision": revision + 2}, format="json")
        assert response.json()["chain_control"] == "STOPPED"
        assert api.post(f"{url}/resume", {"expected_chain_revision": revision + 3}, format="json").status_code == 409

    def test_children_409(self, api, chain, submitted):
        revision = self._approved(api, chain, submitted)
        response = api.post(
            f"/api/v1/campaign/{chain['B'].id}/chain/pause", {"expected_chain_revision": revision}, format="json"
        )
        assert response.status_code == 409 and response.json()["error"]["code"] == "NOT_CHAIN_ROOT"

    def test_stale_revision_and_unapproved_chain(self, api, chain, submitted):
        url = f"/api/v1/campaign/{chain['A'].id}/chain/pause"
        assert (
            api.post(url, {"expected_chain_revision": 2}, format="json").json()["error"]["code"]
            == "CHAIN_CONTROL_INVALID"
        )
        revision = self._approved(api, chain, submitted)
        assert api.post(url, {"expected_chain_revision": revision - 1}, format="json").status_code == 409
        assert api.post(url, {}, format="json").status_code == 400


def test_snapshot_item_is_json(db, workspace):
    chain = make_chain(workspace, make_group(workspace))
    item = approval_services.snapshot_item(chain["B"])
    assert json.loads(json.dumps(item)) == item
    assert item["parent_campaign_id"] == chain["A"].id
