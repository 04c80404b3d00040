"""The campaigns app's lists read their query through FilterSets: a bad value is a 400 VALIDATION_ERROR."""

import pytest

from tests.conftest import make_list

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("url", "param", "value"),
    [
        ("/api/v1/targets", "status", "nope"),
        ("/api/v1/targets", "created_after", "yesterday"),
        ("/api/v1/campaigns", "kind", "carrier-pigeon"),
        ("/api/v1/campaigns", "status", "nope"),
    ],
)
def test_a_bad_filter_value_is_a_validation_error(api, url, param, value):
    response = api.get(url, {param: value})
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "VALIDATION_ERROR" and param in response.json()["error"]["details"]


def test_import_rows_refuse_an_unknown_outcome(api, workspace, owner):
    from campaigns.models import TargetImport

    job = TargetImport.objects.create(workspace=workspace, created_by=owner, file_name="a.csv")
    url = f"/api/v1/targets/imports/{job.id}/rows"
    assert api.get(url, {"outcome": "created"}).status_code == 200
    bad = api.get(url, {"outcome": "exploded"})
    assert bad.status_code == 400 and "outcome" in bad.json()["error"]["details"]


def test_target_lists_filter_by_name(api, workspace):
    make_list(workspace, "مشتریان تهران")
    make_list(workspace, "دیگران")
    names = [row["name"] for row in api.get("/api/v1/target-lists", {"q": "تهران"}).json()["results"]]
    assert names == ["مشتریان تهران"]
