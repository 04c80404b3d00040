"""Workflow-wide defaults (the builder's settings and `workflows/{id}/defaults`): the daily limit of campaigns that
set none, the retry policy and unknown-outcome rule of action steps that set none; a step's own value wins."""

from datetime import timedelta

import pytest
import time_machine
from django.test import Client

from automation.choices import ExecutionStatus
from automation.engine.context import automation_settings
from automation.engine.counters import budget_scopes
from automation.models import Execution, Workflow
from automation.services.workflows import workflow_create
from sms.models import SmsAttempt
from sms.providers import SendResponse
from sms.providers.console import ConsoleProvider
from tests.conftest import make_target

from .helpers import T0, CountingConsole, Driver, end_node, enroll, journey, linear_graph, setup_sms, sms_node

pytestmark = pytest.mark.django_db

RETRY = {"enabled": True, "strategy": "fixed", "max_attempts": 2, "interval_seconds": 60, "on_exhausted": "fail"}


def own_nothing(key: str, **config) -> dict:
    """An SMS step that sets neither a retry policy nor an unknown-outcome rule of its own."""
    node = sms_node(key, **config)
    node["config"].pop("retry")
    return node


def test_a_step_without_its_own_retry_takes_the_workflows(actor, workspace, monkeypatch):
    setup_sms(workspace)
    CountingConsole(monkeypatch, lambda r: SendResponse("failed", error_code="500") if r.text == "اول" else None)
    graph = linear_graph(own_nothing("a", body="اول"), end_node(), settings={"retry": RETRY})
    with time_machine.travel(T0, tick=False):
        campaign = journey(actor, graph)
        enroll(actor, campaign, [make_target(workspace)])
    driver = Driver()
    for minutes in (1, 2, 3, 4, 5):
        driver.tick(T0 + timedelta(minutes=minutes))
    attempts = SmsAttempt.objects.filter(campaign=campaign).order_by("id")
    assert [a.status for a in attempts] == ["failed", "failed", "failed"]  # the first send + the workflow's 2
    assert Execution.objects.get(campaign=campaign).status == ExecutionStatus.FAILED


def test_a_step_with_its_own_retry_keeps_it(actor, workspace, monkeypatch):
    setup_sms(workspace)
    CountingConsole(monkeypatch, lambda r: SendResponse("failed", error_code="500"))
    graph = linear_graph(sms_node("a"), end_node(), settings={"retry": RETRY})  # its own: no retry
    with time_machine.travel(T0, tick=False):
        campaign = journey(actor, graph)
        enroll(actor, campaign, [make_target(workspace)])
    driver = Driver()
    for minutes in (1, 2, 3, 4):
        driver.tick(T0 + timedelta(minutes=minutes))
    assert SmsAttempt.objects.filter(campaign=campaign).count() == 1


def test_the_workflows_unknown_outcome_rule_holds_a_step_without_its_own(actor, workspace, monkeypatch):
    monkeypatch.setattr(ConsoleProvider, "status_by_local_id", False)  # a provider that cannot be asked
    setup_sms(workspace)
    graph = linear_graph(own_nothing("a"), end_node(), settings={"on_unknown_outcome": "hold"})
    with time_machine.travel(T0, tick=False):
        campaign = journey(actor, graph)
        enroll(actor, campaign, [make_target(workspace)])
    CountingConsole(monkeypatch, lambda r: SendResponse("unknown", error_code="connection_dropped"))
    Driver().tick(T0 + timedelta(minutes=1))
    assert Execution.objects.get(campaign=campaign).status == ExecutionStatus.PAUSED


def test_the_api_reads_and_replaces_the_drafts_defaults_typed(api, actor, workspace):
    workflow = workflow_create(actor=actor, name="یادآوری")
    url = f"/api/v1/workflows/{workflow.id}/defaults"
    body = api.get(url).json()
    assert (body["daily_limit"], body["retry"], body["on_unknown_outcome"]) == (None, None, None)
    saved = api.put(url, {"daily_limit": 50, "retry": RETRY, "on_unknown_outcome": "hold"}, format="json")
    assert saved.status_code == 200, saved.content
    assert saved.json()["retry"] == RETRY and saved.json()["daily_limit"] == 50
    workflow = Workflow.objects.get(pk=workflow.pk)
    draft = workflow.versions.get(status="draft")
    assert draft.settings["on_unknown_outcome"] == "hold" and draft.settings["daily_limit"] == 50
    bad = api.put(
        url, {"daily_limit": 0, "retry": {**RETRY, "max_attempts": 11}, "on_unknown_outcome": "x"}, format="json"
    )
    assert bad.status_code == 400
    assert {key.split(".")[0] for key in bad.json()["error"]["details"]} == {
        "daily_limit",
        "retry",
        "on_unknown_outcome",
    }
    cleared = api.put(url, {}, format="json").json()
    assert (cleared["daily_limit"], cleared["retry"], cleared["on_unknown_outcome"]) == (None, None, None)


def test_the_workflows_daily_limit_applies_to_a_campaign_without_its_own(actor, workspace):
    setup_sms(workspace)
    with time_machine.travel(T0, tick=False):
        campaign = journey(actor, linear_graph(sms_node("a"), end_node(), settings={"daily_limit": 7}))
    limits = [scope.limit for scope in budget_scopes(campaign, settings=automation_settings(workspace))]
    assert 7 in limits


def test_the_builder_saves_the_defaults_and_a_step_can_follow_them(owner, actor, workspace):
    workflow = workflow_create(actor=actor, name="پیش‌فرض‌ها")
    client = Client()
    client.force_login(owner)
    base = f"/automation/workflows/{workflow.id}/builder/"
    page = client.get(base).content.decode()
    assert "پیش‌فرض‌های این گردش‌کار" in page
    response = client.post(
        base + "defaults/",
        {
            "default_daily_limit": "۱۲۰",
            "default_retry": "on",
            "default_retry_strategy": "exponential",
            "default_retry_max_attempts": "2",
            "default_retry_interval_minutes": "10",
            "default_retry_on_exhausted": "continue",
            "default_on_unknown_outcome": "hold",
        },
    )
    assert response.status_code == 302
    draft = Workflow.objects.get(pk=workflow.pk).versions.get(status="draft")
    assert draft.settings["daily_limit"] == 120 and draft.settings["on_unknown_outcome"] == "hold"
    assert draft.settings["retry"] == {
        "enabled": True,
        "strategy": "exponential",
        "max_attempts": 2,
        "interval_seconds": 600,
        "on_exhausted": "continue",
    }
    refused = client.post(base + "defaults/", {"default_daily_limit": "0"}, follow=True).content.decode()
    assert "سقف روزانه باید دست‌کم ۱ باشد" in refused
