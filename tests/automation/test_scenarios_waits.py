"""Waits, loops and restarts, with simulated time (journeys.md "Tests")."""

from datetime import timedelta

import pytest
import time_machine

from automation.choices import EventType, ExecutionStatus
from automation.models import Execution, ExecutionEvent
from sms.models import SmsAttempt
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


@pytest.mark.django_db
def test_wait_until_in_the_past_passes_at_once(actor, workspace, monkeypatch):
    setup_sms(workspace)
    provider = CountingConsole(monkeypatch)
    until = {
        "node_key": "w",
        "type": "wait",
        "subtype": "until",
        "config": {"mode": "until", "at": "2026-10-20T09:00:00", "timezone": "Asia/Tehran"},
    }
    with time_machine.travel(T0, tick=False):
        campaign = journey(actor, linear_graph(until, sms_node("a"), end_node()))
        enroll(actor, campaign, [make_target(workspace)])
    driver = Driver()
    driver.tick(T0 + timedelta(minutes=1))
    driver.tick(T0 + timedelta(minutes=2))
    assert len(provider.calls) == 1


@pytest.mark.django_db
def test_loop_respects_delay_and_max_cycles(actor, workspace, monkeypatch):
    setup_sms(workspace)
    provider = CountingConsole(monkeypatch)
    graph = linear_graph(
        sms_node("a"), end_node("loop", "loop", to_node="a", delay={"amount": 2, "unit": "hours"}, max_cycles=3)
    )
    with time_machine.travel(T0, tick=False):
        campaign = journey(actor, graph)
        enroll(actor, campaign, [make_target(workspace)])
    driver = Driver()
    driver.tick(T0 + timedelta(minutes=1))
    execution = Execution.objects.get(campaign=campaign)
    assert execution.cycle == 2 and execution.status == ExecutionStatus.WAITING
    assert execution.next_run_at == T0 + timedelta(minutes=1, hours=2)
    driver.tick(T0 + timedelta(hours=1))  # delay not over
    assert len(provider.calls) == 1
    for hours in (3, 6, 9, 12):
        driver.tick(T0 + timedelta(hours=hours))
    execution.refresh_from_db()
    assert len(provider.calls) == 3
    assert execution.status == ExecutionStatus.COMPLETED and execution.end_reason == "max_cycles"
    assert sorted(SmsAttempt.objects.filter(campaign=campaign).values_list("cycle", flat=True)) == [1, 2, 3]


@pytest.mark.django_db
def test_restart_resets_metadata_and_respects_max_cycles(actor, workspace, monkeypatch):
    setup_sms(workspace)
    provider = CountingConsole(monkeypatch)
    graph = linear_graph(sms_node("a"), end_node("again", "restart", delay={"amount": 1, "unit": "days"}, max_cycles=2))
    with time_machine.travel(T0, tick=False):
        campaign = journey(actor, graph)
        enroll(actor, campaign, [make_target(workspace)])
    driver = Driver()
    for step in range(6):
        driver.tick(T0 + timedelta(hours=12 * step, minutes=1))
    execution = Execution.objects.get(campaign=campaign)
    execution.refresh_from_db()
    assert len(provider.calls) == 2, (
        execution.status,
        execution.next_run_at,
        list(ExecutionEvent.objects.filter(execution=execution).values_list("type", "message")),
    )
    assert execution.status == ExecutionStatus.COMPLETED and execution.cycle == 2
    assert ExecutionEvent.objects.filter(execution=execution, type=EventType.RESTARTED).count() == 1


@pytest.mark.django_db
def test_a_wait_in_weeks_sends_the_next_step_a_week_later(actor, workspace, monkeypatch):
    from .helpers import wait_node

    setup_sms(workspace)
    provider = CountingConsole(monkeypatch)
    with time_machine.travel(T0, tick=False):
        campaign = journey(actor, linear_graph(sms_node("a"), wait_node("w", 2, "weeks"), sms_node("b"), end_node()))
        enroll(actor, campaign, [make_target(workspace)])
    driver = Driver()
    driver.tick(T0 + timedelta(minutes=1))
    execution = Execution.objects.get(campaign=campaign)
    assert execution.next_run_at == T0 + timedelta(minutes=1, weeks=2)
    driver.tick(T0 + timedelta(days=13))
    assert len(provider.calls) == 1  # not before the two weeks are over
    driver.tick(T0 + timedelta(weeks=2, minutes=2))  # the wait ends…
    driver.tick(T0 + timedelta(weeks=2, minutes=3))  # …and the next step sends
    assert len(provider.calls) == 2
