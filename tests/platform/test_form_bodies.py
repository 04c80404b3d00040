"""Form and multipart bodies follow the JSON rules: objects are objects, control characters are named."""

import json

import pytest

from campaigns.platform.text import CONTROL_MESSAGE
from tests.automation.helpers import end_node, journey, linear_graph, setup_sms, sms_node
from tests.conftest import make_target
from tests.platform.test_hostile_input import assert_envelope

pytestmark = pytest.mark.django_db

NOT_OBJECTS = ["[null, null]", '"text"', "5", "{not json", "[" * 5000]


@pytest.fixture
def preview_url(actor):
    setup_sms(actor.workspace)
    make_target(actor.workspace)  # an empty filter would match this one: a dropped part is not harmless
    campaign = journey(actor, linear_graph(sms_node("a"), end_node()), activate=False)
    return f"/api/v1/campaigns/{campaign.id}/enrollments/preview"


@pytest.mark.parametrize("text", NOT_OBJECTS)
@pytest.mark.parametrize("fmt", ["multipart", "json"])
def test_enrollment_preview_filters_that_are_not_an_object_are_a_field_error(api, preview_url, text, fmt):
    if fmt == "json":
        try:
            value = json.loads(text)
        except (ValueError, RecursionError):
            value = text
    response = api.post(preview_url, {"filters": text if fmt == "multipart" else value}, format=fmt)
    body = assert_envelope(response, 400, "VALIDATION_ERROR")
    assert list(body["error"]["details"]) == ["filters"], body


def test_repeated_filters_parts_are_not_an_object(api, preview_url):
    response = api.post(preview_url, {"filters": ["{}", "{}"]}, format="multipart")
    assert list(assert_envelope(response, 400)["error"]["details"]) == ["filters"]


def test_multipart_filters_object_is_read_and_checked_like_json(api, preview_url):
    response = api.post(preview_url, {"filters": json.dumps({"status": ["new"]})}, format="multipart")
    assert response.status_code == 201, response.content[:300]
    assert (response.json()["source"], response.json()["filters"]) == ("filter", {"status": ["new"]})
    response = api.post(preview_url, {"filters": '{"q": "a\\u0007"}'}, format="multipart")
    assert assert_envelope(response, 400)["error"]["details"] == {"filters.q": [CONTROL_MESSAGE]}


def test_a_multipart_body_without_filters_or_ids_selects_nobody(api, preview_url):
    response = api.post(preview_url, {"target_ids": []}, format="multipart")
    assert "target_ids" in assert_envelope(response, 400)["error"]["details"]


@pytest.mark.parametrize("fmt", ["multipart", "json"])
def test_control_character_in_a_browser_campaign_link_gets_the_strict_text_error(api, fmt):
    body = {"kind": "browser", "name": "c", "platform": "demo", "action": "like"}
    link = "https://example.com/post/\u00071"
    response = api.post("/api/v1/campaigns", {**body, "target_links": [link]}, format=fmt)
    details = assert_envelope(response, 400, "VALIDATION_ERROR")["error"]["details"]
    [(field, messages)] = details.items()
    assert field.startswith("target_links") and messages == [CONTROL_MESSAGE], details


@pytest.mark.parametrize(
    "url,body,field",
    [
        ("/api/v1/campaign", {"name": "زنجیره"}, "goal"),
        ("/api/v1/campaigns", {"kind": "journey", "name": "سفر", "workflow_id": 1}, "settings"),
    ],
)
def test_a_json_part_follows_the_json_body_rules(api, url, body, field):
    response = api.post(url, {**body, field: "[" * 100_000}, format="multipart")  # was a RecursionError: 500
    assert field in assert_envelope(response, 400, "VALIDATION_ERROR")["error"]["details"]
    response = api.post(url, {**body, field: '{"a": ["x\\u0000"]}'}, format="multipart")
    details = assert_envelope(response, 400, "VALIDATION_ERROR")["error"]["details"]
    assert details == {f"{field}.a.0": ["نویسه تهی (NUL) مجاز نیست."]}
    response = api.post(url, {**body, field: "[" + ",".join(["1"] * 20_001) + "]"}, format="multipart")
    assert field in assert_envelope(response, 400, "VALIDATION_ERROR")["error"]["details"]
