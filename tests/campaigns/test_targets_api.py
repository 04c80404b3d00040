"""Targets and lists through the API: CRUD, duplicates, roles."""

import pytest
from rest_framework.test import APIClient

from campaigns.choices import Role
from campaigns.models import Target

from ..conftest import api_client_for, make_list, make_member, make_target, make_workspace

pytestmark = pytest.mark.django_db


def test_create_normalises_numbers_and_returns_the_target(api, workspace):
    tl = make_list(workspace)
    response = api.post(
        "/api/v1/targets",
        {"name": "علی رضایی", "mobile": "۰۹۱۲ ۳۴۵ ۶۷۸۹", "landline": "021-88776655", "list_ids": [tl.id]},
        format="json",
    )
    assert response.status_code == 201, response.content
    body = response.json()
    assert body["mobile"] == "+989123456789"
    assert body["landline"] == "+982188776655"
    assert body["list_ids"] == [tl.id]
    assert body["status"] == "new"


def test_duplicate_number_in_same_workspace_is_a_field_error(api, workspace):
    existing = make_target(workspace, mobile="+989123456789", name="قبلی")
    response = api.post("/api/v1/targets", {"name": "جدید", "mobile": "00989123456789"}, format="json")
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "VALIDATION_ERROR"
    assert "قبلی" in error["details"]["mobile"][0]
    assert error["details"]["duplicate_of"]["mobile"] == existing.id


def test_same_number_in_another_workspace_is_fine(api, other_workspace):
    make_target(other_workspace, mobile="+989123456789")
    response = api.post("/api/v1/targets", {"name": "جدید", "mobile": "09123456789"}, format="json")
    assert response.status_code == 201


def test_number_of_a_deleted_target_can_be_reused(api, workspace):
    old = make_target(workspace, mobile="+989123456789")
    assert api.delete(f"/api/v1/targets/{old.id}").status_code == 204
    assert api.post("/api/v1/targets", {"name": "نو", "mobile": "09123456789"}, format="json").status_code == 201


@pytest.mark.parametrize(
    ("payload", "field"),
    [
        ({"name": "x", "mobile": "02188776655"}, "mobile"),
        ({"name": "x", "landline": "09123456789"}, "landline"),
        ({"name": "x"}, "non_field_errors"),
        ({"name": "x", "mobile": "", "landline": ""}, "non_field_errors"),
        ({"name": "x", "mobile": "12"}, "mobile"),
        ({"mobile": "09123456789"}, "name"),
    ],
)
def test_invalid_input_is_reported_per_field(api, payload, field):
    response = api.post("/api/v1/targets", payload, format="json")
    assert response.status_code == 400
    assert field in response.json()["error"]["details"]
    assert not Target.objects.exists()


def test_update_changes_only_given_fields(api, workspace):
    target = make_target(workspace, mobile="+989123456789", city="تهران")
    response = api.patch(f"/api/v1/targets/{target.id}", {"status": "interested"}, format="json")
    assert response.status_code == 200
    target.refresh_from_db()
    assert (target.status, target.city, target.mobile) == ("interested", "تهران", "+989123456789")


def test_update_to_a_taken_number_is_refused(api, workspace):
    make_target(workspace, mobile="+989121111111")
    target = make_target(workspace, mobile="+989122222222")
    response = api.patch(f"/api/v1/targets/{target.id}", {"mobile": "09121111111"}, format="json")
    assert response.status_code == 400
    target.refresh_from_db()
    assert target.mobile == "+989122222222"


def test_soft_delete_hides_but_keeps_the_row(api, workspace):
    target = make_target(workspace)
    assert api.delete(f"/api/v1/targets/{target.id}").status_code == 204
    assert api.get(f"/api/v1/targets/{target.id}").status_code == 404
    assert Target.objects.filter(pk=target.id, deleted_at__isnull=False).exists()


def test_filters_and_pagination(api, workspace):
    tl = make_list(workspace)
    for i in range(5):
        t = make_target(workspace, city="شیراز" if i < 3 else "تبریز")
        if i == 0:
            t.lists.add(tl)
    response = api.get("/api/v1/targets", {"city": "شیراز", "size": 2, "page": 2})
    body = response.json()
    assert (body["count"], body["page"], body["size"], len(body["results"])) == (3, 2, 2, 1)
    assert api.get("/api/v1/targets", {"list": tl.id}).json()["count"] == 1


def test_search_by_number_in_any_digit_form(api, workspace):
    make_target(workspace, mobile="+989123456789", name="الف")
    make_target(workspace, mobile="+989350000000", name="ب")
    results = api.get("/api/v1/targets", {"q": "۰۹۱۲۳۴۵۶۷۸۹"}).json()["results"]
    assert [r["name"] for r in results] == ["الف"]


def test_invalid_filter_value_is_a_validation_error(api):
    response = api.get("/api/v1/targets", {"status": "nope"})
    assert response.status_code == 400
    assert "status" in response.json()["error"]["details"]


def test_operator_sees_and_edits_only_own_targets(workspace):
    operator = make_member(workspace, Role.OPERATOR)
    mine = make_target(workspace, owner=operator)
    theirs = make_target(workspace)
    client = api_client_for(operator, workspace)
    ids = [r["id"] for r in client.get("/api/v1/targets").json()["results"]]
    assert ids == [mine.id]
    assert client.get(f"/api/v1/targets/{theirs.id}").status_code == 404
    created = client.post("/api/v1/targets", {"name": "x", "mobile": "09120000009", "owner_id": None}, format="json")
    assert created.json()["owner_id"] == operator.id


def test_viewer_cannot_write(workspace):
    viewer = make_member(workspace, Role.VIEWER)
    client = api_client_for(viewer, workspace)
    assert client.get("/api/v1/targets").status_code == 200
    response = client.post("/api/v1/targets", {"name": "x", "mobile": "09120000009"}, format="json")
    assert response.status_code == 403
    assert response.json()["error"]["code"] == "PERMISSION_DENIED"


def test_owner_must_be_a_member_of_the_workspace(api, other_workspace):
    stranger = make_member(other_workspace)
    response = api.post(
        "/api/v1/targets", {"name": "x", "mobile": "09120000009", "owner_id": stranger.id}, format="json"
    )
    assert response.status_code == 400
    assert "owner" in response.json()["error"]["details"]


def test_lists_crud(api, workspace):
    created = api.post("/api/v1/target-lists", {"name": "مشتریان"}, format="json")
    assert created.status_code == 201
    list_id = created.json()["id"]
    assert api.post("/api/v1/target-lists", {"name": "مشتریان"}, format="json").status_code == 400
    assert api.patch(f"/api/v1/target-lists/{list_id}", {"name": "وفادار"}, format="json").json()["name"] == "وفادار"
    target = make_target(workspace)
    target.lists.add(list_id)
    assert api.get(f"/api/v1/target-lists/{list_id}").json()["target_count"] == 1
    assert api.delete(f"/api/v1/target-lists/{list_id}").status_code == 204
    assert Target.objects.filter(pk=target.pk).exists()


def test_workspace_resolution(db):
    first, second = make_workspace(), make_workspace()
    user = make_member(first)
    from campaigns.services.workspaces import membership_set

    membership_set(workspace=second, user=user, role=Role.VIEWER)
    client = APIClient()  # signed in: the header picks any workspace of the user
    client.force_login(user)
    assert client.get("/api/v1/me").json()["current_workspace_id"] == first.id  # default
    me = client.get("/api/v1/me", HTTP_X_WORKSPACE=second.slug).json()
    assert me["current_workspace_id"] == second.id
    assert client.get("/api/v1/me", HTTP_X_WORKSPACE=str(second.id)).json()["current_workspace_id"] == second.id
    assert client.get("/api/v1/me", HTTP_X_WORKSPACE="nope").status_code == 404
    keyed = api_client_for(user)  # a key acts in its one workspace: naming another is a 404
    assert keyed.get("/api/v1/me").json()["current_workspace_id"] == first.id
    assert keyed.get("/api/v1/me", HTTP_X_WORKSPACE=str(first.id)).status_code == 200
    assert keyed.get("/api/v1/me", HTTP_X_WORKSPACE=second.slug).status_code == 404
