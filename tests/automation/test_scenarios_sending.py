"""Sending: at most once per step, provider outcomes, retries and outages (journeys.md "Tests")."""

from datetime import timedelta

import pytest
import time_machine

from automation.choices import EventType, ExecutionStatus
from automation.engine.batch import process_batch
from automation.engine.runner import process_execution
from automation.models import Execution, ExecutionEvent
from campaigns.models import Notification
from sms.action import sending
from sms.models import SmsAttempt, SmsLogEvent, SmsSettings
from sms.providers import SendResponse
from sms.providers.console import ConsoleProvider
from tests.conftest import make_target

from .helpers import (
    T0,
    CountingConsole,
    Driver,
    end_node,
    enroll,
    journey,
    linear_graph,
    setup_sms,
    sms_node,
)


class WorkerDied(BaseException):
    """The worker process dies: nothing after this point runs."""


def _die_after_the_provider_accepted(driver, monkeypatch) -> None:
    def die(*args, **kwargs):
        raise WorkerDied

    with monkeypatch.context() as m:
        m.setattr(sending, "settle", die)
        with pytest.raises(WorkerDied):
            driver.tick(T0 + timedelta(minutes=1))


@pytest.mark.django_db
def test_worker_dies_after_provider_accepted_never_resends(actor, workspace, monkeypatch):
    setup_sms(workspace)
    with time_machine.travel(T0, tick=False):
        campaign = journey(actor, linear_graph(sms_node("a"), sms_node("b"), end_node()))
        enroll(actor, campaign, [make_target(workspace)])

    driver = Driver()
    _die_after_the_provider_accepted(driver, monkeypatch)
    provider = CountingConsole(monkeypatch)  # counts the calls after the crash
    attempt = SmsAttempt.objects.get(campaign=campaign)
    assert attempt.status == "sending"
    execution = Execution.objects.get(campaign=campaign)
    assert execution.status == ExecutionStatus.PROCESSING
    driver.tick(T0 + timedelta(minutes=5))  # lease not expired: nothing happens
    assert provider.calls == []
    driver.tick(T0 + timedelta(minutes=15))  # reaped, claimed again: step a is asked about, not resent
    driver.tick(T0 + timedelta(minutes=16))  # step b (budget step, back through the scheduler)
    attempt.refresh_from_db()
    assert attempt.status == "submitted"  # the console answered "sent" for its local id
    assert SmsLogEvent.objects.filter(attempt=attempt, event="status_query").count() == 1
    assert provider.calls == [str(SmsAttempt.objects.exclude(pk=attempt.pk).get().local_id)]
    execution.refresh_from_db()
    assert execution.status == ExecutionStatus.COMPLETED
    assert ExecutionEvent.objects.filter(execution=execution, type=EventType.LEASE_EXPIRED).count() == 1


@pytest.mark.django_db
def test_worker_dies_after_accepted_by_a_provider_that_cannot_be_asked(actor, workspace, monkeypatch):
    monkeypatch.setattr(ConsoleProvider, "status_by_local_id", False)  # like Melipayamak
    setup_sms(workspace)
    with time_machine.travel(T0, tick=False):
        campaign = journey(actor, linear_graph(sms_node("a"), end_node()))
        enroll(actor, campaign, [make_target(workspace)])

    driver = Driver()
    _die_after_the_provider_accepted(driver, monkeypatch)
    provider = CountingConsole(monkeypatch)
    driver.tick(T0 + timedelta(minutes=15))  # reaped, claimed again: closed unknown, on_unknown_outcome decides
    attempt = SmsAttempt.objects.get(campaign=campaign)
    assert attempt.status == "unknown" and provider.calls == []  # never resent blindly
    execution = Execution.objects.get(campaign=campaign)
    assert execution.status == ExecutionStatus.COMPLETED  # on_unknown_outcome "continue"
    assert ExecutionEvent.objects.filter(execution=execution, type=EventType.UNKNOWN_OUTCOME).count() == 1


@pytest.mark.django_db
def test_unknown_outcome_hold_pauses_execution(actor, workspace, monkeypatch):
    monkeypatch.setattr(ConsoleProvider, "status_by_local_id", False)  # a provider that cannot be asked
    setup_sms(workspace)
    with time_machine.travel(T0, tick=False):
        campaign = journey(actor, linear_graph(sms_node("a", on_unknown_outcome="hold"), end_node()))
        enroll(actor, campaign, [make_target(workspace)])
    CountingConsole(monkeypatch, lambda r: SendResponse("unknown", error_code="connection_dropped"))
    Driver().tick(T0 + timedelta(minutes=1))
    execution = Execution.objects.get(campaign=campaign)
    assert execution.status == ExecutionStatus.PAUSED
    assert SmsAttempt.objects.get(campaign=campaign).status == "unknown"


@pytest.mark.django_db
@pytest.mark.parametrize("durable_stamp", [True, False], ids=["durable stamp", "stamp without WAL flush"])
def test_same_job_delivered_twice_sends_once(actor, workspace, monkeypatch, settings, durable_stamp):
    settings.SMS_STAMP_DURABLE = durable_stamp
    setup_sms(workspace)
    provider = CountingConsole(monkeypatch)
    with time_machine.travel(T0, tick=False):
        campaign = journey(actor, linear_graph(sms_node("a"), end_node()))
        enroll(actor, campaign, [make_target(workspace) for _ in range(3)])
    driver = Driver()
    _, batch = driver.tick(T0 + timedelta(minutes=1), process=False)
    first = process_batch(batch, now=T0 + timedelta(minutes=1))
    second = process_batch(batch, now=T0 + timedelta(minutes=1))
    assert first == {"complete": 3}
    assert second == {"stale": 3}
    assert len(provider.calls) == 3
    assert SmsAttempt.objects.filter(campaign=campaign).count() == 3


@pytest.mark.django_db
def test_credit_exhausted_opens_circuit_without_retry_or_attempts(actor, workspace, monkeypatch):
    setup_sms(workspace)
    outage = {"on": True}
    provider = CountingConsole(
        monkeypatch,
        lambda r: SendResponse("unavailable", error_code="418", error_message="credit") if outage["on"] else None,
    )
    retry = {"enabled": True, "strategy": "fixed", "max_attempts": 2, "interval_seconds": 900, "on_exhausted": "fail"}
    with time_machine.travel(T0, tick=False):
        campaign = journey(actor, linear_graph(sms_node("a", retry=retry), end_node()))
        enroll(actor, campaign, [make_target(workspace) for _ in range(3)])
    driver = Driver()
    _, batch = driver.tick(T0 + timedelta(minutes=1), process=False)
    process_execution(*batch[0], now=T0 + timedelta(minutes=1))  # the first send learns the outage
    settings = SmsSettings.objects.get(workspace=workspace)
    assert settings.paused_until == T0 + timedelta(minutes=31)
    assert settings.outage_notified_at is not None
    # the owner hears about it once
    told = Notification.objects.filter(kind="channel_outage")  # (the campaign's start is told too)
    assert list(told.values_list("recipient_id", "kind")) == [(actor.user.id, "channel_outage")]
    process_batch(batch[1:], now=T0 + timedelta(minutes=1))  # the others are deferred by the first guard
    assert SmsAttempt.objects.filter(campaign=campaign).count() == 1
    for minutes in (5, 10, 20):
        driver.tick(T0 + timedelta(minutes=minutes))
    assert SmsAttempt.objects.filter(campaign=campaign).count() == 1  # no attempt rows during the outage
    assert set(Execution.objects.filter(campaign=campaign).values_list("retry_count", flat=True)) == {0}
    assert len(provider.calls) == 1
    outage["on"] = False
    driver.tick(T0 + timedelta(minutes=32))  # probe + the rest
    assert SmsAttempt.objects.filter(campaign=campaign, status="submitted").count() == 3
    settings.refresh_from_db()
    assert settings.paused_until is None


@pytest.mark.django_db
def test_retry_exhausted_takes_failure_edge(actor, workspace, monkeypatch):
    setup_sms(workspace)
    CountingConsole(monkeypatch, lambda r: SendResponse("failed", error_code="500") if r.text == "اول" else None)
    retry = {
        "enabled": True,
        "strategy": "exponential",
        "max_attempts": 2,
        "interval_seconds": 60,
        "on_exhausted": "fail",
    }
    graph = {
        "nodes": [
            {"node_key": "start", "type": "start", "subtype": "manual", "config": {}},
            sms_node("a", body="اول", retry=retry),
            sms_node("fallback", body="جایگزین"),
            end_node("e1"),
            end_node("e2"),
        ],
        "edges": [
            {"from": "start", "to": "a", "port": "default"},
            {"from": "a", "to": "e1", "port": "success"},
            {"from": "a", "to": "fallback", "port": "failure"},
            {"from": "fallback", "to": "e2", "port": "default"},
        ],
        "settings": {},
    }
    with time_machine.travel(T0, tick=False):
        campaign = journey(actor, graph)
        enroll(actor, campaign, [make_target(workspace)])
    driver = Driver()
    for minutes in (1, 2, 3, 4, 5, 6, 7, 8):
        driver.tick(T0 + timedelta(minutes=minutes))
    attempts = list(SmsAttempt.objects.filter(campaign=campaign).order_by("id"))
    assert [a.status for a in attempts] == ["failed", "failed", "failed", "submitted"]
    assert attempts[0].retry_scheduled_at == T0 + timedelta(minutes=2)
    assert attempts[1].retry_scheduled_at == attempts[1].request_at + timedelta(minutes=2)  # exponential
    assert Execution.objects.get(campaign=campaign).status == ExecutionStatus.COMPLETED


@pytest.mark.django_db
def test_number_changed_after_enrollment_uses_live_data(actor, workspace):
    setup_sms(workspace)
    target = make_target(workspace)
    with time_machine.travel(T0, tick=False):
        campaign = journey(actor, linear_graph(sms_node("a"), end_node()))
        enroll(actor, campaign, [target])
    target.mobile = "+989351234567"
    target.save()
    Driver().tick(T0 + timedelta(minutes=1))
    assert SmsAttempt.objects.get(campaign=campaign).phone == "+989351234567"


@pytest.mark.django_db
def test_the_opt_out_line_is_appended_only_where_the_step_asks_for_it(actor, workspace):
    setup_sms(workspace, opt_out_text="لغو۱۱")
    with time_machine.travel(T0, tick=False):
        graph = linear_graph(
            sms_node("ad", body="تخفیف ویژه {target.first_name}", append_opt_out=True),
            sms_node("service", body="کد شما ۱۲۳۴"),
            end_node(),
        )
        campaign = journey(actor, graph)
        enroll(actor, campaign, [make_target(workspace, first_name="سارا")])
    driver = Driver()
    driver.tick(T0 + timedelta(minutes=1))
    driver.tick(T0 + timedelta(minutes=2))
    bodies = [a.message for a in SmsAttempt.objects.filter(campaign=campaign).order_by("id")]
    assert bodies == ["تخفیف ویژه سارا\nلغو۱۱", "کد شما ۱۲۳۴"]  # its own line, after the rendered text

    SmsSettings.objects.filter(workspace=workspace).update(opt_out_text="")  # no opt-out text: nothing appended
    with time_machine.travel(T0, tick=False):
        enroll(actor, campaign, [make_target(workspace, first_name="نیما")])
    driver.tick(T0 + timedelta(minutes=3))
    assert SmsAttempt.objects.filter(campaign=campaign).order_by("-id").values_list("message", flat=True)[0] == (
        "تخفیف ویژه نیما"
    )
