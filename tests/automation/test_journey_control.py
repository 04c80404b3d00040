"""Bulk per-target control, campaign numbers and the target timeline (PostgreSQL)."""

from datetime import datetime

import pytest

from automation.models import Execution
from automation.services.enrollment import enroll_subjects
from automation.services.executions import execution_control
from campaigns.choices import Role
from campaigns.models import CampaignEvent
from tests.conftest import api_client_for, make_member, make_target, make_workspace

from .helpers import end_node, journey, linear_graph, setup_sms, sms_node

GRAPH = linear_graph(sms_node("a"), end_node())


@pytest.fixture
def running(actor, workspace):
    setup_sms(workspace)
    campaign = journey(actor, GRAPH)
    targets = [make_target(workspace) for _ in range(4)]
    enroll_subjects(actor=actor, campaign_id=campaign.id, target_ids=[t.id for t in targets])
    return campaign, list(Execution.objects.filter(campaign=campaign).order_by("id"))


@pytest.mark.django_db
def test_bulk_control_reports_each_refusal_and_writes_one_audit_row(api, actor, running):
    campaign, (e1, e2, e3, e4) = running
    execution_control(actor=actor, execution_id=e2.id, action="pause")
    url = f"/api/v1/campaigns/{campaign.id}/executions/bulk"
    response = api.post(url, {"action": "pause", "execution_ids": [e1.id, e2.id, e3.id, 999999]}, format="json")
    assert response.status_code == 200, response.content
    data = response.json()
    assert data["done"] == [e1.id, e3.id]
    assert {r["execution_id"]: r["code"] for r in data["refused"]} == {e2.id: "INVALID_TRANSITION", 999999: "NOT_FOUND"}
    audit = CampaignEvent.objects.filter(campaign=campaign, type="executions_pause")
    assert audit.count() == 1 and audit.get().data["refused"] == 2
    # restart only finished or failed: live ones are refused, the others go on
    removed = api.post(url, {"action": "remove", "execution_ids": [e4.id]}, format="json").json()
    assert removed["done"] == [e4.id]
    restart = api.post(url, {"action": "restart", "execution_ids": [e1.id, e4.id]}, format="json").json()
    assert [r["execution_id"] for r in restart["refused"]] == [e1.id, e4.id]  # paused; cancelled (not finished)
    assert Execution.objects.get(pk=e1.id).status == "paused"


@pytest.mark.django_db
def test_bulk_resume_takes_the_held_steps_decision(api, actor, running):
    from automation.engine.outcome import HELD_UNKNOWN, RESEND_UNKNOWN

    campaign, (e1, e2, e3, _) = running
    for e in (e1, e2):
        execution_control(actor=actor, execution_id=e.id, action="pause")
    Execution.objects.filter(pk=e1.id).update(metadata={HELD_UNKNOWN: e1.current_node_id})  # held by its step
    url = f"/api/v1/campaigns/{campaign.id}/executions/bulk"
    bad = api.post(url, {"action": "pause", "execution_ids": [e3.id], "unknown_outcome": "resend"}, format="json")
    assert bad.status_code == 400 and "unknown_outcome" in bad.json()["error"]["details"]
    body = {"action": "resume", "execution_ids": [e1.id, e2.id], "unknown_outcome": "resend"}
    data = api.post(url, body, format="json").json()
    assert data["done"] == [e1.id]
    assert [r["execution_id"] for r in data["refused"]] == [e2.id]  # nothing of e2's is held
    assert Execution.objects.get(pk=e1.id).metadata == {RESEND_UNKNOWN: e1.current_node_id}
    audit = CampaignEvent.objects.get(campaign=campaign, type="executions_resume")
    assert audit.data["unknown_outcome"] == "resend"


@pytest.mark.django_db
def test_bulk_control_of_other_workspace_campaign_is_404(running):
    campaign, executions = running
    stranger_ws = make_workspace("x")
    client = api_client_for(make_member(stranger_ws), stranger_ws)
    url = f"/api/v1/campaigns/{campaign.id}/executions/bulk"
    response = client.post(url, {"action": "pause", "execution_ids": [executions[0].id]}, format="json")
    assert response.status_code == 404
    assert Execution.objects.get(pk=executions[0].id).status == "active"


@pytest.mark.django_db
def test_bulk_control_needs_manage_campaigns(workspace, running):
    campaign, executions = running
    client = api_client_for(make_member(workspace, Role.OPERATOR), workspace)
    url = f"/api/v1/campaigns/{campaign.id}/executions/bulk"
    assert client.post(url, {"action": "pause", "execution_ids": [executions[0].id]}, format="json").status_code == 403


@pytest.mark.django_db
def test_stats_count_statuses_sends_and_limits(api, actor, workspace):
    from datetime import timedelta

    from django.utils import timezone

    from automation.models import AutomationSettings

    from .helpers import Driver

    setup_sms(workspace)
    AutomationSettings.objects.update_or_create(workspace=workspace, defaults={"global_daily_limit": 10})
    campaign = journey(actor, GRAPH, daily_limit=2)
    targets = [make_target(workspace) for _ in range(4)]
    enroll_subjects(actor=actor, campaign_id=campaign.id, target_ids=[t.id for t in targets])
    now = timezone.now()
    Driver().tick(now + timedelta(seconds=1))
    Driver().tick(now + timedelta(seconds=2))  # the campaign limit (2) pushes the rest to tomorrow
    data = api.get(f"/api/v1/campaigns/{campaign.id}/journey/stats").json()
    assert data["total"] == 4 and data["completed"] == 2
    assert data["sent"] == {"today": 2, "total": 2}
    limits = data["limits"]
    assert limits["campaign_daily_limit"] == 2 and limits["workspace_daily_limit"] == 10
    assert limits["remaining_today"] == 0
    pending = [s for s in data["next_sends"]]
    assert len(pending) == 2 and all(s["queued_for_sending"] for s in pending)
    assert len(data["series"]) == 30 and data["series"][-1]["sent"] == 2


@pytest.mark.django_db
def test_target_timeline_shows_sends_why_not_sent_and_campaigns(api, actor, workspace):
    from datetime import timedelta

    from django.utils import timezone

    from .helpers import Driver

    setup_sms(workspace)
    campaign = journey(actor, GRAPH)
    target = make_target(workspace)
    enroll_subjects(actor=actor, campaign_id=campaign.id, target_ids=[target.id])
    Driver().tick(timezone.now() + timedelta(seconds=1))
    data = api.get(f"/api/v1/targets/{target.id}/timeline").json()
    assert [c["campaign_id"] for c in data["campaigns"]] == [campaign.id]
    types = [e["type"] for e in data["results"]]
    assert types[-1] == "enrolled" and "action_attempt" in types  # newest first
    send = next(e for e in data["results"] if e["type"] == "action_attempt")["send"]
    assert send["number"] and send["text"].startswith("سلام") and send["status"] in ("sent", "submitted")
    executions = api.get(f"/api/v1/targets/{target.id}/executions").json()
    assert [e["campaign_id"] for e in executions["results"]] == [campaign.id]


@pytest.mark.django_db
def test_timeline_marks_blacklisted_as_why_not_sent(api, actor, workspace):
    from datetime import timedelta

    from django.utils import timezone

    from sms.services import blacklist_add

    from .helpers import Driver

    setup_sms(workspace)
    campaign = journey(actor, GRAPH)
    target = make_target(workspace)
    enroll_subjects(actor=actor, campaign_id=campaign.id, target_ids=[target.id])
    blacklist_add(actor=actor, number=target.mobile)  # blacklisted after enrollment
    Driver().tick(timezone.now() + timedelta(seconds=1))
    rows = api.get(f"/api/v1/targets/{target.id}/timeline").json()["results"]
    # One row says it: the step's guard note and the execution's end are one entry on the person's timeline.
    assert [r["why_not_sent"] for r in rows].count("blacklisted") == 1


class TestTargetTimelineIsolation:
    @pytest.mark.django_db
    def test_other_workspace_target_and_campaign_are_404(self, actor, workspace):
        setup_sms(workspace)
        campaign = journey(actor, GRAPH)
        target = make_target(workspace)
        stranger_ws = make_workspace("x")
        client = api_client_for(make_member(stranger_ws), stranger_ws)
        assert client.get(f"/api/v1/targets/{target.id}/timeline").status_code == 404
        assert client.get(f"/api/v1/targets/{target.id}/executions").status_code == 404
        assert client.get(f"/api/v1/campaigns/{campaign.id}/journey/stats").status_code == 404

    @pytest.mark.django_db
    def test_operator_sees_only_own_targets_timeline(self, actor, workspace):
        operator = make_member(workspace, Role.OPERATOR)
        mine, theirs = make_target(workspace, owner=operator), make_target(workspace)
        client = api_client_for(operator, workspace)
        assert client.get(f"/api/v1/targets/{mine.id}/timeline").status_code == 200
        assert client.get(f"/api/v1/targets/{theirs.id}/timeline").status_code == 404


@pytest.mark.django_db
def test_seed_sample_text_with_workspace_name_and_metadata_publishes_and_renders(actor, workspace):
    from types import SimpleNamespace

    from automation.engine.variables import render, unknown_variables

    from .helpers import publish

    body = (
        "سلام {target.first_name|همکار گرامی}\nمحصولات جدید {workspace.name} … کد: {execution.metadata.discount_code|-}"
    )
    assert unknown_variables(body) == []
    assert unknown_variables("{metadata.a.b} {workspace.nope}") == ["metadata.a.b", "workspace.nope"]
    publish(actor, linear_graph(sms_node("a", body=body), end_node()))  # the seed's own sample publishes
    scope = SimpleNamespace(
        subject=None, campaign=None, workspace=workspace, execution=SimpleNamespace(metadata={"discount_code": "X7"})
    )
    text = render(body, scope).text
    assert workspace.name in text and "X7" in text and "همکار گرامی" in text


@pytest.mark.django_db
def test_send_window_closed_every_day_is_refused_at_save(actor, workspace):
    from automation.services.campaigns import journey_campaign_create
    from campaigns.platform.errors import ValidationFailed

    from .helpers import publish

    workflow = publish(actor, GRAPH)
    closed = {"timezone": "Asia/Tehran", "days": dict.fromkeys(("sat", "sun", "mon", "tue", "wed", "thu", "fri"))}
    with pytest.raises(ValidationFailed) as refused:
        journey_campaign_create(actor=actor, name="c", workflow_id=workflow.id, send_window=closed)
    assert "send_window" in refused.value.details


@pytest.mark.django_db
def test_timeline_hides_what_a_send_was_from_roles_without_the_sms_log(api, actor, workspace, client):
    """Viewers and operators see that a message went and its status; text, number, provider id and errors stay
    in the SMS log (timeline API, target page and campaign log alike)."""
    from datetime import timedelta

    from django.utils import timezone

    from sms.models import SmsAttempt

    from .helpers import Driver

    setup_sms(workspace)
    campaign = journey(actor, GRAPH)
    operator = make_member(workspace, Role.OPERATOR)
    target = make_target(workspace, owner=operator, first_name="سارا")
    enroll_subjects(actor=actor, campaign_id=campaign.id, target_ids=[target.id])
    Driver().tick(timezone.now() + timedelta(seconds=1))
    SmsAttempt.objects.filter(campaign=campaign).update(
        provider_message_id="PMID-42", error_code="E_PROVIDER", error_message="خطای اپراتور"
    )
    secret = ("سلام سارا", target.mobile, "PMID-42", "E_PROVIDER", "خطای اپراتور")

    full = next(e for e in api.get(f"/api/v1/targets/{target.id}/timeline").json()["results"] if e["send"])
    assert full["send"]["text"] == "سلام سارا" and full["send"]["provider_message_id"] == "PMID-42"
    assert full["send"]["hidden"] is False

    for role_user in (make_member(workspace, Role.VIEWER), operator):
        body = api_client_for(role_user, workspace).get(f"/api/v1/targets/{target.id}/timeline")
        row = next(e for e in body.json()["results"] if e["send"])
        assert row["send"]["hidden"] is True
        assert row["send"]["status"] == full["send"]["status"]
        assert all(row["send"][key] is None for key in ("text", "number", "provider_message_id", "error_message"))
        assert row["data"] == {"attempt_id": full["data"]["attempt_id"]}
        assert not any(value in body.content.decode() for value in secret)

        client.force_login(role_user)
        for url in (f"/targets/{target.id}/edit/", f"/automation/campaigns/{campaign.id}/logs/"):
            html = client.get(url).content.decode()
            assert "برای نقش شما نمایش داده نمی‌شود" in html, url
            assert not any(value in html for value in secret), url


@pytest.mark.django_db
def test_stats_say_when_journeys_resting_at_a_wait_move_on(api, actor, workspace):
    """Everyone sent the first SMS and waits a day: no send is next, and the stats say when the first wakes."""
    from datetime import timedelta

    from django.utils import timezone

    from .helpers import Driver, wait_node

    setup_sms(workspace)
    campaign = journey(actor, linear_graph(sms_node("a"), wait_node("w", amount=1), sms_node("b"), end_node()))
    enroll_subjects(actor=actor, campaign_id=campaign.id, target_ids=[make_target(workspace).id for _ in range(3)])
    data = api.get(f"/api/v1/campaigns/{campaign.id}/journey/stats").json()
    assert data["next_wake"] is None  # nobody rests at a wait yet
    now = timezone.now()
    Driver().tick(now + timedelta(seconds=1))
    data = api.get(f"/api/v1/campaigns/{campaign.id}/journey/stats").json()
    assert data["waiting"] == 3 and data["next_sends"] == []
    wake = datetime.fromisoformat(data["next_wake"])
    assert now + timedelta(hours=23) < wake < now + timedelta(days=1, minutes=5)
