"""Every list of groups, chains and runs reads its query through a FilterSet: a value that does not parse
is a 400 VALIDATION_ERROR naming the parameter, never silently ignored; an empty value is no filter."""

import pytest

from tests.chains.conftest import ACTION, make_group

pytestmark = pytest.mark.django_db


def group_url(workspace) -> str:
    return f"/api/v1/campaign-groups/{make_group(workspace).id}"


BAD_VALUES = [
    ("/api/v1/campaign-runs", "period_key", "x"),
    ("/api/v1/campaign-runs", "campaign_id", "1.5"),
    ("/api/v1/campaign-runs", "campaign_id", "-3"),
    ("/api/v1/campaign-runs", "status", "NOPE"),
    ("/api/v1/campaign-runs", "run_type", "SOMETIMES"),
    ("/api/v1/conversion-events", "target_id", "abc"),
    ("/api/v1/conversion-events", "name", "n" * 101),
    ("/api/v1/campaigns", "group", "abc"),
    ("{group}/campaign-tree", "page", "0"),
    ("{group}/campaign-tree", "size", "201"),
    ("{group}/campaign-tree", "size", "many"),
    ("{group}/inheritance-sources", "campaign_id", "x"),
]


@pytest.mark.parametrize(("url", "param", "value"), BAD_VALUES)
def test_a_bad_filter_value_is_a_validation_error_naming_the_parameter(api, workspace, url, param, value):
    response = api.get(url.format(group=group_url(workspace)), {param: value})
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "VALIDATION_ERROR" and param in error["details"]


@pytest.mark.parametrize(
    ("url", "param"),
    [
        ("/api/v1/campaign-runs", "period_key"),
        ("/api/v1/campaign-runs", "status"),
        ("/api/v1/conversion-events", "target_id"),
        ("/api/v1/campaign-groups", "query"),
        ("/api/v1/campaigns", "group"),
        ("{group}/campaign-tree", "size"),
        ("{group}/inheritance-sources", "campaign_id"),
    ],
)
def test_an_empty_filter_value_is_no_filter(api, workspace, url, param):
    assert api.get(url.format(group=group_url(workspace)), {param: ""}).status_code == 200


def test_group_list_query_still_matches_accent_insensitively(api, workspace):
    make_group(workspace, name="Chiến Dịch")
    make_group(workspace, name="دیگر")
    names = [g["name"] for g in api.get("/api/v1/campaign-groups", {"query": "chien"}).json()["results"]]
    assert names == ["Chiến Dịch"]


def test_singular_and_plural_campaign_paths_both_work(api):
    """docs/chains.md: the singular paths are the chain operations of the spec, the plural the collection."""
    created = api.post("/api/v1/campaign", {"name": "یک", "chain_action": ACTION}, format="json")
    assert created.status_code == 201, created.content
    campaign_id = created.json()["id"]
    assert api.get(f"/api/v1/campaign/{campaign_id}").json()["id"] == campaign_id
    assert api.get(f"/api/v1/campaigns/{campaign_id}").json()["id"] == campaign_id
    assert campaign_id in [row["id"] for row in api.get("/api/v1/campaigns").json()["results"]]
    renamed = api.put(f"/api/v1/campaign/{campaign_id}", {"name": "دو"}, format="json")
    assert renamed.status_code == 200, renamed.content
    assert api.get(f"/api/v1/campaigns/{campaign_id}").json()["name"] == "دو"
