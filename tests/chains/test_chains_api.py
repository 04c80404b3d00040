"""Chains (LAV-440/441): create, validate, edit, re-parent, delete, clone, tree, sources, preview."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from campaigns.chains.choices import GroupStatus, PackageStatus
from campaigns.chains.models import ChainApprovalPackage, ChainNode
from campaigns.choices import CampaignStatus, Role

from ..api_base import TenantIsolationCases
from ..conftest import api_client_for, make_campaign, make_member
from .conftest import ACTION, GOAL, WEEKLY_MON, audience_list, make_chain, make_group

MONTHLY = {"type": "MONTHLY", "day": "1", "time": "09:00"}
AFTER = {"type": "NOT_CONVERTED", "schedule": {"type": "AFTER_INTERVAL", "offset_days": 2, "run_time": "09:00"}}


def create(api, **body):
    body.setdefault("name", "کمپین")
    body.setdefault("chain_action", ACTION)
    return api.post("/api/v1/campaign", body, format="json")


def root_in(api, group, **extra):
    extra.setdefault("source_target_list_id", audience_list(group.workspace).id)
    response = create(api, campaign_group_id=group.id, when=MONTHLY, goal=GOAL, **extra)
    assert response.status_code == 201, response.content
    return response.json()


def child_of(api, parent_id, revision, inheritance=AFTER, **extra):
    return create(api, parent_campaign_id=parent_id, expected_chain_revision=revision, inheritance=inheritance, **extra)


def rev(campaign_id):
    c = ChainNode.objects.get(pk=campaign_id)
    return ChainNode.objects.get(pk=c.root_id or c.id).chain_revision


class TestChainCampaignIsolation(TenantIsolationCases):
    detail_url = "/api/v1/campaign/{id}"
    update_method = "put"
    update_payload = {"name": "دزدیده", "expected_chain_revision": 1}

    def make(self, workspace):
        return make_chain(workspace, make_group(workspace))["B"]

    def test_delete_other_workspace_is_404_and_kept(self, setup):
        client, _, foreign = setup
        before = self.snapshot(foreign)
        assert client.delete(f"/api/v1/campaign/{foreign.id}?expected_chain_revision=1").status_code == 404
        assert self.snapshot(foreign) == before

    def test_list_shows_only_own_workspace(self, setup):
        """The chain "list" is the group tree: another workspace's group is 404, its nodes never appear."""
        client, own, foreign = setup
        mine = client.get(f"/api/v1/campaign-groups/{own.group_id}/campaign-tree").json()
        assert mine["roots"][0]["children"][0]["campaign_id"] == own.id
        assert client.get(f"/api/v1/campaign-groups/{foreign.group_id}/campaign-tree").status_code == 404

    def test_actions_on_other_workspace_chain_are_404(self, setup):
        client, _, foreign = setup
        root_id = foreign.root_id
        for url in (
            f"/api/v1/campaign/{foreign.id}/submit",
            f"/api/v1/campaign/{foreign.id}/clone",
            f"/api/v1/campaign/{foreign.id}/approve",
            f"/api/v1/campaign/{foreign.id}/reject",
            f"/api/v1/campaign/{root_id}/chain/pause",
            f"/api/v1/campaign/{root_id}/chain/resume",
            f"/api/v1/campaign/{root_id}/chain/stop",
        ):
            assert client.post(url, {"expected_chain_revision": 1}, format="json").status_code == 404, url
        assert ChainNode.objects.filter(root_id=root_id).count() == 2


@pytest.mark.django_db
class TestCreate:
    def test_root_and_child(self, api, workspace, group):
        root = root_in(api, group)
        assert root["root_campaign_id"] is None and root["when"]["day"] == "1"
        response = child_of(api, root["id"], 1)
        assert response.status_code == 201, response.content
        child = response.json()
        assert child["parent_campaign_id"] == root["id"] and child["root_campaign_id"] == root["id"]
        assert child["campaign_group_id"] == group.id
        assert child["goal"] == GOAL  # inherited
        assert child["inheritance"]["schedule"]["offset_days"] == 2
        source = ChainNode.objects.get(pk=root["id"])
        assert source.root_id == source.id and source.chain_revision == 2
        group.refresh_from_db()
        assert group.revision == 3  # two memberships

    def test_client_cannot_set_root_control_or_child_goal(self, api, group):
        root = root_in(api, group)
        response = child_of(api, root["id"], 1, goal={"type": "EVENT", "event": "buy"})
        assert response.status_code == 400 and "goal" in response.json()["error"]["details"]
        response = child_of(api, root["id"], 1, root_campaign_id=999, chain_control="STOPPED")
        assert response.status_code == 400  # read-only fields are refused, not ignored
        assert set(response.json()["error"]["details"]) == {"root_campaign_id", "chain_control"}
        response = child_of(api, root["id"], 1)
        assert response.json()["root_campaign_id"] == root["id"] and response.json()["chain_control"] == "NORMAL"

    def test_child_needs_expected_chain_revision_and_inheritance(self, api, group):
        root = root_in(api, group)
        assert create(api, parent_campaign_id=root["id"], inheritance=AFTER).status_code == 400
        assert create(api, parent_campaign_id=root["id"], expected_chain_revision=1).status_code == 400
        response = child_of(api, root["id"], 7)
        assert response.status_code == 409 and response.json()["error"]["code"] == "STALE_CHAIN_REVISION"

    def test_request_strings_converted(self, api, group):
        root = root_in(api, group)
        inheritance = {
            "type": "CONVERTED",
            "schedule": {
                "type": "FIXED_DAY_IN_PERIOD",
                "run_time": "10:00",
                "fixed_day": {"mode": "DAY_OF_MONTH", "day": "LAST"},
            },
        }
        response = child_of(api, root["id"], 1, inheritance=inheritance)
        assert response.status_code == 201, response.content
        stored = ChainNode.objects.get(pk=response.json()["id"]).inheritance
        assert stored["schedule"]["fixed_day"]["day"] == -1
        assert response.json()["inheritance"]["schedule"]["fixed_day"]["day"] == "LAST"
        bad = {
            **inheritance,
            "schedule": {**inheritance["schedule"], "fixed_day": {"mode": "DAY_OF_MONTH", "day": "32"}},
        }
        response = child_of(api, root["id"], 2, inheritance=bad)
        assert response.status_code == 400
        assert "inheritance.schedule.fixed_day.day" in response.json()["error"]["details"]

    def test_case_source_in_other_workspace_or_group_is_400_without_leaking(
        self, api, workspace, other_workspace, group
    ):
        foreign = make_chain(other_workspace, make_group(other_workspace))["A"]
        response = child_of(api, foreign.id, 1)
        assert response.status_code == 400
        missing = child_of(api, 99999999, 1)
        assert response.json()["error"]["details"] == missing.json()["error"]["details"]
        other_group_root = root_in(api, make_group(workspace))
        response = child_of(api, other_group_root["id"], 1, campaign_group_id=group.id)
        assert response.status_code == 400 and "parent_campaign_id" in response.json()["error"]["details"]

    def test_case_source_not_recurring_event_triggered_400(self, api, group):
        root = create(api, campaign_group_id=group.id, when={"type": "EVENT"}, goal=GOAL).json()
        response = child_of(api, root["id"], 1)
        assert response.status_code == 400
        details = response.json()["error"]["details"]
        assert "parent_campaign_id" in details
        assert details["reasons"][0]["code"] == "SOURCE_NOT_RECURRING"
        assert ChainNode.objects.filter(parent_id=root["id"]).count() == 0

    def test_case_root_schedule_type_not_supported_400(self, api, group):
        root = create(
            api, campaign_group_id=group.id, when={"type": "ONCE", "at": "2027-01-01T09:00:00+03:30"}, goal=GOAL
        ).json()
        response = child_of(api, root["id"], 1)
        assert response.status_code == 400 and "parent_campaign_id" in response.json()["error"]["details"]
        response = create(api, campaign_group_id=group.id, when={"type": "HOURLY", "time": "09:00"})
        assert response.status_code == 400 and "when.type" in response.json()["error"]["details"]

    def test_case_after_interval_longer_than_shortest_period_400_with_period(self, api, group):
        root = root_in(api, group)
        long = {"type": "NOT_CONVERTED", "schedule": {"type": "AFTER_INTERVAL", "offset_days": 29, "run_time": "09:00"}}
        response = child_of(api, root["id"], 1, inheritance=long)
        assert response.status_code == 400
        details = response.json()["error"]["details"]
        assert "inheritance.schedule.offset_days" in details
        reason = details["reasons"][0]
        assert reason["code"] == "AFTER_INTERVAL_LONGER_THAN_PERIOD"
        assert "-02-01" in reason["period_start"] and reason["planned_child_at"]

    def test_case_day_of_month_child_under_weekly_root_400(self, api, group):
        root = create(api, campaign_group_id=group.id, when=WEEKLY_MON, goal=GOAL).json()
        dom = {
            "type": "NOT_CONVERTED",
            "schedule": {
                "type": "FIXED_DAY_IN_PERIOD",
                "run_time": "10:00",
                "fixed_day": {"mode": "DAY_OF_MONTH", "day": "5"},
            },
        }
        response = child_of(api, root["id"], 1, inheritance=dom)
        assert response.status_code == 400
        assert "inheritance.schedule.fixed_day.mode" in response.json()["error"]["details"]
        weekday = {**dom, "schedule": {**dom["schedule"], "fixed_day": {"mode": "WEEKDAY", "weekday": "THU"}}}
        assert child_of(api, root["id"], 1, inheritance=weekday).status_code == 201

    def test_case_source_approved_while_saving_child_409(self, api, workspace, group):
        chain = make_chain(workspace, group, status=CampaignStatus.SCHEDULED)
        response = child_of(api, chain["B"].id, chain["A"].chain_revision)
        assert response.status_code == 409 and response.json()["error"]["code"] == "CHAIN_LOCKED"

    def test_case_adding_child_while_submitted_needs_withdraw(self, api, workspace, group):
        chain = make_chain(workspace, group, status=CampaignStatus.SUBMITTED)
        response = child_of(api, chain["B"].id, 1)
        assert response.status_code == 409 and response.json()["error"]["code"] == "CHAIN_SUBMITTED"

    def test_goal_missing_for_not_converted(self, api, group):
        root = create(api, campaign_group_id=group.id, when=MONTHLY).json()
        response = child_of(api, root["id"], 1)
        assert response.status_code == 400 and "goal" in response.json()["error"]["details"]
        failed = {**AFTER, "type": "FAILED_DELIVERY"}
        assert child_of(api, root["id"], 1, inheritance=failed).status_code == 201

    def test_chain_needs_a_group(self, api):
        root = create(api, when=MONTHLY, goal=GOAL).json()
        assert child_of(api, root["id"], 1).status_code == 400


@pytest.mark.django_db
class TestEdit:
    def test_case_removing_channel_with_failed_delivery_child_warns_then_marks_review(self, api, workspace, group):
        root = root_in(api, group)
        failed = {**AFTER, "type": "FAILED_DELIVERY"}
        child = child_of(api, root["id"], 1, inheritance=failed).json()
        body = {"chain_action": {"channel": None, "content": "x"}, "expected_chain_revision": rev(root["id"])}
        response = api.put(f"/api/v1/campaign/{root['id']}", body, format="json")
        assert response.status_code == 409
        error = response.json()["error"]
        assert error["code"] == "AFFECTED_CAMPAIGNS"
        assert [a["campaign_id"] for a in error["details"]["affected_campaigns"]] == [child["id"]]
        assert ChainNode.objects.get(pk=root["id"]).chain_action["channel"] == "sms"  # nothing saved
        response = api.put(f"/api/v1/campaign/{root['id']}", {**body, "accept_affected": True}, format="json")
        assert response.status_code == 200, response.content
        saved = ChainNode.objects.get(pk=child["id"])
        assert saved.needs_review
        assert saved.needs_review_reasons[0]["code"] == "SOURCE_HAS_NO_CHANNEL"
        assert saved.needs_review_reasons[0]["source_campaign_id"] == root["id"]

    def test_case_root_goal_change_propagates(self, api, group):
        root = root_in(api, group)
        child = child_of(api, root["id"], 1).json()
        grandchild = child_of(api, child["id"], 2).json()
        new_goal = {"type": "EVENT", "event": "purchase"}
        response = api.put(
            f"/api/v1/campaign/{root['id']}", {"goal": new_goal, "expected_chain_revision": 3}, format="json"
        )
        assert response.status_code == 200, response.content
        for node_id in (child["id"], grandchild["id"]):
            assert ChainNode.objects.get(pk=node_id).goal == new_goal
            assert not ChainNode.objects.get(pk=node_id).needs_review
        assert rev(root["id"]) == 4

    def test_case_month_to_week_breaks_child_then_fix_clears_review(self, api, group):
        root = root_in(api, group)
        fixed = {
            "type": "NOT_CONVERTED",
            "schedule": {
                "type": "FIXED_DAY_IN_PERIOD",
                "run_time": "10:00",
                "fixed_day": {"mode": "DAY_OF_MONTH", "day": "15"},
            },
        }
        child = child_of(api, root["id"], 1, inheritance=fixed).json()
        to_week = {"when": WEEKLY_MON, "expected_chain_revision": 2, "accept_affected": True}
        assert api.put(f"/api/v1/campaign/{root['id']}", to_week, format="json").status_code == 200
        broken = ChainNode.objects.get(pk=child["id"])
        assert broken.needs_review and broken.needs_review_reasons[0]["code"] == "SCHEDULE_INCOMPATIBLE"
        submit = api.post(f"/api/v1/campaign/{root['id']}/submit", {"expected_chain_revision": 3}, format="json")
        assert submit.status_code == 400
        assert submit.json()["error"]["details"]["nodes"][0]["campaign_id"] == child["id"]
        back = {"when": MONTHLY, "expected_chain_revision": 3}
        assert api.put(f"/api/v1/campaign/{root['id']}", back, format="json").status_code == 200
        fixed_child = ChainNode.objects.get(pk=child["id"])
        assert not fixed_child.needs_review and fixed_child.needs_review_reasons == []

    def test_fixing_the_child_itself_clears_review(self, api, group):
        root = root_in(api, group)
        fixed = {
            "type": "NOT_CONVERTED",
            "schedule": {
                "type": "FIXED_DAY_IN_PERIOD",
                "run_time": "10:00",
                "fixed_day": {"mode": "DAY_OF_MONTH", "day": "15"},
            },
        }
        child = child_of(api, root["id"], 1, inheritance=fixed).json()
        api.put(
            f"/api/v1/campaign/{root['id']}",
            {"when": WEEKLY_MON, "expected_chain_revision": 2, "accept_affected": True},
            format="json",
        )
        weekday = {**fixed, "schedule": {**fixed["schedule"], "fixed_day": {"mode": "WEEKDAY", "weekday": "WED"}}}
        response = api.put(
            f"/api/v1/campaign/{child['id']}", {"inheritance": weekday, "expected_chain_revision": 3}, format="json"
        )
        assert response.status_code == 200, response.content
        assert not ChainNode.objects.get(pk=child["id"]).needs_review

    def test_edit_making_the_node_itself_invalid_400(self, api, group):
        root = root_in(api, group)
        child = child_of(api, root["id"], 1).json()
        long = {"type": "NOT_CONVERTED", "schedule": {"type": "AFTER_INTERVAL", "offset_days": 40, "run_time": "09:00"}}
        response = api.put(
            f"/api/v1/campaign/{child['id']}", {"inheritance": long, "expected_chain_revision": 2}, format="json"
        )
        assert response.status_code == 400
        assert rev(root["id"]) == 2

    def test_source_cannot_stop_being_recurring_400(self, api, group):
        root = root_in(api, group)
        child_of(api, root["id"], 1)
        response = api.put(
            f"/api/v1/campaign/{root['id']}",
            {"when": {"type": "EVENT"}, "expected_chain_revision": 2, "accept_affected": True},
            format="json",
        )
        assert response.status_code == 400 and "when" in response.json()["error"]["details"]

    def test_case_two_people_editing_one_wins_other_409(self, api, group):
        root = root_in(api, group)
        child_of(api, root["id"], 1)
        first = api.put(f"/api/v1/campaign/{root['id']}", {"name": "اول", "expected_chain_revision": 2}, format="json")
        second = api.put(f"/api/v1/campaign/{root['id']}", {"name": "دوم", "expected_chain_revision": 2}, format="json")
        assert first.status_code == 200 and second.status_code == 409
        assert second.json()["error"]["code"] == "STALE_CHAIN_REVISION"
        assert ChainNode.objects.get(pk=root["id"]).name == "اول"

    def test_case_editing_submitted_chain_withdraws_package(self, api, group):
        root = root_in(api, group)
        child = child_of(api, root["id"], 1).json()
        submitted = api.post(f"/api/v1/campaign/{root['id']}/submit", {"expected_chain_revision": 2}, format="json")
        assert submitted.status_code == 200, submitted.content
        package_id = submitted.json()["package"]["id"]
        response = api.put(
            f"/api/v1/campaign/{child['id']}", {"name": "نو", "expected_chain_revision": 3}, format="json"
        )
        assert response.status_code == 200, response.content
        assert ChainApprovalPackage.objects.get(pk=package_id).status == PackageStatus.WITHDRAWN
        assert set(ChainNode.objects.filter(pk__in=[root["id"], child["id"]]).values_list("status", flat=True)) == {
            CampaignStatus.DRAFT
        }

    def test_edit_approved_chain_locked(self, api, workspace, group):
        chain = make_chain(workspace, group, status=CampaignStatus.SCHEDULED)
        response = api.put(
            f"/api/v1/campaign/{chain['B'].id}", {"name": "x", "expected_chain_revision": 1}, format="json"
        )
        assert response.status_code == 409 and response.json()["error"]["code"] == "CHAIN_LOCKED"


@pytest.mark.django_db
class TestReparent:
    def test_case_source_is_itself_or_descendant_400(self, api, workspace, group):
        chain = make_chain(workspace, group, shape="A>B>D,A>C")
        for target in (chain["B"], chain["D"]):
            response = api.put(
                f"/api/v1/campaign/{chain['B'].id}",
                {"parent_campaign_id": target.id, "expected_chain_revision": 1},
                format="json",
            )
            assert response.status_code == 400, target
            assert "parent_campaign_id" in response.json()["error"]["details"]
        assert ChainNode.objects.get(pk=chain["B"].id).parent_id == chain["A"].id

    def test_move_within_chain(self, api, workspace, group):
        chain = make_chain(workspace, group, shape="A>B>D,A>C")
        response = api.put(
            f"/api/v1/campaign/{chain['D'].id}",
            {"parent_campaign_id": chain["C"].id, "expected_chain_revision": 1},
            format="json",
        )
        assert response.status_code == 200, response.content
        assert ChainNode.objects.get(pk=chain["D"].id).parent_id == chain["C"].id
        assert rev(chain["A"].id) == 2

    def test_move_branch_between_chains_bumps_both_and_frees_old_root(self, api, workspace, group):
        one = make_chain(workspace, group, shape="A>B>D")
        two = make_chain(workspace, group, shape="A>C")
        response = api.put(
            f"/api/v1/campaign/{one['B'].id}",
            {"parent_campaign_id": two["C"].id, "expected_chain_revision": 1, "expected_target_chain_revision": 1},
            format="json",
        )
        assert response.status_code == 200, response.content
        b, d = ChainNode.objects.get(pk=one["B"].id), ChainNode.objects.get(pk=one["D"].id)
        assert (b.parent_id, b.root_id, d.root_id) == (two["C"].id, two["A"].id, two["A"].id)
        old_root = ChainNode.objects.get(pk=one["A"].id)
        assert old_root.root_id is None and old_root.chain_revision == 2
        assert ChainNode.objects.get(pk=two["A"].id).chain_revision == 2

    def test_move_needs_target_revision(self, api, workspace, group):
        one = make_chain(workspace, group)
        two = make_chain(workspace, group)
        response = api.put(
            f"/api/v1/campaign/{one['B'].id}",
            {"parent_campaign_id": two["B"].id, "expected_chain_revision": 1, "expected_target_chain_revision": 5},
            format="json",
        )
        assert response.status_code == 409
        assert ChainNode.objects.get(pk=one["B"].id).parent_id == one["A"].id

    def test_case_moving_while_submitted_needs_withdraw(self, api, workspace, group):
        chain = make_chain(workspace, group, shape="A>B,A>C", status=CampaignStatus.SUBMITTED)
        response = api.put(
            f"/api/v1/campaign/{chain['C'].id}",
            {"parent_campaign_id": chain["B"].id, "expected_chain_revision": 1},
            format="json",
        )
        assert response.status_code == 409 and response.json()["error"]["code"] == "CHAIN_SUBMITTED"

    def test_move_into_other_group_400(self, api, workspace, group):
        chain = make_chain(workspace, group)
        other = make_chain(workspace, make_group(workspace))
        response = api.put(
            f"/api/v1/campaign/{chain['B'].id}",
            {"parent_campaign_id": other["A"].id, "expected_chain_revision": 1, "expected_target_chain_revision": 1},
            format="json",
        )
        assert response.status_code == 400


@pytest.mark.django_db
class TestDelete:
    def test_case_delete_node_with_children_409(self, api, workspace, group):
        chain = make_chain(workspace, group, shape="A>B>D")
        response = api.delete(f"/api/v1/campaign/{chain['B'].id}", {"expected_chain_revision": 1}, format="json")
        assert response.status_code == 409 and response.json()["error"]["code"] == "CHAIN_NODE_HAS_CHILDREN"
        assert ChainNode.objects.get(pk=chain["B"].id).deleted_at is None

    def test_delete_last_child_turns_draft_root_independent(self, api, workspace, group):
        chain = make_chain(workspace, group)
        response = api.delete(f"/api/v1/campaign/{chain['B'].id}", {"expected_chain_revision": 1}, format="json")
        assert response.status_code == 204, response.content
        deleted = ChainNode.objects.get(pk=chain["B"].id)
        assert deleted.deleted_at is not None and deleted.group_id == group.id  # the group id is kept
        root = ChainNode.objects.get(pk=chain["A"].id)
        assert root.root_id is None and root.chain_revision == 2

    def test_delete_approved_leaf_409(self, api, workspace, group):
        chain = make_chain(workspace, group, status=CampaignStatus.SCHEDULED)
        assert api.delete(f"/api/v1/campaign/{chain['B'].id}?expected_chain_revision=1").status_code == 409

    def test_delete_stale_revision(self, api, workspace, group):
        chain = make_chain(workspace, group)
        assert api.delete(f"/api/v1/campaign/{chain['B'].id}?expected_chain_revision=9").status_code == 409


@pytest.mark.django_db
class TestClone:
    def test_clone_root_clones_tree_with_mapping(self, api, workspace, group):
        chain = make_chain(workspace, group, shape="A>B>D,A>C", status=CampaignStatus.COMPLETED)
        package = ChainApprovalPackage.objects.create(
            workspace=workspace,
            root=chain["A"],
            submitted_revision=1,
            submitted_at="2026-01-01T00:00:00Z",
            status=PackageStatus.APPROVED,
        )
        ChainNode.objects.filter(pk__in=[c.id for c in chain.values()]).update(approval_package=package)
        response = api.post(f"/api/v1/campaign/{chain['A'].id}/clone", {}, format="json")
        assert response.status_code == 201, response.content
        id_map = {int(k): v for k, v in response.json()["id_map"].items()}
        assert set(id_map) == {c.id for c in chain.values()}
        copies = {old: ChainNode.objects.get(pk=new) for old, new in id_map.items()}
        old_ids = set(id_map)
        for old, copy in copies.items():
            assert copy.status == CampaignStatus.DRAFT and copy.approval_package_id is None
            assert copy.root_id == id_map[chain["A"].id]
            assert copy.parent_id not in old_ids and copy.root_id not in old_ids  # case: no old relation ids
            assert copy.ab_seed != ChainNode.objects.get(pk=old).ab_seed  # a new A/B seed is drawn
        assert copies[chain["D"].id].parent_id == id_map[chain["B"].id]
        assert copies[chain["A"].id].parent_id is None

    def test_clone_draft_child_one_node_same_source(self, api, workspace, group):
        chain = make_chain(workspace, group, shape="A>B>D")
        response = api.post(f"/api/v1/campaign/{chain['B'].id}/clone", {}, format="json")
        assert response.status_code == 201, response.content
        copy = ChainNode.objects.get(pk=response.json()["campaign"]["id"])
        assert copy.parent_id == chain["A"].id and copy.root_id == chain["A"].id
        assert ChainNode.objects.filter(parent_id=copy.id).count() == 0
        assert rev(chain["A"].id) == 2

    def test_clone_in_deleted_group_needs_an_active_group(self, api, workspace):
        gone = make_group(workspace, status=GroupStatus.DELETED)
        chain = make_chain(workspace, gone, status=CampaignStatus.COMPLETED)
        response = api.post(f"/api/v1/campaign/{chain['A'].id}/clone", {}, format="json")
        assert response.status_code == 400 and "campaign_group_id" in response.json()["error"]["details"]
        target = make_group(workspace)
        response = api.post(f"/api/v1/campaign/{chain['A'].id}/clone", {"campaign_group_id": target.id}, format="json")
        assert response.status_code == 201
        assert ChainNode.objects.get(pk=response.json()["campaign"]["id"]).group_id == target.id

    def test_clone_other_workspace_404(self, api, other_workspace):
        foreign = make_campaign(other_workspace)
        assert api.post(f"/api/v1/campaign/{foreign.id}/clone", {}, format="json").status_code == 404


@pytest.mark.django_db
class TestTree:
    def _tree(self, api, group, **params):
        response = api.get(f"/api/v1/campaign-groups/{group.id}/campaign-tree", params)
        assert response.status_code == 200, response.content
        return response.json()

    def test_tree_shape_actions_and_independents(self, api, workspace, group):
        chain = make_chain(workspace, group, shape="A>B>D,A>C")
        lone = make_campaign(workspace, group=group)
        body = self._tree(api, group)
        assert body["total_root_items"] == 2
        by_id = {n["campaign_id"]: n for n in body["roots"]}
        a = by_id[chain["A"].id]
        assert {c["campaign_id"] for c in a["children"]} == {chain["B"].id, chain["C"].id}
        b = next(c for c in a["children"] if c["campaign_id"] == chain["B"].id)
        assert b["children"][0]["campaign_id"] == chain["D"].id
        assert "delete" not in b["allowed_actions"] and "delete" in b["children"][0]["allowed_actions"]
        assert "submit" in a["allowed_actions"]
        assert by_id[lone.id]["children"] == []

    def test_the_tree_pages_its_top_level_campaigns_by_cursor_too(self, api, workspace, group):
        made = [make_campaign(workspace, group=group).id for _ in range(5)]
        first = self._tree(api, group, size=2)
        assert (first["page"], first["has_more"], len(first["roots"])) == (1, True, 2) and first["next"]
        seen = [n["campaign_id"] for n in first["roots"]]
        answer = first
        while answer["next"]:
            answer = self._tree(api, group, size=2, cursor=answer["next"])
            assert answer["page"] is None
            seen += [n["campaign_id"] for n in answer["roots"]]
        assert sorted(seen) == sorted(made) and len(seen) == 5 and answer["has_more"] is False
        past = self._tree(api, group, page=9, size=2)
        assert (past["roots"], past["has_more"], past["next"]) == ([], False, None)
        bad = api.get(f"/api/v1/campaign-groups/{group.id}/campaign-tree", {"cursor": "nonsense"})
        assert bad.status_code == 400 and "cursor" in bad.json()["error"]["details"]

    def test_query_count_does_not_grow_with_the_tree(self, api, workspace, group):
        make_chain(workspace, group, shape="A>B")
        self._tree(api, group)  # the token's first use is recorded once; measure steady requests
        with CaptureQueriesContext(connection) as small:
            self._tree(api, group)
        make_chain(workspace, group, shape="A>B>C>D>E,A>F>G,A>H")
        make_chain(workspace, group, shape="A>B>C,B>D,B>E")
        with CaptureQueriesContext(connection) as big:
            body = self._tree(api, group)
        assert body["total_root_items"] == 3 and body["has_more"] is False
        assert len(big) == len(small)
        assert self._tree(api, group, size=2)["has_more"] is True

    def test_search_returns_whole_chain_marked_matched(self, api, workspace, group):
        chain = make_chain(workspace, group, shape="A>B>D")
        ChainNode.objects.filter(pk=chain["D"].id).update(name="Nhắc lại lần hai")
        make_chain(workspace, group)
        body = self._tree(api, group, query="nhắc")
        assert body["total_root_items"] == 1
        a = body["roots"][0]
        assert a["campaign_id"] == chain["A"].id and not a["matched"]
        d = a["children"][0]["children"][0]
        assert d["campaign_id"] == chain["D"].id and d["matched"]

    def test_paging_roots(self, api, workspace, group):
        for _ in range(3):
            make_chain(workspace, group)
        body = self._tree(api, group, page=2, size=2)
        assert body["total_root_items"] == 3 and len(body["roots"]) == 1

    def test_viewer_sees_view_only(self, workspace, group):
        make_chain(workspace, group)
        viewer = api_client_for(make_member(workspace, Role.VIEWER), workspace)
        body = viewer.get(f"/api/v1/campaign-groups/{group.id}/campaign-tree").json()
        assert body["roots"][0]["allowed_actions"] == ["view"]


@pytest.mark.django_db
class TestSourcesAndPreview:
    def test_sources_exclude_self_descendants_locked_and_event_roots(self, api, workspace, group):
        chain = make_chain(workspace, group, shape="A>B>D,A>C")
        make_chain(workspace, group, status=CampaignStatus.SCHEDULED)
        event_root = make_campaign(workspace, group=group, root_schedule={"type": "EVENT"})
        response = api.get(f"/api/v1/campaign-groups/{group.id}/inheritance-sources", {"campaign_id": chain["B"].id})
        assert response.status_code == 200
        ids = {s["campaign_id"] for s in response.json()["results"]}
        assert ids == {chain["A"].id, chain["C"].id}
        assert event_root.id not in ids

    def test_preview_periods_and_unknown_audience(self, api, workspace, group):
        chain = make_chain(workspace, group)
        body = {
            "source_campaign_id": chain["B"].id,
            "schedule": {"type": "AFTER_INTERVAL", "offset_days": 3, "run_time": "10:00"},
        }
        response = api.post("/api/v1/campaign/inheritance/preview", body, format="json")
        assert response.status_code == 200, response.content
        result = response.json()
        assert len(result["periods"]) == 4 and result["errors"] == {}
        first = result["periods"][0]
        assert first["planned_source_at"] > first["period_start"]  # B runs 2 days after the root
        assert first["planned_child_at"] > first["planned_source_at"]
        assert result["audience_estimate"] == {"status": "UNKNOWN", "count": None, "cost": None}
        assert result["time_zone"] == workspace.time_zone

    def test_preview_field_errors(self, api, workspace, group):
        chain = make_chain(workspace, group)
        body = {
            "source_campaign_id": chain["A"].id,
            "schedule": {"type": "AFTER_INTERVAL", "offset_days": 40, "run_time": "10:00"},
        }
        result = api.post("/api/v1/campaign/inheritance/preview", body, format="json").json()
        assert "schedule.offset_days" in result["errors"]
        assert result["reasons"][0]["code"] == "AFTER_INTERVAL_LONGER_THAN_PERIOD"
        bad = {
            "source_campaign_id": chain["A"].id,
            "schedule": {"type": "AFTER_INTERVAL", "offset_days": 0, "run_time": "x"},
        }
        result = api.post("/api/v1/campaign/inheritance/preview", bad, format="json").json()
        assert set(result["errors"]) == {"schedule.offset_days", "schedule.run_time"} and result["periods"] == []

    def test_preview_other_workspace_404(self, api, other_workspace):
        foreign = make_chain(other_workspace, make_group(other_workspace))["A"]
        body = {
            "source_campaign_id": foreign.id,
            "schedule": {"type": "AFTER_INTERVAL", "offset_days": 1, "run_time": "10:00"},
        }
        assert api.post("/api/v1/campaign/inheritance/preview", body, format="json").status_code == 404


@pytest.mark.django_db
class TestBodiesAreValidated:
    """Submit and the deletes read their parameters through a BodyInput: an unknown field or a bad value is
    a 400 naming it, never dropped in silence (a dropped revision would skip the stale-edit check)."""

    def test_submit_refuses_an_unknown_field_and_a_revision_that_is_not_a_number(self, api, workspace, group):
        chain = make_chain(workspace, group)
        url = f"/api/v1/campaign/{chain['A'].id}/submit"
        response = api.post(url, {"expected_chain_revision": 1, "note": "x"}, format="json")
        assert (response.status_code, list(response.json()["error"]["details"])) == (400, ["note"])
        response = api.post(url, {"expected_chain_revision": "one"}, format="json")
        assert (response.status_code, list(response.json()["error"]["details"])) == (400, ["expected_chain_revision"])
        assert not ChainApprovalPackage.objects.exists()

    def test_chain_delete_refuses_a_bad_revision_in_the_body_or_the_query(self, api, workspace, group):
        chain = make_chain(workspace, group)
        url = f"/api/v1/campaign/{chain['B'].id}"
        for response in (
            api.delete(f"{url}?expected_chain_revision=abc"),
            api.delete(url, {"expected_chain_revision": "abc"}, format="json"),
            api.delete(url, {"expected_chain_revision": 1, "force": True}, format="json"),
        ):
            assert response.status_code == 400, response.content
        assert ChainNode.objects.get(pk=chain["B"].id).deleted_at is None
        assert api.delete(f"{url}?expected_chain_revision=1").status_code == 204

    def test_group_delete_refuses_an_unknown_field(self, api, workspace, group):
        url = f"/api/v1/campaign-groups/{group.id}"
        response = api.delete(url, {"expected_revision": group.revision, "cascade": True}, format="json")
        assert (response.status_code, list(response.json()["error"]["details"])) == (400, ["cascade"])
        assert api.delete(f"{url}?expected_revision=x").status_code == 400
        assert api.delete(url, {"expected_revision": group.revision}, format="json").status_code == 204
