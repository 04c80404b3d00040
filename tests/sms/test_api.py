"""SMS API (preview, blacklist, templates, attempt log) and the delivery/opt-out webhook."""

import csv
import io
from datetime import UTC, datetime, timedelta

import pytest
import time_machine

from automation.services.enrollment import enroll_subjects
from campaigns.choices import Role
from sms.models import (
    BlacklistEntry,
    SmsAttempt,
    SmsChannelEvent,
    SmsLogEvent,
    SmsProviderAccount,
    SmsSettings,
    SmsTemplate,
)
from sms.services import circuit_resume, webhook_token_rotate
from tests.api_base import TenantIsolationCases
from tests.automation.helpers import Driver, end_node, journey, linear_graph, setup_sms, sms_node
from tests.conftest import api_client_for, make_actor, make_member, make_target

T0 = datetime(2026, 11, 1, 7, 0, tzinfo=UTC)


@pytest.mark.django_db
def test_preview_renders_for_sample_target_with_segments(api, workspace):
    target = make_target(workspace, name="مهسا احمدی", city="")
    response = api.post(
        "/api/v1/sms/preview",
        {"body": "سلام {target.first_name}، {city|شهر شما} {nope}", "target_id": target.id},
        format="json",
    )
    assert response.status_code == 200, response.content
    data = response.json()
    assert data["text"].startswith("سلام مهسا احمدی، شهر شما")
    assert data["unknown"] == ["nope"]
    assert data["segments"]["encoding"] == "UCS-2" and data["segments"]["segments"] == 1
    long = api.post("/api/v1/sms/preview", {"body": "س" * 300}, format="json").json()
    assert long["segments"]["segments"] == 5 and long["long_text_warning"] is True


@pytest.mark.django_db
def test_blacklist_add_normalizes_deactivate_reactivate_import_export(api, workspace):
    created = api.post("/api/v1/sms/blacklist", {"number": "۰۹۱۲ ۱۲۳ ۴۵۶۷", "reason": "complaint"}, format="json")
    assert created.status_code == 201, created.content
    entry = created.json()
    assert entry["value"] == "+989121234567"
    again = api.post("/api/v1/sms/blacklist", {"number": "+98 912 123 4567"}, format="json")
    assert again.status_code == 409
    assert api.post("/api/v1/sms/blacklist", {"number": "12"}, format="json").status_code == 400
    deactivated = api.delete(f"/api/v1/sms/blacklist/{entry['id']}")
    assert deactivated.status_code == 200 and deactivated.json()["is_active"] is False
    assert BlacklistEntry.objects.filter(pk=entry["id"]).exists()  # kept, never deleted
    assert api.post(f"/api/v1/sms/blacklist/{entry['id']}/reactivate").json()["is_active"] is True
    imported = api.post(
        "/api/v1/sms/blacklist/import", {"numbers": ["09121234567", "09351112233", "bad"]}, format="json"
    ).json()
    assert imported == {"added": 1, "already_active": 1, "invalid": ["bad"]}
    export = api.get("/api/v1/sms/blacklist/export")
    assert export.status_code == 200 and "+989351112233" in export.getvalue().decode()
    listed = api.get("/api/v1/sms/blacklist", {"q": "9351"}).json()["results"]
    assert [e["value"] for e in listed] == ["+989351112233"]


@pytest.mark.django_db
def test_sms_logs_need_their_own_permission(workspace):
    operator = make_member(workspace, Role.OPERATOR)
    client = api_client_for(operator, workspace)
    assert client.get("/api/v1/sms/attempts").status_code == 403
    assert client.get("/api/v1/sms/blacklist").status_code == 403


@pytest.mark.django_db
def test_templates_crud(api):
    created = api.post("/api/v1/sms/templates", {"name": "خوشامد", "body": "سلام {first_name}"}, format="json")
    assert created.status_code == 201
    tid = created.json()["id"]
    assert api.patch(f"/api/v1/sms/templates/{tid}", {"body": "درود"}, format="json").json()["body"] == "درود"
    assert api.delete(f"/api/v1/sms/templates/{tid}").status_code == 204
    assert api.get(f"/api/v1/sms/templates/{tid}").status_code == 404
    assert SmsTemplate.objects.filter(pk=tid, deleted_at__isnull=False).exists()


def _sent_attempt(actor, workspace):
    setup_sms(workspace)
    with time_machine.travel(T0, tick=False):
        campaign = journey(actor, linear_graph(sms_node("a"), end_node()))
        enroll_subjects(actor=actor, campaign_id=campaign.id, target_ids=[make_target(workspace).id])
    Driver().tick(T0 + timedelta(minutes=1))
    return SmsAttempt.objects.get(campaign=campaign)


@pytest.mark.django_db
def test_webhook_moves_status_forward_once_and_records_opt_outs(client, actor, workspace):
    attempt = _sent_attempt(actor, workspace)
    token = SmsSettings.objects.get(workspace=workspace).webhook_token
    url = f"/api/webhooks/sms/generic/{token}"
    body = {
        "reports": [
            {"message_id": attempt.provider_message_id, "status": "delivered"},
            {"message_id": "nope", "status": "sent"},
        ],
        "opt_outs": ["۰۹۱۲۰۰۰۱۱۲۲", {"number": "+989120001133"}],
    }
    response = client.post(url, body, content_type="application/json")
    assert response.status_code == 200 and response.json() == {"ok": True}
    client.post(url, body, content_type="application/json")  # duplicate: recorded once
    late = {"reports": [{"message_id": attempt.provider_message_id, "status": "sent"}]}
    client.post(url, late, content_type="application/json")  # late report: history only
    assert SmsAttempt.objects.get(pk=attempt.pk).status == "delivered"
    assert list(
        SmsLogEvent.objects.filter(attempt=attempt).order_by("id").values_list("provider_status", flat=True)
    ) == ["delivered", "sent"]
    assert set(
        BlacklistEntry.objects.filter(workspace=workspace, source="opt_out").values_list("value", flat=True)
    ) == {
        "+989120001122",
        "+989120001133",
    }


@pytest.mark.django_db
def test_webhook_refusals_are_all_the_same_404(client, actor, workspace):
    settings = setup_sms(workspace)
    good = f"/api/webhooks/sms/generic/{settings.webhook_token}"
    refusals = [
        client.post("/api/webhooks/sms/generic/wrong-token", {}, content_type="application/json"),
        client.post(f"/api/webhooks/sms/melipayamak/{settings.webhook_token}", {}, content_type="application/json"),
        client.post(good, "x" * (65 * 1024), content_type="application/json"),
        client.post(good, {"reports": [{}] * 201}, content_type="application/json"),
    ]
    assert {r.status_code for r in refusals} == {404}
    assert len({r.content for r in refusals}) == 1
    rotated = webhook_token_rotate(actor=actor)
    assert client.post(good, {}, content_type="application/json").status_code == 404
    assert (
        client.post(
            f"/api/webhooks/sms/generic/{rotated.webhook_token}", {}, content_type="application/json"
        ).status_code
        == 200
    )
    assert SmsChannelEvent.objects.filter(type="webhook_token_rotated", actor=actor.user).exists()


@pytest.mark.django_db
def test_webhook_posts_are_rate_limited_per_address_whatever_token_they_name(client, workspace, monkeypatch):
    from sms import webhooks

    monkeypatch.setattr(webhooks, "RATE_PER_MINUTE", 5)
    good = f"/api/webhooks/sms/generic/{setup_sms(workspace).webhook_token}"
    for n in range(5):  # made-up tokens: one counter for the address, not a cache entry per token
        client.post(
            f"/api/webhooks/sms/generic/made-up-{n}", {}, content_type="application/json", REMOTE_ADDR="203.0.113.9"
        )
    assert client.post(good, {}, content_type="application/json", REMOTE_ADDR="203.0.113.9").status_code == 404
    assert client.post(good, {}, content_type="application/json", REMOTE_ADDR="198.51.100.7").status_code == 200


@pytest.mark.django_db
def test_manual_circuit_resume_is_audited(actor, workspace):
    settings = setup_sms(workspace, paused_until=T0 + timedelta(hours=1), pause_reason="credit")
    assert settings.paused_until is not None
    resumed = circuit_resume(actor=actor)
    assert resumed.paused_until is None
    assert SmsChannelEvent.objects.filter(type="manual_resume", actor=actor.user).exists()


class TestBlacklistIsolation(TenantIsolationCases):
    list_url = "/api/v1/sms/blacklist"
    detail_url = "/api/v1/sms/blacklist/{id}"

    def make(self, workspace):
        return BlacklistEntry.objects.create(workspace=workspace, value=f"+98912{workspace.id:07d}")

    def test_reactivate_other_workspace_is_404(self, setup):
        client, _, foreign = setup
        assert client.post(f"/api/v1/sms/blacklist/{foreign.id}/reactivate").status_code == 404


class TestSmsTemplateIsolation(TenantIsolationCases):
    list_url = "/api/v1/sms/templates"
    detail_url = "/api/v1/sms/templates/{id}"
    update_payload = {"name": "x"}

    def make(self, workspace):
        return SmsTemplate.objects.create(workspace=workspace, name="t", body="b")


class TestSmsAttemptIsolation(TenantIsolationCases):
    list_url = "/api/v1/sms/attempts"
    detail_url = "/api/v1/sms/attempts/{id}"
    can_delete = False

    def make(self, workspace):
        return _sent_attempt(make_actor(workspace), workspace)


@pytest.mark.django_db
def test_preview_of_other_workspace_target_is_404(api, other_workspace):
    foreign = make_target(other_workspace)
    assert api.post("/api/v1/sms/preview", {"body": "x", "target_id": foreign.id}, format="json").status_code == 404


@pytest.mark.django_db
def test_sms_settings_resume_and_rotate_endpoints(api, workspace, other_workspace):
    settings = setup_sms(workspace, paused_until=T0 + timedelta(days=3650), pause_reason="credit")
    foreign = setup_sms(other_workspace, paused_until=T0 + timedelta(days=3650))
    data = api.get("/api/v1/sms/settings").json()
    assert data["pause_reason"] == "credit" and data["channel_problem"] is None
    assert data["webhook_path"].endswith(settings.webhook_token)
    assert data["notifications_email"] is False and data["sms_retention_days"] == 0
    workspace.settings = {**(workspace.settings or {}), "notifications_email": True, "sms_retention_days": 90}
    workspace.save()
    data = api.get("/api/v1/sms/settings").json()
    assert data["notifications_email"] is True and data["sms_retention_days"] == 90
    assert api.post("/api/v1/sms/settings/resume").json()["paused_until"] is None
    rotated = api.post("/api/v1/sms/settings/rotate-webhook").json()
    assert not rotated["webhook_path"].endswith(settings.webhook_token)
    foreign.refresh_from_db()
    assert foreign.paused_until is not None  # another workspace's circuit is untouched


@pytest.mark.django_db
def test_each_accounts_credit_unit_is_in_the_settings_and_an_enum_in_the_schema(api, workspace):
    from drf_spectacular.generators import SchemaGenerator

    setup_sms(workspace)  # console: rials
    SmsProviderAccount.objects.create(workspace=workspace, name="ملی", provider="melipayamak", credit=3_500)
    accounts = api.get("/api/v1/sms/settings").json()["accounts"]
    assert {(a["provider"], a["credit"], a["credit_unit"]) for a in accounts} == {
        ("console", None, "rial"),
        ("melipayamak", 3_500, "message"),
    }
    schemas = SchemaGenerator().get_schema(request=None, public=True)["components"]["schemas"]
    for name in ("SmsAccountOutput", "LaunchAccountOutput"):  # one enum, in the settings and the launch check
        assert schemas[name]["properties"]["credit_unit"]["allOf"] == [{"$ref": "#/components/schemas/CreditUnitEnum"}]
    assert schemas["CreditUnitEnum"]["enum"] == ["rial", "message"]


@pytest.mark.django_db
def test_sms_settings_need_workspace_management(workspace):
    manager = make_member(workspace, Role.MANAGER)
    client = api_client_for(manager, workspace)
    assert client.get("/api/v1/sms/settings").status_code == 403
    assert client.post("/api/v1/sms/settings/resume").status_code == 403


def test_sms_settings_are_changed_through_the_api_only_the_keys_sent(api, workspace, other_workspace):
    settings = setup_sms(workspace)
    foreign = setup_sms(other_workspace)
    body = {"frequency_cap_per_day": 3, "quiet_fridays": True, "quiet_days": ["2027-03-21", "2027-03-20"]}
    response = api.patch("/api/v1/sms/settings", {**body, "sms_retention_days": 30}, format="json")
    assert response.status_code == 200, response.json()
    data = response.json()
    assert (data["frequency_cap_per_day"], data["quiet_fridays"]) == (3, True)
    assert data["quiet_days"] == ["2027-03-20", "2027-03-21"] and data["sms_retention_days"] == 30
    stored = SmsSettings.objects.get(pk=settings.pk)
    assert stored.frequency_cap_rules == [{"period": "day", "limit": 3}]
    assert stored.opt_out_text == settings.opt_out_text  # not sent: kept
    # the rules per Jalali day / week / month: typed, stored in period order, read back
    rules = [{"period": "month", "limit": 20}, {"period": "week", "limit": 6}, {"period": "day", "limit": 2}]
    data = api.patch("/api/v1/sms/settings", {"frequency_cap_rules": rules}, format="json").json()
    assert data["frequency_cap_rules"] == rules[::-1] and data["frequency_cap_per_day"] == 2
    assert api.get("/api/v1/sms/settings").json()["frequency_cap_rules"] == rules[::-1]
    # refusals in the envelope, nothing changed: out of bounds, an unknown key, another workspace's account, a
    # period twice or unknown, a limit above its period's bound or not a number, the two forms together
    wrongs = (
        {"frequency_cap_per_day": 51},
        {"colour": "red"},
        {"primary_account_id": foreign.primary_account_id},
        {"frequency_cap_rules": [{"period": "day", "limit": 2}, {"period": "day", "limit": 3}]},
        {"frequency_cap_rules": [{"period": "year", "limit": 2}]},
        {"frequency_cap_rules": [{"period": "day", "limit": 51}]},
        {"frequency_cap_rules": [{"period": "week", "limit": 0}]},
        {"frequency_cap_rules": [{"period": "month", "limit": "many"}]},
        {"frequency_cap_rules": [{"period": "month"}]},
        {"frequency_cap_rules": {"period": "day", "limit": 2}},
        {"frequency_cap_rules": [], "frequency_cap_per_day": 2},
    )
    for wrong in wrongs:
        refused = api.patch("/api/v1/sms/settings", wrong, format="json")
        assert refused.status_code in (400, 404) and refused.json()["success"] is False, wrong
    stored.refresh_from_db()
    assert stored.frequency_cap_rules == rules[::-1] and stored.primary_account_id == settings.primary_account_id
    foreign.refresh_from_db()
    assert foreign.frequency_cap_rules == []  # another workspace's settings untouched
    # the day shortcut keeps the other rules; [] removes them all
    data = api.patch("/api/v1/sms/settings", {"frequency_cap_per_day": 0}, format="json").json()
    assert data["frequency_cap_rules"] == rules[1::-1] and data["frequency_cap_per_day"] == 0
    assert (
        api.patch("/api/v1/sms/settings", {"frequency_cap_rules": []}, format="json").json()["frequency_cap_rules"]
        == []
    )
    manager = api_client_for(make_member(workspace, Role.MANAGER), workspace)
    assert manager.patch("/api/v1/sms/settings", {"quiet_fridays": False}, format="json").status_code == 403


def test_sms_settings_answer_another_workspaces_account_as_a_missing_one(api, workspace, other_workspace):
    # the refusal gives no hint that the id is another workspace's account
    setup_sms(workspace)
    foreign = setup_sms(other_workspace)
    missing = SmsProviderAccount.objects.order_by("-pk").first().pk + 1000
    for field in ("primary_account_id", "fallback_account_id"):
        answers = [
            api.patch("/api/v1/sms/settings", {field: account_id}, format="json")
            for account_id in (foreign.primary_account_id, missing)
        ]
        assert [a.status_code for a in answers] == [400, 400]
        assert answers[0].json() == answers[1].json()


@pytest.mark.django_db
def test_operator_preview_of_another_operators_target_is_404(workspace):
    operator = make_member(workspace, Role.OPERATOR)
    other = make_member(workspace, Role.OPERATOR)
    own = make_target(workspace, name="مال خودم", owner=operator)
    foreign = make_target(workspace, name="مال دیگری", owner=other)  # newer: the default sample before
    client = api_client_for(operator, workspace)
    body = "سلام {target.name}"
    refused = client.post("/api/v1/sms/preview", {"body": body, "target_id": foreign.id}, format="json")
    assert refused.status_code == 404 and refused.json()["error"]["code"] == "NOT_FOUND"
    assert client.post("/api/v1/sms/preview", {"body": body, "target_id": own.id}, format="json").status_code == 200
    sample = client.post("/api/v1/sms/preview", {"body": body}, format="json").json()
    assert sample["text"] == "سلام مال خودم"
    manager = api_client_for(make_member(workspace, Role.MANAGER), workspace)
    assert manager.post("/api/v1/sms/preview", {"body": body}, format="json").json()["text"] == "سلام مال دیگری"


@pytest.mark.django_db
def test_spreadsheet_formula_injection_in_blacklist_export_is_written_as_text(api):
    api.post("/api/v1/sms/blacklist", {"number": "09121234567", "description": '=HYPERLINK("x")'}, format="json")
    api.post("/api/v1/sms/blacklist", {"number": "09351112233", "description": "@SUM(A1)"}, format="json")
    rows = list(csv.reader(io.StringIO(api.get("/api/v1/sms/blacklist/export").getvalue().decode())))
    by_number = {row[0]: row[2] for row in rows[1:]}
    assert by_number["+989121234567"] == '\'=HYPERLINK("x")'
    assert by_number["+989351112233"] == "'@SUM(A1)"  # the E.164 number itself stays as it is


@pytest.mark.django_db
def test_unbounded_blacklist_export_is_refused_above_the_export_bound(api, settings):
    settings.TARGETS_EXPORT_MAX_ROWS = 1
    api.post("/api/v1/sms/blacklist/import", {"numbers": ["09121234567", "09351112233"]}, format="json")
    assert api.get("/api/v1/sms/blacklist/export").status_code == 200  # its own bound: a whole year's opt-outs
    settings.BLACKLIST_EXPORT_MAX_ROWS = 1
    response = api.get("/api/v1/sms/blacklist/export")
    assert response.status_code == 400 and response.json()["error"]["code"] == "VALIDATION_ERROR"


@pytest.mark.django_db
def test_sms_list_filters_refuse_bad_values_and_narrow_the_lists(api):
    api.post("/api/v1/sms/blacklist/import", {"numbers": ["09121234567", "09351112233"]}, format="json")
    for query in ({"active": "maybe"}, {"q": "x" * 101}):
        response = api.get("/api/v1/sms/blacklist", query)
        assert response.status_code == 400 and response.json()["error"]["code"] == "VALIDATION_ERROR"
    assert api.get("/api/v1/sms/blacklist", {"q": "۰۹۳۵۱۱۱۲۲۳۳"}).json()["count"] == 1
    assert api.get("/api/v1/sms/blacklist", {"active": "false"}).json()["count"] == 0
    for query in ({"campaign": "1.5"}, {"status": "nope"}, {"since": "2026-01-01T00:00:00+23:00"}):
        response = api.get("/api/v1/sms/attempts", query)
        assert response.status_code == 400, query
    assert api.get("/api/v1/sms/attempts", {"number": "09121234567"}).json()["count"] == 0
