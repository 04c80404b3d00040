"""Hostile or malformed requests get a 4xx in the error envelope, never a server error."""

import json
import re

import pytest
from django.test import Client, override_settings

from tests.conftest import make_target
from tests.platform.test_schema import api_routes

pytestmark = pytest.mark.django_db


def assert_envelope(response, status: int, code: str | None = None) -> dict:
    assert response.status_code == status, response.content[:500]
    assert response["Content-Type"].startswith("application/json")
    body = response.json()
    assert body["success"] is False
    assert set(body["error"]) == {"code", "message", "details"}
    if code:
        assert body["error"]["code"] == code
    return body


def test_options_answers_200_on_every_api_view(api):
    # Views without a serializer_class and views whose scoped_queryset needs a request used to 500.
    from django.urls import get_resolver

    routes = sorted(api_routes())
    assert len(routes) > 50

    # A path parameter is "1", or a UUID where the route's converter takes one (it would 404 on "1").
    def patterns(resolver):
        for p in resolver.url_patterns:
            yield str(p.pattern)
            if hasattr(p, "url_patterns"):
                yield from patterns(p)

    uuid_params = {name for pattern in patterns(get_resolver()) for name in re.findall(r"<uuid:(\w+)>", pattern)}
    for route in routes:
        url = re.sub(
            r"\{([^}]+)\}", lambda m: "00000000-0000-0000-0000-000000000001" if m[1] in uuid_params else "1", route
        )
        response = api.options(url)
        assert response.status_code == 200, (url, response.status_code)
        assert "actions" not in response.json()


def test_too_many_form_fields_is_400_in_the_envelope(api):
    # multipart is read only where a file is uploaded; a form body elsewhere is a 415
    response = api.post("/api/v1/targets/import", {f"f{i}": "x" for i in range(1200)}, format="multipart")
    assert_envelope(response, 400, "VALIDATION_ERROR")
    body = "&".join(f"f{i}=x" for i in range(1200))
    response = api.post("/api/v1/targets", body, content_type="application/x-www-form-urlencoded")
    assert_envelope(response, 415, "UNSUPPORTED_MEDIA_TYPE")


@pytest.mark.parametrize("offset", ["+16:00", "-23:59", "+20:30"])
def test_created_filter_with_offset_beyond_postgres_range_is_400(api, offset):
    for name in ("created_after", "created_before"):
        response = api.get("/api/v1/targets", {name: f"2024-01-01T00:00:00{offset}"})
        body = assert_envelope(response, 400, "VALIDATION_ERROR")
        assert name in body["error"]["details"]


def test_created_filter_with_largest_valid_offset_is_accepted(api):
    response = api.get("/api/v1/targets", {"created_after": "2024-01-01T00:00:00+15:59"})
    assert response.status_code == 200


@pytest.mark.parametrize("depth", [65, 1_000, 100_000])
def test_json_nested_too_deep_is_400(api, depth):
    body = "[" * depth + "]" * depth
    response = api.post("/api/v1/targets", body, content_type="application/json")
    assert_envelope(response, 400, "PARSE_ERROR")


@override_settings(DATA_UPLOAD_MAX_MEMORY_SIZE=1024)
def test_json_body_over_the_limit_is_413_in_the_envelope(api):
    body = json.dumps({"name": "x" * 4096})
    response = api.post("/api/v1/targets", body, content_type="application/json")
    assert_envelope(response, 413, "PAYLOAD_TOO_LARGE")


def test_nul_in_target_attributes_is_a_field_error(api):
    response = api.post(
        "/api/v1/targets", {"name": "Ali", "mobile": "09121234567", "attributes": {"note": "a\u0000b"}}, format="json"
    )
    body = assert_envelope(response, 400, "VALIDATION_ERROR")
    assert "attributes.note" in body["error"]["details"]


def test_nul_in_a_json_key_is_a_field_error(api):
    response = api.post(
        "/api/v1/targets", {"name": "Ali", "mobile": "09121234567", "attributes": {"a\u0000": 1}}, format="json"
    )
    assert_envelope(response, 400, "VALIDATION_ERROR")


@pytest.mark.parametrize("name", ["\u200b\u200c", "\u202e\u202d", "Ali\u0007", "\u2066\u2069 "])
def test_control_or_invisible_only_target_name_is_refused(api, name):
    response = api.post("/api/v1/targets", {"name": name, "mobile": "09121234567"}, format="json")
    body = assert_envelope(response, 400, "VALIDATION_ERROR")
    assert "name" in body["error"]["details"]


def test_target_name_with_zero_width_joiner_inside_text_is_accepted(api):
    response = api.post("/api/v1/targets", {"name": "می\u200cخواهم", "mobile": "09121234567"}, format="json")
    assert response.status_code == 201, response.content


@pytest.mark.parametrize(
    "attributes",
    [
        {f"k{i}": i for i in range(101)},
        {"k" * 101: 1},
        {"big": "x" * 20_000},
    ],
    ids=["too_many_keys", "key_too_long", "too_large"],
)
def test_target_attributes_are_capped(api, attributes):
    response = api.post(
        "/api/v1/targets", {"name": "Ali", "mobile": "09121234567", "attributes": attributes}, format="json"
    )
    body = assert_envelope(response, 400, "VALIDATION_ERROR")
    assert "attributes" in body["error"]["details"]


def test_number_as_target_name_is_refused_not_coerced(api):
    response = api.post("/api/v1/targets", {"name": 12345, "mobile": "09121234567"}, format="json")
    assert_envelope(response, 400, "VALIDATION_ERROR")


@pytest.mark.parametrize("method", ["post", "put", "patch", "delete"])
def test_unsafe_method_on_unknown_api_path_is_json_404(owner, method):
    client = Client(enforce_csrf_checks=True)
    client.force_login(owner)
    response = getattr(client, method)("/api/v1/no-such-thing")
    assert_envelope(response, 404, "NOT_FOUND")


def test_get_on_sms_webhook_is_json_405(client):
    response = client.get("/api/webhooks/sms/generic/some-token")
    assert_envelope(response, 405, "METHOD_NOT_ALLOWED")
    assert response["Allow"] == "POST"


@pytest.mark.parametrize(
    "query",
    [{"page": "-1"}, {"page": "abc"}, {"page": "0"}, {"size": "0"}, {"size": "abc"}, {"size": "201"}, {"cursor": "x"}],
)
def test_bad_page_or_size_is_400_validation_error(api, workspace, query):
    make_target(workspace, mobile="09121234567")
    response = api.get("/api/v1/targets", query)
    body = assert_envelope(response, 400, "VALIDATION_ERROR")
    assert set(body["error"]["details"]) == set(query)


def test_valid_page_and_size_still_paginate(api, workspace):
    make_target(workspace, mobile="09121234567")
    response = api.get("/api/v1/targets", {"page": "1", "size": "5"})
    assert response.status_code == 200
    assert response.json()["size"] == 5


@pytest.mark.parametrize("action", [{"x": 1}, ["click"], 3])
def test_action_config_step_with_non_text_action_is_a_field_error(api, action):
    # Found by the fuzzer: an object as a step's action raised TypeError (unhashable) → 500.
    payload = {"platform": "demo", "action_type": "like", "steps": [{"action": action}]}
    response = api.post("/api/v1/browser/action-configs", payload, format="json")
    assert_envelope(response, 400)


def test_nul_in_action_config_selector_is_a_field_error(api):
    payload = {"platform": "demo", "action_type": "like", "steps": [{"action": "click", "selector": "a\u0000"}]}
    response = api.post("/api/v1/browser/action-configs", payload, format="json")
    body = assert_envelope(response, 400, "VALIDATION_ERROR")
    assert "steps.0.selector" in body["error"]["details"]


def test_number_as_sms_preview_body_is_refused_not_coerced(api):
    response = api.post("/api/v1/sms/preview", {"body": 12345}, format="json")
    body = assert_envelope(response, 400, "VALIDATION_ERROR")
    assert "body" in body["error"]["details"]


def test_number_as_proxy_password_is_refused_not_coerced(api):
    payload = {"host": "proxy.example.com", "port": 8080, "password": 12345}
    response = api.post("/api/v1/browser/proxies", payload, format="json")
    body = assert_envelope(response, 400, "VALIDATION_ERROR")
    assert "password" in body["error"]["details"]


def test_schema_states_minimum_page_size_and_expected_revision():
    from drf_spectacular.generators import SchemaGenerator

    schema = SchemaGenerator().get_schema(request=None, public=True)
    params = {p["name"]: p["schema"] for p in schema["paths"]["/api/v1/targets"]["get"]["parameters"]}
    assert params["page"]["minimum"] == 1 and params["size"]["minimum"] == 1
    revisions = [
        component["properties"]["expected_revision"]
        for component in schema["components"]["schemas"].values()
        if "expected_revision" in component.get("properties", {})
    ]
    assert revisions and all(r.get("minimum") == 1 for r in revisions)


def test_chain_campaign_unknown_kind_is_refused_by_the_schema_enum(api):
    response = api.post("/api/v1/campaign", {"name": "c", "kind": "fax"}, format="json")
    body = assert_envelope(response, 400, "VALIDATION_ERROR")
    assert "kind" in body["error"]["details"]


def test_chain_campaign_expected_chain_revision_below_one_is_refused(api):
    response = api.post("/api/v1/campaign", {"name": "c", "expected_chain_revision": 0}, format="json")
    body = assert_envelope(response, 400, "VALIDATION_ERROR")
    assert "expected_chain_revision" in body["error"]["details"]


@pytest.mark.parametrize("text", ["a\u001bb", "\u007f", "x\u0085"])
def test_control_characters_anywhere_in_a_json_body_are_a_field_error(api, text):
    response = api.post("/api/v1/target-lists", {"name": "list", "description": text}, format="json")
    body = assert_envelope(response, 400, "VALIDATION_ERROR")
    assert "description" in body["error"]["details"]


@pytest.mark.parametrize("url", ["/api/v1/target-lists", "/api/v1/campaign"])
def test_invisible_only_list_or_campaign_name_is_refused(api, url):
    response = api.post(url, {"name": "\u200f\u200e"}, format="json")
    body = assert_envelope(response, 400, "VALIDATION_ERROR")
    assert "name" in body["error"]["details"]


def test_schema_documents_what_the_fuzzer_received():
    # Found by the fuzzer's conformance checks: a list's 404 (unknown X-Workspace) the schema did not list,
    # and the SMS provider kinds (a plain array) were described as a paginated page.
    from drf_spectacular.generators import SchemaGenerator

    paths = SchemaGenerator().get_schema(request=None, public=True)["paths"]
    for path in ("/api/v1/notifications", "/api/v1/activities"):
        assert "404" in paths[path]["get"]["responses"]
    content = paths["/api/v1/sms/providers"]["get"]["responses"]["200"]["content"]["application/json"]
    assert content["schema"]["type"] == "array"


def test_page_past_the_last_is_an_empty_page(api):
    body = api.get("/api/v1/notifications", {"page": "99"}).json()
    assert (body["results"], body["page"], body["has_more"], body["next"]) == ([], 99, False, None)
    assert isinstance(api.get("/api/v1/sms/providers").json(), list)


def test_schema_documents_generic_errors_of_lists_and_bodies():
    # Found by the fuzzer's conformance checks: an unknown X-Workspace on a list (404) and a body that cannot
    # be parsed as its content type (415) were answered but not documented.
    from drf_spectacular.generators import SchemaGenerator

    paths = SchemaGenerator().get_schema(request=None, public=True)["paths"]
    for operation in ({"get": paths["/api/v1/campaign-runs"]["get"]}, paths["/api/v1/campaign-groups"]):
        for method, op in operation.items():
            if any(p["name"] == "page" for p in op.get("parameters", [])):
                assert "404" in op["responses"], method
            if "requestBody" in op:
                assert {"413", "415"} <= set(op["responses"]), method


# Strict text on every user-supplied name and text: the API's serializers, the services behind the pages
# (and the admin), and the page forms. Each row: (url, the field checked, the rest of a flat body).
TEXT_ENDPOINTS = [
    ("/api/v1/workflows", "name", {}),
    ("/api/v1/workflows", "description", {"name": "سفر"}),
    ("/api/v1/campaigns", "name", {"kind": "journey", "workflow_id": 1}),
    ("/api/v1/campaigns", "name", {"kind": "browser", "platform": "demo", "action": "like"}),
    ("/api/v1/campaign-groups", "name", {}),
    ("/api/v1/campaign-groups", "description", {"name": "گروه"}),
    ("/api/v1/campaign", "description", {"name": "زنجیره"}),
    ("/api/v1/sms/templates", "name", {"body": "سلام"}),
    ("/api/v1/sms/templates", "body", {"name": "الگو"}),
    ("/api/v1/sms/blacklist", "description", {"number": "09120001122"}),
    ("/api/v1/browser/accounts", "label", {"platform": "demo"}),
    ("/api/v1/browser/accounts", "user_agent", {"label": "حساب", "platform": "demo"}),
    ("/api/v1/browser/proxies", "label", {"host": "proxy.example.com", "port": 8080}),
    ("/api/v1/browser/proxies", "username", {"host": "proxy.example.com", "port": 8080}),
    ("/api/v1/conversion-events", "name", {"target_id": 1, "occurred_at": "2026-01-01T00:00:00Z"}),
    ("/api/v1/targets", "city", {"name": "Ali", "mobile": "09121234567"}),
]
NAME_FIELDS = {"name", "label"}


@pytest.mark.parametrize("url,field,body", TEXT_ENDPOINTS)
def test_control_character_in_a_text_field_is_a_field_error(api, url, field, body):
    # the JSON parser names it (bodies are JSON; a form or multipart body is a 415)
    response = api.post(url, {**body, field: "a\u0007b"}, format="json")
    body = assert_envelope(response, 400, "VALIDATION_ERROR")
    assert field in body["error"]["details"], body


@pytest.mark.parametrize("url,field,body", [row for row in TEXT_ENDPOINTS if row[1] in NAME_FIELDS])
@pytest.mark.parametrize("name", ["\u200b\u200c", "\u202e\u202d", "\u2066\u2069 "])
def test_invisible_only_name_is_refused_on_every_endpoint(api, url, field, body, name):
    response = api.post(url, {**body, field: name}, format="json")
    body = assert_envelope(response, 400, "VALIDATION_ERROR")
    assert field in body["error"]["details"], body


@pytest.mark.parametrize("url,field,body", TEXT_ENDPOINTS)
def test_number_as_text_is_refused_not_coerced(api, url, field, body):
    response = api.post(url, {**body, field: 12345}, format="json")
    body = assert_envelope(response, 400, "VALIDATION_ERROR")
    assert field in body["error"]["details"], body


def test_invisible_node_name_or_control_character_in_a_step_text_is_refused(actor):
    from automation.services.workflows import workflow_create, workflow_graph_save
    from campaigns.platform.errors import ValidationFailed
    from tests.automation.helpers import end_node, linear_graph, sms_node

    workflow = workflow_create(actor=actor, name="سفر")
    for graph in (
        linear_graph({**sms_node("a"), "name": "\u200f\u200e"}, end_node()),
        linear_graph(sms_node("a", body="سلام\u0007"), end_node()),  # the builder page posts step texts as form
    ):
        with pytest.raises(ValidationFailed) as caught:
            workflow_graph_save(actor=actor, workflow_id=workflow.id, graph_data=graph)
        assert "nodes" in caught.value.details


@pytest.mark.parametrize(
    "call",
    [
        "group_create",
        "chain_campaign_create",
        "sms_account_create",
        "account_create",
        "proxy_create",
    ],
)
def test_services_behind_pages_refuse_invisible_names(actor, call):
    # The chain, workflow and group pages post straight to these services; the admin uses them too.
    from campaigns.chains.services.chains import chain_campaign_create
    from campaigns.chains.services.groups import group_create
    from campaigns.platform.errors import ValidationFailed
    from sms.services import sms_account_create
    from workers.services.accounts import account_create, proxy_create

    name = "\u200b\u202e"
    calls = {
        "group_create": lambda: group_create(actor=actor, name=name),
        "chain_campaign_create": lambda: chain_campaign_create(actor=actor, name=name),
        "sms_account_create": lambda: sms_account_create(actor=actor, name=name, provider="console"),
        "account_create": lambda: account_create(actor=actor, label=name, platform="demo"),
        "proxy_create": lambda: proxy_create(actor=actor, host="proxy.example.com", port=80, label=name),
    }
    with pytest.raises(ValidationFailed) as caught:
        calls[call]()
    assert set(caught.value.details) & {"name", "label"}


PAGE_FORMS = [
    ("/targets/new/", {"name": "{text}", "mobile": "09121234567", "status": "new", "priority": "0"}),
    ("/automation/workflows/new/", {"name": "{text}", "template": "blank"}),
    ("/automation/campaigns/new/", {"name": "{text}", "workflow": "1"}),
    ("/chains/groups/new/", {"name": "{text}"}),
    ("/sms/templates/new/", {"name": "{text}", "body": "سلام"}),
    ("/sms/templates/new/", {"name": "الگو", "body": "سلام{text}"}),
    ("/sms/settings/", {"action": "account_new", "name": "{text}", "provider": "console"}),
    ("/sms/settings/", {"action": "channel", "opt_out_text": "لغو{text}"}),
]


@pytest.mark.parametrize("url,form", PAGE_FORMS)
@pytest.mark.parametrize("text", ["\u200b\u200c", "\u0007"])
def test_page_forms_refuse_control_characters_and_invisible_names(client, owner, workspace, url, form, text):
    from campaigns.platform.text import CONTROL_MESSAGE, INVISIBLE_MESSAGE

    client.force_login(owner)
    data = {key: value.replace("{text}", text) for key, value in form.items()}
    if text == "\u200b\u200c" and not any(value == text for value in data.values()):
        pytest.skip("invisible characters inside other text are fine")
    response = client.post(url, data, follow=True)
    html = response.content.decode()
    assert CONTROL_MESSAGE in html or INVISIBLE_MESSAGE in html, (url, response.status_code)


@pytest.mark.parametrize("huge", [2**63, -(2**70), 0])
def test_id_beyond_bigint_in_an_enrollment_preview_is_a_field_error(api, actor, huge):
    # Found by the fuzzer on a seeded campaign: the preview stored the id as an item → bigint out of range, 500.
    from tests.automation.helpers import end_node, journey, linear_graph, sms_node

    campaign = journey(actor, linear_graph(sms_node("a"), end_node()), activate=False)
    response = api.post(f"/api/v1/campaigns/{campaign.id}/enrollments/preview", {"target_ids": [huge]}, format="json")
    body = assert_envelope(response, 400, "VALIDATION_ERROR")
    assert "target_ids" in body["error"]["details"]


@pytest.mark.parametrize(
    "url,payload",
    [
        ("/api/v1/targets", {"name": "Ali", "mobile": "09121234567", "list_ids": [2**63]}),
        ("/api/v1/sms/preview", {"body": "سلام", "target_id": 2**63}),
        ("/api/v1/campaign", {"name": "c", "campaign_group_id": 2**63}),
        ("/api/v1/conversion-events", {"target_id": 2**64, "name": "x", "occurred_at": "2026-01-01T00:00:00Z"}),
    ],
)
def test_ids_beyond_bigint_in_a_body_are_field_errors(api, url, payload):
    response = api.post(url, payload, format="json")
    body = assert_envelope(response, 400, "VALIDATION_ERROR")
    assert set(body["error"]["details"]) & {"list_ids", "target_id", "campaign_group_id"}


@pytest.mark.parametrize(
    "url,name",
    [
        ("/api/v1/browser/tasks", "account"),
        ("/api/v1/browser/tasks", "campaign"),
        ("/api/v1/targets", "owner"),
        ("/api/v1/targets", "list"),
        ("/api/v1/activities", "target"),
    ],
)
@pytest.mark.parametrize("value", ["-2.29e+89", "1.5", "0", str(2**63)])
def test_id_filter_that_is_not_a_bigint_id_is_a_field_error(api, url, name, value):
    # Found by the fuzzer on the embedded SQLite default: a float id filter reached the database (500).
    body = assert_envelope(api.get(url, {name: value}), 400, "VALIDATION_ERROR")
    assert name in body["error"]["details"]


# Ids typed as text that str.isdigit() takes but int() refuses: a superscript digit, and more digits than int()
# reads (4,300). Each place below read such an id with ``isdigit()`` then ``int()``: a 500.
HOSTILE_DIGITS = ["²", "9" * 5000]


@pytest.mark.parametrize("value", HOSTILE_DIGITS, ids=["superscript", "5000-digits"])
def test_an_x_workspace_header_of_hostile_digits_is_the_workspace_404(api, value):
    assert_envelope(api.get("/api/v1/me", HTTP_X_WORKSPACE=value), 404)


@pytest.mark.parametrize("value", HOSTILE_DIGITS, ids=["superscript", "5000-digits"])
def test_a_signed_sms_webhook_with_a_hostile_timestamp_is_the_same_404(client, workspace, value):
    from tests.automation.helpers import setup_sms

    setup_sms(workspace)
    response = client.post(
        f"/api/webhooks/sms/generic/signed/{workspace.id}",
        "{}",
        content_type="application/json",
        HTTP_WEBHOOK_SIGNATURE=f"t={value},v1=00",
    )
    assert response.status_code == 404


HOSTILE_ID_PAGES = [
    ("post", "/sms/inbox/read/", "one"),
    ("post", "/sms/inbox/read/", "ids"),
    ("post", "/notifications/", "id", {"action": "read"}),
    ("post", "/followups/", "id", {"action": "done"}),
    ("post", "/workspace/switch/", "workspace"),
    ("get", "/automation/health/", "campaign"),
]


@pytest.mark.parametrize("page", HOSTILE_ID_PAGES, ids=lambda p: f"{p[1]}{p[2]}")
@pytest.mark.parametrize("value", HOSTILE_DIGITS, ids=["superscript", "5000-digits"])
def test_a_page_given_hostile_digits_for_an_id_answers_without_a_server_error(client, owner, page, value):
    method, url, name, *extra = page
    client.force_login(owner)
    response = getattr(client, method)(url, {name: value, **(extra[0] if extra else {})})
    assert response.status_code < 500, (url, name)


@pytest.mark.parametrize("value", HOSTILE_DIGITS, ids=["superscript", "5000-digits"])
@pytest.mark.parametrize(
    "url,name", [("/api/v1/targets", "page"), ("/api/v1/targets", "size"), ("/api/v1/campaigns", "group")]
)
def test_an_api_parameter_of_hostile_digits_is_a_field_error(api, url, name, value):
    body = assert_envelope(api.get(url, {name: value}), 400, "VALIDATION_ERROR")
    assert name in body["error"]["details"]


@pytest.mark.parametrize("value", HOSTILE_DIGITS, ids=["superscript", "5000-digits"])
def test_a_session_naming_a_workspace_in_hostile_digits_gets_the_workspace_404(client, owner, value):
    client.force_login(owner)
    response = client.get("/api/v1/me", HTTP_X_WORKSPACE=value)
    assert_envelope(response, 404)


LONG_DESCRIPTION = "x" * 2001


@pytest.mark.parametrize(
    "method,url,body",
    [
        ("post", "/api/v1/workflows", {"name": "w"}),
        ("post", "/api/v1/campaign", {"name": "c", "kind": "sms"}),
        ("post", "/api/v1/campaigns", {"name": "c", "kind": "journey"}),
        ("post", "/api/v1/campaigns", {"name": "c", "kind": "browser"}),
    ],
)
def test_a_description_longer_than_its_cap_is_a_field_error(api, method, url, body):
    response = getattr(api, method)(url, {**body, "description": LONG_DESCRIPTION}, format="json")
    details = assert_envelope(response, 400, "VALIDATION_ERROR")["error"]["details"]
    assert "description" in details


def test_services_behind_pages_cap_descriptions(actor):
    from automation.services.workflows import workflow_create, workflow_template_save
    from campaigns.platform.errors import ValidationFailed

    with pytest.raises(ValidationFailed) as refused:
        workflow_create(actor=actor, name="w", description=LONG_DESCRIPTION)
    assert "description" in refused.value.details
    workflow = workflow_create(actor=actor, name="w", description="x" * 2000)
    for fields in ({"description": LONG_DESCRIPTION}, {"name": "ن" * 201}, {"name": "a\u0007"}):
        with pytest.raises(ValidationFailed) as refused:
            workflow_template_save(actor=actor, workflow_id=workflow.id, **{"name": "قالب", **fields})
        assert set(refused.value.details) == set(fields)
