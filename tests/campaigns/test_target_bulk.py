"""Bulk target upsert: per-row outcomes, the import's number reading, idempotent by phone, operators' limits,
isolation; and If-Match on target updates (a stale revision is a 409)."""

import threading

import pytest
from django.db import connection

from campaigns.choices import Role, TargetStatus
from campaigns.models import Target
from campaigns.platform.database import is_postgresql

from ..conftest import api_client_for, make_list, make_member, make_target, make_workspace

pytestmark = pytest.mark.django_db

URL = "/api/v1/targets/bulk"


def bulk(client, rows, **extra):
    response = client.post(URL, {"rows": rows, **extra}, format="json")
    assert response.status_code == 200, response.content
    return response.json()


def test_rows_are_created_updated_or_refused_each_on_its_own(api, workspace):
    existing = make_target(workspace, name="قدیمی", mobile="+989121110000", city="شیراز")
    shop = make_list(workspace, "مشتریان")
    body = bulk(
        api,
        [
            {"name": "سارا", "mobile": "۰۹۱۲ ۱۲۳ ۰۰۰۱"},  # Persian digits and spaces, as the import reads them
            {"mobile": "+98 912 111 0000", "city": "تهران"},  # the existing target: given fields overwritten
            {"name": "تلفن", "mobile": "021-88776655"},  # a landline in the mobile field: classified
            {"name": "تکرار", "mobile": "09121230001"},  # repeats row 0
            {"name": "بی‌شماره"},
            {"name": "x" * 300, "mobile": "09121230002"},
        ],
        list_ids=[shop.id],
    )
    outcomes = [r["outcome"] for r in body["results"]]
    assert outcomes == ["created", "updated", "created", "duplicate", "invalid", "invalid"]
    assert (body["created"], body["updated"], body["duplicate"], body["invalid"]) == (2, 1, 1, 2)
    assert "name" in body["results"][5]["errors"] and "phone" in body["results"][4]["errors"]
    existing.refresh_from_db()
    assert existing.city == "تهران" and existing.name == "قدیمی" and existing.revision == 2
    landline = Target.objects.get(pk=body["results"][2]["id"])
    assert landline.landline == "+982188776655" and landline.mobile is None
    sara = Target.objects.get(pk=body["results"][0]["id"])
    assert sara.mobile == "+989121230001" and sara.owner is not None and "سارا" in sara.search_text
    assert set(shop.targets.values_list("id", flat=True)) == {sara.id, existing.id, landline.id}


def test_a_repeated_call_changes_nothing(api, workspace):
    rows = [{"name": f"مخاطب {i}", "mobile": f"0912{i:07d}", "status": "interested"} for i in range(50)]
    first = bulk(api, rows)
    revisions = dict(Target.objects.values_list("id", "revision"))
    again = bulk(api, rows)
    assert first["created"] == 50 and again["unchanged"] == 50 and again["created"] == 0
    assert [r["id"] for r in again["results"]] == [r["id"] for r in first["results"]]
    assert Target.objects.filter(workspace=workspace).count() == 50
    assert dict(Target.objects.values_list("id", "revision")) == revisions
    assert set(Target.objects.values_list("status", flat=True)) == {TargetStatus.INTERESTED}


def test_limits_and_unknown_fields_refuse_the_call(api):
    too_many = api.post(URL, {"rows": [{"mobile": "09121230001"}] * 10_001}, format="json")
    assert too_many.status_code == 400 and "rows" in too_many.json()["error"]["details"]
    typo = bulk(api, [{"nmae": "سارا", "mobile": "09121230001"}])
    assert typo["results"][0]["outcome"] == "invalid" and "nmae" in typo["results"][0]["errors"]
    other_list = make_list(make_workspace("other"), "دیگری")
    foreign = api.post(URL, {"rows": [{"mobile": "09121230001"}], "list_ids": [other_list.id]}, format="json")
    assert foreign.status_code == 400 and Target.objects.count() == 0


def test_an_operator_creates_their_own_and_cannot_overwrite_anothers(workspace):
    colleague_target = make_target(workspace, mobile="+989121110000", name="همکار")
    operator = make_member(workspace, Role.OPERATOR)
    body = bulk(
        api_client_for(operator, workspace), [{"mobile": "09121110000", "name": "من"}, {"mobile": "09121110001"}]
    )
    assert [r["outcome"] for r in body["results"]] == ["duplicate", "created"]
    colleague_target.refresh_from_db()
    assert colleague_target.name == "همکار"
    assert Target.objects.get(pk=body["results"][1]["id"]).owner == operator
    viewer = make_member(workspace, Role.VIEWER)
    assert (
        api_client_for(viewer, workspace).post(URL, {"rows": [{"mobile": "09121110002"}]}, format="json").status_code
        == 403
    )


def test_another_workspaces_number_is_a_new_target_here(api, workspace):
    elsewhere = make_target(make_workspace("other"), mobile="+989121110000", name="آنجا")
    body = bulk(api, [{"mobile": "09121110000", "name": "اینجا"}])
    assert body["results"][0]["outcome"] == "created" and body["results"][0]["id"] != elsewhere.id
    elsewhere.refresh_from_db()
    assert elsewhere.name == "آنجا"


def test_if_match_on_a_target_update(api, workspace):
    target = make_target(workspace, name="سارا")
    url = f"/api/v1/targets/{target.id}"
    read = api.get(url)
    assert read.json()["revision"] == 1 and read["ETag"] == '"1"'
    first = api.patch(url, {"city": "شیراز"}, format="json", HTTP_IF_MATCH='"1"')
    assert first.status_code == 200 and first.json()["revision"] == 2 and first["ETag"] == '"2"'
    stale = api.patch(url, {"city": "تهران"}, format="json", HTTP_IF_MATCH='"1"')
    assert stale.status_code == 409 and stale.json()["error"]["code"] == "STALE_REVISION"
    assert stale.json()["error"]["details"] == {"revision": 2}
    target.refresh_from_db()
    assert target.city == "شیراز"
    bad = api.patch(url, {"city": "تهران"}, format="json", HTTP_IF_MATCH="soon")
    assert bad.status_code == 400 and "If-Match" in bad.json()["error"]["details"]
    assert api.patch(url, {"city": "تهران"}, format="json").status_code == 200  # without If-Match: last write wins


@pytest.mark.django_db(transaction=True)
def test_two_updates_with_one_revision_only_one_wins(workspace):
    if not is_postgresql():
        pytest.skip("row locks: PostgreSQL")
    owner = make_member(workspace, Role.OWNER)
    target = make_target(workspace, name="سارا")
    url = f"/api/v1/targets/{target.id}"
    statuses: list[int] = []
    barrier = threading.Barrier(2)

    def edit(city):
        client = api_client_for(owner, workspace)
        barrier.wait()
        statuses.append(client.patch(url, {"city": city}, format="json", HTTP_IF_MATCH="1").status_code)
        connection.close()

    threads = [threading.Thread(target=edit, args=(c,)) for c in ("شیراز", "تهران")]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(statuses) == [200, 409]
    target.refresh_from_db()
    assert target.revision == 2


LEAN_CASES = [
    {"name": "  سارا  ", "mobile": "0912 123 0001", "city": "شیراز", "priority": 5, "status": "interested"},
    {"mobile": None, "landline": "021-88776655", "first_name": "", "attributes": {"tier": "gold", "n": [1]}},
    {"name": "", "mobile": "09121230001"},  # a blank name
    {"name": "\u200f\u200c", "mobile": "09121230001"},  # only invisible characters
    {"name": "a\x00b", "mobile": "09121230001"},
    {"name": "a\ud800", "mobile": "09121230001"},  # a lone surrogate
    {"name": 12, "mobile": "09121230001"},
    {"name": "x" * 201, "mobile": "09121230001"},
    {"name": "x" * 200 + "  ", "mobile": "09121230001"},  # the length counted after trimming
    {"city": None, "mobile": "09121230001"},
    {"status": "unknown", "mobile": "09121230001"},
    {"status": None, "mobile": "09121230001"},
    {"priority": 1001, "mobile": "09121230001"},
    {"priority": True, "mobile": "09121230001"},
    {"priority": "5", "mobile": "09121230001"},  # the serializer's own coercion
    {"attributes": [1], "mobile": "09121230001"},
    {"attributes": {f"k{i}": i for i in range(101)}, "mobile": "09121230001"},
    {"nmae": "typo", "mobile": "09121230001"},
    ["not", "a", "row"],
    None,
]


@pytest.mark.parametrize("row", LEAN_CASES, ids=range(len(LEAN_CASES)))
def test_the_lean_row_path_answers_as_the_serializer_does(row):
    from rest_framework import serializers

    from campaigns.api.bulk_serializers import LeanRow, TargetBulkRowInput

    child = TargetBulkRowInput()
    lean = LeanRow(child).validate(row)
    try:
        expected = dict(child.run_validation(row))
    except serializers.ValidationError:
        expected = None
    if lean is not None:  # a row the lean path answers is one the serializer accepts, with the same values
        assert lean == expected
    else:
        assert row not in LEAN_CASES[:2]  # the plain rows are the lean path's: that is its point


def test_a_bulk_created_target_has_the_defaults_of_one_created_alone(api, workspace):
    body = bulk(api, [{"mobile": "09121239999", "attributes": {"tier": "gold"}}])
    target = Target.objects.get(pk=body["results"][0]["id"])
    assert (target.name, target.status, target.priority, target.revision) == ("0912 123 9999", TargetStatus.NEW, 0, 1)
    assert target.attributes == {"tier": "gold"} and target.deleted_at is None and target.created_at is not None
    assert target.workspace_id == workspace.id and "989121239999" in target.search_text


def test_a_row_that_is_not_an_object_is_its_own_invalid_result(api):
    body = bulk(api, [None, 5, {"mobile": "09121230005"}])
    assert [r["outcome"] for r in body["results"]] == ["invalid", "invalid", "created"]
    assert all(list(r["errors"]) == ["non_field_errors"] for r in body["results"][:2])
