"""The OpenAPI schema is valid, documents every endpoint and the error envelope."""

import pytest
from django.core.management import call_command
from django.urls import URLPattern, URLResolver, get_resolver
from drf_spectacular.generators import SchemaGenerator


def api_routes() -> set[str]:
    """Every DRF route under /api/v1/ as an OpenAPI-style path."""
    import re

    found: set[str] = set()

    def walk(patterns, prefix=""):
        for p in patterns:
            if isinstance(p, URLResolver):
                walk(p.url_patterns, prefix + str(p.pattern))
            elif isinstance(p, URLPattern) and hasattr(p.callback, "cls"):
                route = prefix + str(p.pattern)
                if route.startswith("api/v1/"):
                    found.add("/" + re.sub(r"<(?:\w+:)?(\w+)>", r"{\1}", route))

    walk(get_resolver().url_patterns)
    return found


def test_schema_validates_without_warnings(tmp_path):
    call_command("spectacular", "--validate", "--fail-on-warn", "--file", str(tmp_path / "schema.yaml"))


def test_every_api_endpoint_is_in_the_schema_with_error_responses():
    schema = SchemaGenerator().get_schema(request=None, public=True)
    paths = schema["paths"]
    missing = api_routes() - set(paths)
    assert not missing, f"endpoints missing from the schema: {missing}"
    for path, operations in paths.items():
        if not path.startswith("/api/v1/"):
            continue
        for method, operation in operations.items():
            assert {"400", "401", "403", "404", "409", "429"} <= set(operation["responses"]), (method, path)
            for status in ("400", "401", "403", "404", "409", "429"):
                body = operation["responses"][status]["content"]["application/json"]["schema"]
                # a Start or an Approve types its 409's blockers: the same envelope, ``details`` typed
                envelopes = ("ErrorEnvelope", "LaunchBlockedEnvelope") if status == "409" else ("ErrorEnvelope",)
                assert body in [{"$ref": f"#/components/schemas/{e}"} for e in envelopes], (method, path, status)
            assert any(p["name"] == "X-Workspace" for p in operation.get("parameters", [])), (method, path)


def test_every_operation_is_grouped_under_one_declared_area():
    """Swagger UI groups operations by area: each operation has exactly one declared tag, every area is used."""
    from django.conf import settings

    schema = SchemaGenerator().get_schema(request=None, public=True)
    declared = [tag["name"] for tag in settings.SPECTACULAR_SETTINGS["TAGS"]]
    assert [tag["name"] for tag in schema["tags"]] == declared
    assert all(tag["description"] for tag in schema["tags"])
    used = set()
    for path, operations in schema["paths"].items():
        for method, operation in operations.items():
            tags = operation.get("tags", [])
            assert len(tags) == 1 and tags[0] in declared, (method, path, tags)
            used.add(tags[0])
    assert used == set(declared), f"declared areas without operations: {set(declared) - used}"
    area = {(m, p): o["tags"][0] for p, ops in schema["paths"].items() for m, o in ops.items()}
    assert area[("get", "/api/v1/targets")] == "Targets"
    assert area[("post", "/api/v1/workflows")] == "Workflows and journeys"
    assert area[("post", "/api/v1/campaigns/{campaign_id}/enrollments")] == "Workflows and journeys"
    assert area[("get", "/api/v1/sms/templates")] == "SMS"
    assert area[("get", "/api/v1/browser/tasks")] == "Browser"
    assert area[("get", "/api/v1/campaign-groups")] == "Campaigns, groups and chains"
    assert area[("post", "/api/v1/campaign/{campaign_id}/approve")] == "Approvals"
    assert area[("get", "/api/v1/campaign/{campaign_id}/runs")] == "Runs"
    assert area[("get", "/api/v1/me")] == "Platform"


def test_a_new_endpoint_gets_the_area_of_its_app():
    from campaigns.platform.api.schema import operation_area

    assert operation_area("/api/v1/sms-reports", "sms.api.views") == "SMS"
    assert operation_area("/api/v1/journey-audits", "automation.api.views") == "Workflows and journeys"
    assert operation_area("/api/v1/screenshots", "workers.api.views") == "Browser"
    assert operation_area("/api/v1/chain-exports", "campaigns.chains.api.chains") == "Campaigns, groups and chains"
    assert operation_area("/api/v1/workspaces", "campaigns.api.views") == "Platform"


@pytest.mark.django_db
def test_schema_and_docs_pages_are_served_without_a_cdn(client, django_user_model):
    client.force_login(django_user_model.objects.create_user("reader", password="pw-123456"))
    schema = client.get("/api/schema/")
    assert schema.status_code == 200
    docs = client.get("/api/docs/")
    assert docs.status_code == 200
    html = docs.content.decode()
    assert "cdn" not in html.lower()
    assert "/static/drf_spectacular_sidecar/swagger-ui-dist/" in html


def test_the_schema_is_english_but_for_the_area_tags():
    """A client generated from the schema names its classes and fields from the titles: no Persian in them
    (model labels become the field's name, enum labels are dropped); the area tags keep both languages."""
    import re

    schema = SchemaGenerator().get_schema(request=None, public=True)
    schema.pop("tags")
    persian = re.compile(r"[\u0600-\u06ff]")
    found = []

    def walk(node, where):
        if isinstance(node, dict):
            for key, value in node.items():
                if persian.search(str(key)) or (isinstance(value, str) and persian.search(value)):
                    found.append((where, key))
                walk(value, f"{where}/{key}")
        elif isinstance(node, list):
            for item in node:
                walk(item, where)

    walk(schema, "")
    assert found == []
    parameters = schema["paths"]["/api/v1/activities"]["get"]["parameters"]
    status = next(p for p in parameters if p["name"] == "status")
    assert status["schema"].get("title", "Status") == "Status"


def test_the_campaign_create_discriminator_maps_each_kind_to_its_body():
    from campaigns.platform.registry import campaign_kind_handlers

    schema = SchemaGenerator().get_schema(request=None, public=True)
    mapping = schema["components"]["schemas"]["CampaignCreateRequest"]["discriminator"]["mapping"]
    assert set(mapping) == {handler.kind for handler in campaign_kind_handlers()}
    assert mapping["journey"].endswith("/JourneyCampaignInputRequest")


def test_the_downloads_are_declared_with_their_media_types():
    """A file an operation answers is a binary string of its media type, not JSON: a client reads it as bytes."""
    schema = SchemaGenerator().get_schema(request=None, public=True)
    xlsx = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
    downloads = {
        "/api/v1/browser/tasks/{task_id}/screenshot": "image/png",
        "/api/v1/targets/export": xlsx,
        "/api/v1/campaign-runs/{run_id}/audience/export": xlsx,
        "/api/v1/sms/blacklist/export": "text/csv",
    }
    for path, media_type in downloads.items():
        content = schema["paths"][path]["get"]["responses"]["200"]["content"]
        assert content == {media_type: {"schema": {"type": "string", "format": "binary"}}}, path
    binary = {
        path
        for path, operations in schema["paths"].items()
        for operation in operations.values()
        for response in operation["responses"].values()
        for media_type in response.get("content", {})
        if media_type != "application/json"
    }
    assert binary == set(downloads)


def test_closed_sets_of_the_answers_are_enums():
    """A status, role or reason a client branches on is an enum in the schema (an enum class in a generated
    client), not a free string."""
    schema = SchemaGenerator().get_schema(request=None, public=True)
    components = schema["components"]["schemas"]
    expected = {
        ("MembershipOutput", "role"): "RoleEnum",
        ("TreeNodeOutput", "status"): "CampaignStatusEnum",
        ("GraphOutput", "status"): "VersionStatusEnum",
        ("LiveElsewhereOutput", "status"): "ExecutionStatusEnum",
        ("LiveElsewhereOutput", "campaign_status"): "CampaignStatusEnum",
        ("NextSendOutput", "status"): "ExecutionStatusEnum",
        ("TargetJourneyOutput", "status"): "ExecutionStatusEnum",
        ("TargetJourneyOutput", "campaign_status"): "CampaignStatusEnum",
        ("SelectionRuleOutput", "source"): "SelectionRuleOutputSourceEnum",
        ("AutoEnrollCheckOutput", "capped_by"): "CappedByEnum",
        ("RejectedItemOutput", "reason"): "RejectedItemOutputReasonEnum",
        ("TimelineEntryOutput", "type"): "ExecutionEventOutputTypeEnum",
        ("TimelineEntryOutput", "why_not_sent"): "WhyNotSentEnum",
        ("TimelineSendOutput", "status"): "SmsAttemptOutputStatusEnum",
        ("ConflictSkipOutput", "type"): "ConflictSkippedEnum",
        ("ConflictSkipOutput", "why_not_sent"): "ConflictSkippedEnum",
        ("LeftOutOutput", "type"): "LeftOutOutputTypeEnum",
        ("InvalidSubjectOutput", "reason"): "InvalidSubjectOutputReasonEnum",
        ("SmsProviderOutput", "kind"): "ProviderEnum",
        ("SmsLintOutput", "line_kind"): "SmsLineKindEnum",
        ("LaunchAccountOutput", "line_kind"): "LaunchAccountOutputLineKindEnum",
        ("SourceOutput", "root_schedule_type"): "RootScheduleTypeEnum",
        ("AudienceEstimateOutput", "status"): "AudienceEstimateOutputStatusEnum",
        ("BulkControlInputRequest", "action"): "BulkControlActionEnum",
        ("BulkControlOutput", "action"): "BulkControlActionEnum",
    }
    for (component, field), enum in expected.items():
        assert f"#/components/schemas/{enum}" in str(components[component]["properties"][field]), (component, field)


def _enum(name: str) -> set:
    schema = SchemaGenerator().get_schema(request=None, public=True)
    return set(schema["components"]["schemas"][name]["enum"])


def test_a_timeline_entry_names_only_event_types_and_reasons_of_its_enums():
    """Every event type a timeline row can carry, and every reason ``why_not_sent`` can give for any event, is
    in the enum a generated client decodes it with."""
    from automation.choices import EventType
    from automation.journey_stats import STEP_DEFERRALS, STEP_REFUSALS, why_not_sent
    from automation.models import ExecutionEvent

    types = _enum("ExecutionEventOutputTypeEnum")
    assert {value for value, _ in ExecutionEvent._meta.get_field("type").choices} == types == set(EventType.values)
    given = [{}, *({"reason": r} for r in STEP_DEFERRALS), *({"error": e} for e in STEP_REFUSALS)]
    said = {why_not_sent(ExecutionEvent(type=t, data=data)) for t in EventType.values for data in given}
    assert said - {None} == _enum("WhyNotSentEnum")
    assert {"window_closed", "telecom_blocked", "quiet_day"} <= said


def test_a_timeline_send_has_a_status_of_the_sms_log():
    """The timeline's send status is what the SMS action's hook reads: an SMS attempt's status."""
    from sms.choices import AttemptStatus
    from sms.models import SmsAttempt

    stored = {value for value, _ in SmsAttempt._meta.get_field("status").choices}
    assert stored == set(AttemptStatus.values) == _enum("SmsAttemptOutputStatusEnum")


@pytest.mark.django_db
def test_an_invalid_enrollment_reason_is_in_its_enum(workspace):
    """The reasons an enrollment answers for an id it refused as invalid: an unknown id, a target the SMS step
    cannot reach — and what the SMS action refuses is one of the reasons the engine sorts."""
    from automation.services.enrollment_core import BLACKLIST_PROBLEMS, SUBJECT_PROBLEMS
    from campaigns.models import Target
    from sms.action import SendSmsAction
    from sms.choices import BlacklistSource
    from sms.models import BlacklistEntry
    from tests.conftest import make_target

    no_mobile = make_target(workspace, landline="+982112345678")
    listed = make_target(workspace, mobile="+989121110001")
    opted_out = make_target(workspace, mobile="+989121110002")
    BlacklistEntry.objects.create(workspace=workspace, value=listed.mobile)
    BlacklistEntry.objects.create(workspace=workspace, value=opted_out.mobile, source=BlacklistSource.REPLY)
    refused = SendSmsAction().subject_problems(workspace, Target.objects.filter(workspace=workspace))
    assert refused == {no_mobile.pk: "no_valid_mobile", listed.pk: "blacklisted", opted_out.pk: "opt_out"}
    assert set(refused.values()) == set(SUBJECT_PROBLEMS)
    invalid = {"not_found", *(set(SUBJECT_PROBLEMS) - set(BLACKLIST_PROBLEMS))}
    assert invalid == _enum("InvalidSubjectOutputReasonEnum")


def test_the_other_closed_sets_come_from_what_their_producers_send():
    from automation.services.executions import ACTIONS
    from campaigns.chains.preview import UNKNOWN_AUDIENCE
    from campaigns.chains.schedule import RECURRING_ROOT_TYPES
    from sms.choices import LineKind
    from sms.providers import provider_kinds

    assert _enum("ProviderEnum") == set(provider_kinds()) >= {"console", "kavenegar"}
    assert _enum("SmsLineKindEnum") == _enum("LaunchAccountOutputLineKindEnum") == set(LineKind.values)
    assert _enum("RootScheduleTypeEnum") == set(RECURRING_ROOT_TYPES)
    assert _enum("AudienceEstimateOutputStatusEnum") == {UNKNOWN_AUDIENCE["status"]}
    assert _enum("BulkControlActionEnum") == set(ACTIONS)
