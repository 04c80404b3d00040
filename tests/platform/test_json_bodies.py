"""Request bodies are JSON: a form or multipart body is a 415 (multipart only where a file is uploaded),
a field the operation does not declare is a 400 naming it, and the schema says both."""

import json

import pytest
from drf_spectacular.generators import SchemaGenerator

from campaigns.platform.text import CONTROL_MESSAGE
from tests.automation.helpers import end_node, journey, linear_graph, publish, setup_sms, sms_node
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


@pytest.mark.parametrize("fmt", ["multipart", "form"])
def test_a_form_or_multipart_body_is_unsupported(api, preview_url, fmt):
    # a multipart `filters` of an unknown key was a 500
    body = {"filters": json.dumps({"unknown": 1}), "target_ids": "1"}
    if fmt == "form":
        response = api.post(preview_url, "filters=%7B%7D", content_type="application/x-www-form-urlencoded")
    else:
        response = api.post(preview_url, body, format="multipart")
    assert_envelope(response, 415, "UNSUPPORTED_MEDIA_TYPE")
    response = api.post("/api/v1/campaigns", {"kind": "journey", "name": "سفر"}, format="multipart")
    assert_envelope(response, 415, "UNSUPPORTED_MEDIA_TYPE")


@pytest.mark.parametrize("text", NOT_OBJECTS)
def test_enrollment_preview_filters_that_are_not_an_object_are_a_field_error(api, preview_url, text):
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        value = text
    response = api.post(preview_url, {"filters": value}, format="json")
    body = assert_envelope(response, 400, "VALIDATION_ERROR")
    assert list(body["error"]["details"]) == ["filters"], body


def test_unknown_fields_are_a_400_naming_each_of_them(api, preview_url):
    response = api.post(preview_url, {"filters": {}, "target_idz": [1], "colour": "red"}, format="json")
    details = assert_envelope(response, 400, "VALIDATION_ERROR")["error"]["details"]
    assert details == {"colour": ["این فیلد شناخته نیست."], "target_idz": ["این فیلد شناخته نیست."]}
    response = api.post(preview_url, {"filters": {"status": ["new"]}}, format="json")
    assert response.status_code == 201, response.content[:300]


def test_an_unknown_field_of_a_nested_body_is_named_with_its_item(api, actor):
    workflow = publish(actor, linear_graph(sms_node("a"), end_node()))
    url = f"/api/v1/workflows/{workflow.id}/graph"
    graph = api.get(url).json()
    nodes = [{k: v for k, v in node.items() if k != "consumes_budget"} for node in graph["nodes"]]
    body = {"nodes": nodes, "edges": graph["edges"], "settings": graph["settings"]}
    nodes[1] = {**nodes[1], "colour": "red"}
    details = assert_envelope(api.put(url, body, format="json"), 400, "VALIDATION_ERROR")["error"]["details"]
    assert details == {"nodes": {"1": {"colour": ["این فیلد شناخته نیست."]}}}


def test_a_read_only_field_in_a_body_is_refused_too(api):
    response = api.post("/api/v1/target-lists", {"name": "فهرست", "id": 5}, format="json")
    assert assert_envelope(response, 400)["error"]["details"] == {"id": ["این فیلد شناخته نیست."]}


def test_json_control_characters_are_named(api, preview_url):
    response = api.post(preview_url, {"filters": {"q": "a\u0007"}}, format="json")
    assert assert_envelope(response, 400)["error"]["details"] == {"filters.q": [CONTROL_MESSAGE]}


def test_the_schema_offers_json_bodies_that_refuse_unknown_fields():
    schema = SchemaGenerator().get_schema(request=None, public=True)
    components = schema["components"]["schemas"]
    seen: set[str] = set()
    open_components = []

    def walk(node):
        if isinstance(node, list):
            for child in node:
                walk(child)
        elif isinstance(node, dict):
            ref = node.get("$ref")
            if ref is None:
                for child in node.values():
                    walk(child)
            elif (name := ref.rsplit("/", 1)[-1]) not in seen:
                seen.add(name)
                component = components[name]
                if "properties" in component and component.get("additionalProperties") is not False:
                    open_components.append(name)
                walk(component)

    media_types = {}
    for path, operations in schema["paths"].items():
        for method, operation in operations.items():
            if body := operation.get("requestBody"):
                media_types[(method, path)] = sorted(body["content"])
                walk(body)
    assert open_components == []
    assert media_types.pop(("post", "/api/v1/targets/import")) == ["multipart/form-data"]
    assert {tuple(types) for types in media_types.values()} == {("application/json",)}
