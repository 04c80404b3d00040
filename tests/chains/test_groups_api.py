"""ChainNode groups (LAV-439): API, rules and every row of the spec's case table."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from campaigns.chains.choices import GroupStatus
from campaigns.chains.models import CampaignGroup, ChainNode
from campaigns.chains.services import groups as svc
from campaigns.chains.text import name_key, search_text
from campaigns.choices import CampaignStatus, Role

from ..api_base import TenantIsolationCases
from ..conftest import api_client_for, make_campaign, make_member, make_workspace
from .conftest import group_of, make_chain, make_group

URL = "/api/v1/campaign-groups"


class TestGroupIsolation(TenantIsolationCases):
    list_url = URL
    detail_url = URL + "/{id}"
    update_method = "put"
    update_payload = {"name": "دزدیده", "expected_revision": 1}

    def make(self, workspace):
        return make_group(workspace)

    def test_delete_other_workspace_is_404_and_kept(self, setup):
        client, _, foreign = setup
        before = self.snapshot(foreign)
        assert (
            client.delete(self.detail_url.format(id=foreign.id), {"expected_revision": 1}, format="json").status_code
            == 404
        )
        assert self.snapshot(foreign) == before


def test_text_normalisation_vietnamese_and_persian():
    assert name_key("  Chiến   Dịch ") == "chiến dịch"
    assert search_text("Chiến Dịch Đặc Biệt") == "chien dich dac biet"
    assert search_text("كمپين‌ ويژه") == search_text("کمپین ویژه")
    assert search_text("کَمپین") == "کمپین"


@pytest.mark.django_db
class TestCreateUpdate:
    def test_create_trims_and_computes_keys(self, api, workspace):
        response = api.post(URL, {"name": "  Chiến dịch  Tết ", "description": "x"}, format="json")
        assert response.status_code == 201, response.content
        body = response.json()
        assert body["name"] == "Chiến dịch Tết"
        assert body["status"] == "ACTIVE" and body["revision"] == 1
        group = CampaignGroup.objects.get(pk=body["id"])
        assert group.workspace == workspace
        assert group.name_key == "chiến dịch tết" and group.name_search == "chien dich tet"

    def test_workspace_in_body_is_refused(self, api, workspace, other_workspace):
        response = api.post(URL, {"name": "g", "workspace": other_workspace.id}, format="json")
        assert response.status_code == 400 and list(response.json()["error"]["details"]) == ["workspace"]
        assert not CampaignGroup.objects.filter(workspace=other_workspace).exists()

    @pytest.mark.parametrize("name", ["", "   ", "x" * 256])
    def test_name_length(self, api, name):
        response = api.post(URL, {"name": name}, format="json")
        assert response.status_code == 400
        assert "name" in response.json()["error"]["details"]

    def test_description_max_500(self, api):
        assert api.post(URL, {"name": "a", "description": "x" * 501}, format="json").status_code == 400
        assert api.post(URL, {"name": "a", "description": "x" * 500}, format="json").status_code == 201

    def test_case_duplicate_active_name_other_case_is_409(self, api, workspace):
        make_group(workspace, "Khuyến Mãi")
        response = api.post(URL, {"name": "KHUYẾN MÃI"}, format="json")
        assert response.status_code == 409
        assert response.json()["error"]["code"] == "GROUP_NAME_TAKEN"

    def test_accent_insensitive_search_is_not_accent_insensitive_uniqueness(self, api, workspace):
        make_group(workspace, "Khuyến Mãi")
        assert api.post(URL, {"name": "Khuyen Mai"}, format="json").status_code == 201

    def test_deleted_group_does_not_block_the_name(self, api, workspace):
        make_group(workspace, "قدیمی", status=GroupStatus.DELETED)
        assert api.post(URL, {"name": "قدیمی"}, format="json").status_code == 201

    def test_same_name_in_other_workspace_is_fine(self, api, other_workspace):
        make_group(other_workspace, "مشترک")
        assert api.post(URL, {"name": "مشترک"}, format="json").status_code == 201

    def test_update_with_expected_revision_bumps(self, api, group):
        response = api.put(f"{URL}/{group.id}", {"name": "نو", "expected_revision": 1}, format="json")
        assert response.status_code == 200, response.content
        assert response.json()["revision"] == 2 and response.json()["name"] == "نو"

    def test_case_stale_revision_is_409_and_never_overwrites(self, api, group):
        api.put(f"{URL}/{group.id}", {"name": "اول", "expected_revision": 1}, format="json")
        response = api.put(f"{URL}/{group.id}", {"name": "دوم", "expected_revision": 1}, format="json")
        assert response.status_code == 409
        assert response.json()["error"]["code"] == "STALE_REVISION"
        group.refresh_from_db()
        assert group.name == "اول"

    def test_update_requires_expected_revision(self, api, group):
        assert api.put(f"{URL}/{group.id}", {"name": "x"}, format="json").status_code == 400

    def test_rename_to_existing_name_409(self, api, workspace, group):
        make_group(workspace, "Taken")
        response = api.put(f"{URL}/{group.id}", {"name": "taken", "expected_revision": 1}, format="json")
        assert response.status_code == 409
        assert response.json()["error"]["code"] == "GROUP_NAME_TAKEN"

    def test_case_missing_group_is_404(self, api):
        assert api.get(f"{URL}/999999").status_code == 404
        assert api.put(f"{URL}/999999", {"name": "x", "expected_revision": 1}, format="json").status_code == 404
        assert api.post(f"{URL}/999999/campaigns", {"campaign_ids": [1]}, format="json").status_code == 404

    def test_viewer_cannot_write(self, workspace, group):
        viewer = api_client_for(make_member(workspace, Role.VIEWER), workspace)
        assert viewer.get(URL).status_code == 200
        assert viewer.post(URL, {"name": "x"}, format="json").status_code == 403
        assert viewer.put(f"{URL}/{group.id}", {"name": "x", "expected_revision": 1}, format="json").status_code == 403


@pytest.mark.django_db
class TestList:
    def test_search_is_accent_insensitive_and_escaped(self, api, workspace):
        make_group(workspace, "Chiến dịch Tết")
        make_group(workspace, "100% giảm giá")
        make_group(workspace, "گروه_ویژه")
        names = lambda q: {g["name"] for g in api.get(URL, {"query": q}).json()["results"]}  # noqa: E731
        assert names("chien dich") == {"Chiến dịch Tết"}
        assert names("TẾT") == {"Chiến dịch Tết"}
        assert names("%") == {"100% giảm giá"}
        assert names("_") == {"گروه_ویژه"}
        assert names(".*") == set()

    def test_deleted_groups_are_not_listed(self, api, workspace):
        make_group(workspace, "gone", status=GroupStatus.DELETED)
        assert api.get(URL).json()["count"] == 0

    def test_counts_by_status_from_one_aggregate(self, api, workspace):
        groups = [make_group(workspace) for _ in range(5)]
        for g in groups:
            make_campaign(workspace, group=g)
            make_campaign(workspace, group=g, status=CampaignStatus.ACTIVE)
        make_campaign(workspace, group=groups[0], status=CampaignStatus.ACTIVE, deleted_at="2026-01-01T00:00:00Z")
        api.get(URL)  # the token's first use is recorded once; measure steady requests
        with CaptureQueriesContext(connection) as few:
            response = api.get(URL, {"size": 2})
        assert response.status_code == 200
        body = response.json()
        assert body["count"] == 5 and len(body["results"]) == 2
        counts = body["results"][0]["campaign_counts"]
        assert counts["draft"] == 1 and counts["active"] == 1 and counts["total"] == 2
        with CaptureQueriesContext(connection) as many:
            api.get(URL, {"size": 5})
        assert len(many) == len(few)  # page size does not add queries
        aggregate = [q for q in many.captured_queries if "GROUP BY" in q["sql"]]
        assert len(aggregate) == 1

    def test_page_and_size(self, api, workspace):
        for _ in range(3):
            make_group(workspace)
        body = api.get(URL, {"page": 2, "size": 2}).json()
        assert body["page"] == 2 and len(body["results"]) == 1


@pytest.mark.django_db
class TestMembership:
    def test_add_dedupes_and_bumps_revision(self, api, workspace, group):
        a, b = make_campaign(workspace), make_campaign(workspace)
        response = api.post(f"{URL}/{group.id}/campaigns", {"campaign_ids": [a.id, b.id, a.id]}, format="json")
        assert response.status_code == 200, response.content
        body = response.json()
        assert body["added_ids"] == [a.id, b.id] and body["rejected_items"] == []
        assert body["revision"] == 2
        assert set(ChainNode.objects.filter(group=group).values_list("id", flat=True)) == {a.id, b.id}

    def test_add_at_most_100_ids(self, api, group):
        response = api.post(f"{URL}/{group.id}/campaigns", {"campaign_ids": list(range(1, 102))}, format="json")
        assert response.status_code == 400
        assert "campaign_ids" in response.json()["error"]["details"]

    def test_case_some_moved_are_rejected_others_kept(self, api, workspace, other_workspace, group):
        free = make_campaign(workspace)
        elsewhere = make_campaign(workspace, group=make_group(workspace))
        already = make_campaign(workspace, group=group)
        foreign = make_campaign(other_workspace)
        deleted = make_campaign(workspace, deleted_at="2026-01-01T00:00:00Z")
        chain = make_chain(workspace, None)
        ids = [free.id, elsewhere.id, already.id, foreign.id, deleted.id, chain["B"].id]
        body = api.post(f"{URL}/{group.id}/campaigns", {"campaign_ids": ids}, format="json").json()
        assert body["added_ids"] == [free.id]
        reasons = {item["campaign_id"]: item["reason"] for item in body["rejected_items"]}
        assert reasons == {
            elsewhere.id: "IN_OTHER_GROUP",
            already.id: "ALREADY_IN_GROUP",
            foreign.id: "NOT_FOUND",
            deleted.id: "NOT_FOUND",
            chain["B"].id: "IN_CHAIN",
        }
        assert group_of(foreign) is None

    def test_nothing_added_keeps_revision(self, api, workspace, group):
        elsewhere = make_campaign(workspace, group=make_group(workspace))
        body = api.post(f"{URL}/{group.id}/campaigns", {"campaign_ids": [elsewhere.id]}, format="json").json()
        assert body["added_ids"] == [] and body["revision"] == 1

    def test_case_group_deleted_while_adding_adds_nothing(self, actor, workspace, group):
        """The group is deleted after the request loaded it: the conditional bump finds no ACTIVE row."""
        campaign = make_campaign(workspace)
        original = svc.active_group

        def load_then_delete(a, gid):
            loaded = original(a, gid)
            CampaignGroup.objects.filter(pk=gid).update(status=GroupStatus.DELETED)
            return loaded

        svc.active_group = load_then_delete
        try:
            with pytest.raises(svc.GroupDeleted):
                svc.group_add_campaigns(actor=actor, group_id=group.id, campaign_ids=[campaign.id])
        finally:
            svc.active_group = original
        assert group_of(campaign) is None

    def test_add_to_deleted_group_via_api_404(self, api, workspace):
        gone = make_group(workspace, status=GroupStatus.DELETED)
        campaign = make_campaign(workspace)
        assert api.post(f"{URL}/{gone.id}/campaigns", {"campaign_ids": [campaign.id]}, format="json").status_code == 404

    def test_remove_independent_keeps_status(self, api, workspace, group):
        campaign = make_campaign(workspace, group=group, status=CampaignStatus.ACTIVE)
        response = api.delete(f"{URL}/{group.id}/campaigns/{campaign.id}", {"expected_revision": 1}, format="json")
        assert response.status_code == 200, response.content
        assert response.json()["revision"] == 2
        campaign.refresh_from_db()
        assert campaign.group_id is None and campaign.status == CampaignStatus.ACTIVE

    def test_case_remove_chain_member_409_unchanged(self, api, workspace, group):
        chain = make_chain(workspace, group)
        for node in chain.values():
            response = api.delete(f"{URL}/{group.id}/campaigns/{node.id}", {"expected_revision": 1}, format="json")
            assert response.status_code == 409
            assert response.json()["error"]["code"] == "CAMPAIGN_IN_CHAIN"
            node.refresh_from_db()
            assert node.group_id == group.id
        group.refresh_from_db()
        assert group.revision == 1

    def test_remove_stale_revision(self, api, workspace, group):
        campaign = make_campaign(workspace, group=group)
        response = api.delete(f"{URL}/{group.id}/campaigns/{campaign.id}", {"expected_revision": 7}, format="json")
        assert response.status_code == 409
        campaign.refresh_from_db()
        assert campaign.group_id == group.id

    def test_remove_campaign_not_in_group_404(self, api, workspace, group):
        campaign = make_campaign(workspace)
        response = api.delete(f"{URL}/{group.id}/campaigns/{campaign.id}?expected_revision=1")
        assert response.status_code == 404

    def test_move_between_groups_bumps_both(self, api, workspace, group):
        target = make_group(workspace)
        campaign = make_campaign(workspace, group=group)
        response = api.post(
            f"{URL}/{group.id}/campaigns/{campaign.id}/move",
            {"to_group_id": target.id, "expected_revision": 1},
            format="json",
        )
        assert response.status_code == 200, response.content
        campaign.refresh_from_db()
        group.refresh_from_db()
        target.refresh_from_db()
        assert campaign.group_id == target.id
        assert (group.revision, target.revision) == (2, 2)

    def test_move_to_deleted_group_changes_nothing(self, api, workspace, group):
        target = make_group(workspace, status=GroupStatus.DELETED)
        campaign = make_campaign(workspace, group=group)
        response = api.post(
            f"{URL}/{group.id}/campaigns/{campaign.id}/move",
            {"to_group_id": target.id, "expected_revision": 1},
            format="json",
        )
        assert response.status_code == 400
        campaign.refresh_from_db()
        group.refresh_from_db()
        assert campaign.group_id == group.id and group.revision == 1

    def test_move_deleted_inside_transaction_rolls_back_both(self, actor, workspace, group):
        target = make_group(workspace)
        campaign = make_campaign(workspace, group=group)
        CampaignGroup.objects.filter(pk=target.pk).update(revision=5)
        with pytest.raises(svc.StaleRevision):
            svc.group_move_campaign(
                actor=actor,
                group_id=group.id,
                campaign_id=campaign.id,
                to_group_id=target.id,
                expected_revision=1,
                expected_target_revision=4,
            )
        group.refresh_from_db()
        campaign.refresh_from_db()
        assert group.revision == 1 and campaign.group_id == group.id


@pytest.mark.django_db
class TestDelete:
    def test_delete_detaches_independent_campaigns(self, api, workspace, group):
        campaign = make_campaign(workspace, group=group)
        finished = make_chain(workspace, group, status=CampaignStatus.COMPLETED)
        response = api.delete(f"{URL}/{group.id}", {"expected_revision": 1}, format="json")
        assert response.status_code == 204, response.content
        group.refresh_from_db()
        campaign.refresh_from_db()
        assert group.status == GroupStatus.DELETED and group.revision == 2
        assert campaign.group_id is None
        child = ChainNode.objects.get(pk=finished["B"].pk)
        assert (child.group_id, child.parent_id, child.root_id) == (group.id, finished["A"].id, finished["A"].id)

    @pytest.mark.parametrize(
        "status", [CampaignStatus.DRAFT, CampaignStatus.SCHEDULED, CampaignStatus.ACTIVE, CampaignStatus.PAUSED]
    )
    def test_case_delete_with_unfinished_chain_409_with_list(self, api, workspace, group, status):
        chain = make_chain(workspace, group, status=status)
        make_chain(workspace, group, status=CampaignStatus.COMPLETED)
        response = api.delete(f"{URL}/{group.id}", {"expected_revision": 1}, format="json")
        assert response.status_code == 409
        error = response.json()["error"]
        assert error["code"] == "GROUP_HAS_UNFINISHED_CHAINS"
        assert [c["root_campaign_id"] for c in error["details"]["blocking_chains"]] == [chain["A"].id]
        group.refresh_from_db()
        assert group.status == GroupStatus.ACTIVE and group.revision == 1

    def test_delete_stale_revision(self, api, group):
        assert api.delete(f"{URL}/{group.id}", {"expected_revision": 3}, format="json").status_code == 409
        group.refresh_from_db()
        assert group.status == GroupStatus.ACTIVE

    def test_delete_expected_revision_in_query(self, api, group):
        assert api.delete(f"{URL}/{group.id}?expected_revision=1").status_code == 204

    def test_delete_without_expected_revision_400(self, api, group):
        assert api.delete(f"{URL}/{group.id}").status_code == 400


@pytest.mark.django_db
class TestCampaignListFilter:
    def test_group_filter_all_none_id(self, api, workspace, group):
        inside = make_campaign(workspace, group=group)
        outside = make_campaign(workspace)
        ids = lambda value: {c["id"] for c in api.get("/api/v1/campaigns", {"group": value}).json()["results"]}  # noqa: E731
        assert ids("ALL") == {inside.id, outside.id}
        assert ids("NONE") == {outside.id}
        assert ids(str(group.id)) == {inside.id}
        assert api.get("/api/v1/campaigns", {"group": "abc"}).status_code == 400

    def test_group_filter_other_workspace_id_matches_nothing(self, api, other_workspace):
        foreign = make_group(other_workspace)
        make_campaign(other_workspace, group=foreign)
        assert api.get("/api/v1/campaigns", {"group": foreign.id}).json()["count"] == 0


def test_isolation_of_membership_endpoints(db):
    mine, theirs = make_workspace("m"), make_workspace("t")
    client = api_client_for(make_member(mine), mine)
    their_group = make_group(theirs)
    their_campaign = make_campaign(theirs, group=their_group)
    my_group = make_group(mine)
    assert client.post(f"{URL}/{their_group.id}/campaigns", {"campaign_ids": [1]}, format="json").status_code == 404
    assert client.delete(f"{URL}/{their_group.id}/campaigns/{their_campaign.id}?expected_revision=1").status_code == 404
    assert client.delete(f"{URL}/{my_group.id}/campaigns/{their_campaign.id}?expected_revision=1").status_code == 404
    move = client.post(
        f"{URL}/{their_group.id}/campaigns/{their_campaign.id}/move",
        {"to_group_id": my_group.id, "expected_revision": 1},
        format="json",
    )
    assert move.status_code == 404
    assert client.get(f"{URL}/{their_group.id}/campaign-tree").status_code == 404
    assert client.get(f"{URL}/{their_group.id}/inheritance-sources").status_code == 404
    their_campaign.refresh_from_db()
    assert their_campaign.group_id == their_group.id
