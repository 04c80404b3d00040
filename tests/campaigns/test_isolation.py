"""Tenant isolation for every campaigns endpoint."""

import pytest

from campaigns.models import TargetImport

from ..api_base import TenantIsolationCases
from ..conftest import api_client_for, make_campaign, make_list, make_member, make_target, make_workspace


class TestTargetIsolation(TenantIsolationCases):
    list_url = "/api/v1/targets"
    detail_url = "/api/v1/targets/{id}"
    update_payload = {"name": "دزدیده"}

    def make(self, workspace):
        return make_target(workspace)


class TestTargetReplaceIsolation(TestTargetIsolation):
    update_method = "put"
    update_payload = {"name": "دزدیده", "mobile": "09121112233"}


class TestTargetListIsolation(TenantIsolationCases):
    list_url = "/api/v1/target-lists"
    detail_url = "/api/v1/target-lists/{id}"
    update_payload = {"name": "دزدیده"}

    def make(self, workspace):
        return make_list(workspace)


class TestCampaignIsolation(TenantIsolationCases):
    list_url = "/api/v1/campaigns"
    detail_url = "/api/v1/campaigns/{id}"
    can_delete = False

    def make(self, workspace):
        return make_campaign(workspace)


class TestTargetImportIsolation(TenantIsolationCases):
    detail_url = "/api/v1/targets/imports/{id}"
    can_delete = False

    def make(self, workspace):
        return TargetImport.objects.create(workspace=workspace, file_name="a.csv")

    def test_rows_of_other_workspace_import_are_404(self, setup):
        client, own, foreign = setup
        assert client.get(f"/api/v1/targets/imports/{own.id}/rows").status_code == 200
        assert client.get(f"/api/v1/targets/imports/{foreign.id}/rows").status_code == 404


@pytest.mark.django_db
def test_export_contains_only_own_workspace_targets():
    import io

    from openpyxl import load_workbook

    mine, theirs = make_workspace(), make_workspace()
    make_target(mine, name="خودی")
    make_target(theirs, name="غریبه")
    client = api_client_for(make_member(mine), mine)
    response = client.get("/api/v1/targets/export")
    assert response.status_code == 200
    rows = list(load_workbook(io.BytesIO(response.getvalue())).active.iter_rows(values_only=True))
    names = {row[0] for row in rows[1:]}
    assert names == {"خودی"}


@pytest.mark.django_db
def test_list_filter_cannot_reach_other_workspace_list():
    mine, theirs = make_workspace(), make_workspace()
    foreign_list = make_list(theirs)
    foreign_target = make_target(theirs)
    foreign_target.lists.add(foreign_list)
    client = api_client_for(make_member(mine), mine)
    response = client.get("/api/v1/targets", {"list": foreign_list.id})
    assert response.status_code == 200
    assert response.json()["results"] == []


@pytest.mark.django_db
def test_workspace_in_body_is_refused():
    from campaigns.models import Target

    mine, theirs = make_workspace(), make_workspace()
    client = api_client_for(make_member(mine), mine)
    response = client.post(
        "/api/v1/targets", {"name": "x", "mobile": "09120000001", "workspace": theirs.id}, format="json"
    )
    assert response.status_code == 400 and list(response.json()["error"]["details"]) == ["workspace"]
    assert not Target.objects.filter(workspace=theirs).exists()
    response = client.post("/api/v1/targets", {"name": "x", "mobile": "09120000001"}, format="json")
    assert Target.objects.get(pk=response.json()["id"]).workspace_id == mine.id  # the key's workspace, always


@pytest.mark.django_db
def test_assigning_list_of_other_workspace_is_rejected():
    mine, theirs = make_workspace(), make_workspace()
    client = api_client_for(make_member(mine), mine)
    response = client.post(
        "/api/v1/targets", {"name": "x", "mobile": "09120000002", "list_ids": [make_list(theirs).id]}, format="json"
    )
    assert response.status_code == 400
    assert "list_ids" in response.json()["error"]["details"]


@pytest.mark.django_db
def test_another_workspaces_target_and_import_pages_answer_404(client):
    """The target edit page and an import's report find their row in the member's workspace only."""
    own, foreign = make_workspace("own"), make_workspace("foreign")
    client.force_login(make_member(own))
    theirs, mine = make_target(foreign), make_target(own)
    their_import = TargetImport.objects.create(workspace=foreign, file_name="a.csv")
    my_import = TargetImport.objects.create(workspace=own, file_name="b.csv")
    assert client.get(f"/targets/{mine.id}/edit/").status_code == 200
    assert client.get(f"/targets/import/{my_import.id}/").status_code == 200
    assert client.get(f"/targets/{theirs.id}/edit/").status_code == 404
    assert client.get(f"/targets/import/{their_import.id}/").status_code == 404
