"""One pagination on every list: size above 200 is a 400, past the end an empty page, ``has_more`` and a
``next`` cursor on every answer (the history lists' cursors are keysets, the others count rows)."""

import pytest
from drf_spectacular.generators import SchemaGenerator

from tests.conftest import make_target
from tests.platform.test_api_endpoints import paginated
from tests.platform.test_hostile_input import assert_envelope

pytestmark = pytest.mark.django_db


def walk(api, url, **params):
    """Every page from the first through ``next``: the ids in order and the answers."""
    answers = [api.get(url, params).json()]
    while answers[-1]["next"]:
        answers.append(api.get(url, {**params, "cursor": answers[-1]["next"]}).json())
        assert len(answers) < 20
    return [row["id"] for answer in answers for row in answer["results"]], answers


def test_the_cursor_walks_every_row_once_and_says_when_it_ends(api, workspace):
    made = [make_target(workspace).id for _ in range(7)]
    ids, answers = walk(api, "/api/v1/targets", size=3)
    assert sorted(ids) == sorted(made) and len(ids) == 7
    assert [a["has_more"] for a in answers] == [True, True, False]
    assert [a["page"] for a in answers] == [1, None, None] and answers[-1]["next"] is None
    assert [len(a["results"]) for a in answers] == [3, 3, 1]
    first, second = api.get("/api/v1/targets", {"size": 3}).json(), api.get("/api/v1/targets", {"size": 3, "page": 2})
    assert ids[3:6] == [row["id"] for row in second.json()["results"]] and first["count"] == 7


def test_the_cursor_keeps_the_filters_sent_with_it(api, workspace):
    for _ in range(4):
        make_target(workspace, city="تهران")
    make_target(workspace, city="شیراز")
    ids, _ = walk(api, "/api/v1/targets", size=2, city="تهران")
    assert len(ids) == 4


def test_past_the_end_is_an_empty_page_not_a_404(api, workspace):
    make_target(workspace)
    body = api.get("/api/v1/targets", {"page": 5, "size": 10}).json()
    assert (body["results"], body["has_more"], body["next"], body["count"]) == ([], False, None, 1)
    body = api.get("/api/v1/targets", {"page": 10**15}).json()
    assert body["results"] == []


def test_size_above_200_is_a_400_on_every_list(api):
    assert api.get("/api/v1/targets", {"size": 200}).status_code == 200
    for url in ("/api/v1/targets", "/api/v1/sms/attempts", "/api/v1/campaign-groups", "/api/v1/notifications"):
        details = assert_envelope(api.get(url, {"size": 201}), 400, "VALIDATION_ERROR")["error"]["details"]
        assert list(details) == ["size"], url


def test_a_history_list_answers_has_more_and_next_as_its_keyset_cursor(api, workspace):
    response = api.get("/api/v1/sms/attempts", {"size": 1}).json()
    assert {"has_more", "next", "next_cursor", "previous_cursor"} <= set(response)
    assert response["next"] == response["next_cursor"]


def test_an_offset_cursor_is_not_a_keyset_cursor_and_the_reverse(api, workspace):
    for _ in range(3):
        make_target(workspace)
    offset_cursor = api.get("/api/v1/targets", {"size": 1}).json()["next"]
    assert_envelope(api.get("/api/v1/sms/attempts", {"cursor": offset_cursor}), 400, "VALIDATION_ERROR")


def test_every_list_in_the_schema_has_the_one_shape_and_its_parameters():
    schema = SchemaGenerator().get_schema(request=None, public=True)
    lists = paginated()
    assert len(lists) > 20
    for path in lists:
        operation = schema["paths"][path]["get"]
        names = {p["name"] for p in operation["parameters"]}
        assert {"page", "size", "cursor"} <= names, path
        size = next(p for p in operation["parameters"] if p["name"] == "size")
        assert size["schema"]["maximum"] == 200
        ref = operation["responses"]["200"]["content"]["application/json"]["schema"]["$ref"]
        body = schema["components"]["schemas"][ref.rsplit("/", 1)[-1]]
        assert {"has_more", "next", "page", "size", "count", "results"} <= set(body["required"]), path
