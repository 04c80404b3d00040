"""Daily limits and send windows, with simulated time on PostgreSQL (journeys.md "Tests")."""

from collections import Counter
from datetime import datetime, timedelta

import pytest
import time_machine

from automation.choices import EventType, ExecutionStatus
from automation.engine.batch import process_batch
from automation.models import Execution, ExecutionEvent
from sms.models import SmsAttempt
from sms.providers import SendResponse
from tests.conftest import make_target

from .helpers import (
    T0,
    TEHRAN,
    WINDOW_9_18,
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
def test_500_targets_limit_100_window_retries_over_days(actor, workspace, monkeypatch):
    """Exactly 100 accepted sends a workspace day, in enrollment order, never outside 09:00–18:00."""
    setup_sms(workspace)
    failed_once: set[str] = set()

    def flaky(request):
        attempts = SmsAttempt.objects.filter(local_id=int(request.local_id))
        execution_id = attempts.values_list("execution_id", flat=True)[0]
        if execution_id % 7 == 0 and request.local_id not in failed_once:  # the first attempt fails
            failed_once.add(request.local_id)
            return SendResponse("failed", error_code="connection")
        return None

    provider = CountingConsole(monkeypatch, flaky)
    retry = {"enabled": True, "strategy": "fixed", "max_attempts": 3, "interval_seconds": 900, "on_exhausted": "fail"}
    with time_machine.travel(T0, tick=False):
        campaign = journey(
            actor, linear_graph(sms_node("a", retry=retry), end_node()), daily_limit=100, send_window=WINDOW_9_18
        )
        targets = [make_target(workspace) for _ in range(500)]
        report = enroll(actor, campaign, targets)
    assert len(report.added) == 500
    order = list(Execution.objects.filter(campaign=campaign).order_by("id").values_list("id", flat=True))
    driver = Driver()
    now = T0
    while now < T0 + timedelta(days=6):
        now += timedelta(minutes=30)
        driver.tick(now)
    accepted = SmsAttempt.objects.filter(campaign=campaign, status="submitted")
    per_day = Counter(a.request_at.astimezone(TEHRAN).date() for a in accepted)
    assert sorted(per_day.values()) == [100, 100, 100, 100, 100]
    for attempt in SmsAttempt.objects.filter(campaign=campaign):
        local = attempt.request_at.astimezone(TEHRAN)
        assert 9 <= local.hour < 18, local
    # Fairness: first attempts follow enrollment order (the unclaimed keep their place for tomorrow).
    first_try = {}
    for a in SmsAttempt.objects.filter(campaign=campaign, attempt_number=1):
        first_try[a.execution_id] = a.request_at
    times = [first_try[i] for i in order]
    assert times == sorted(times)
    first_day = min(per_day)
    assert {i for i in order[:100]} <= {i for i, t in first_try.items() if t.astimezone(TEHRAN).date() == first_day}
    assert len(failed_once) > 0  # retries really happened
    assert SmsAttempt.objects.filter(campaign=campaign, status="failed").count() == len(failed_once)
    assert len(provider.calls) == 500 + len(failed_once)
    assert set(Execution.objects.filter(campaign=campaign).values_list("status", flat=True)) == {
        ExecutionStatus.COMPLETED
    }


@pytest.mark.django_db
def test_unclaimed_keep_next_run_and_eligible_order(actor, workspace):
    setup_sms(workspace)
    with time_machine.travel(T0, tick=False):
        campaign = journey(actor, linear_graph(sms_node("a"), end_node()), daily_limit=2, send_window=WINDOW_9_18)
        enroll(actor, campaign, [make_target(workspace) for _ in range(5)])
    eligible_before = dict(Execution.objects.filter(campaign=campaign).values_list("id", "eligible_at"))
    driver = Driver()
    driver.tick(T0 + timedelta(minutes=1))  # window closed → moved to 09:00, eligible_at kept
    opening = datetime(2026, 11, 1, 9, 0, tzinfo=TEHRAN)
    assert set(Execution.objects.filter(campaign=campaign).values_list("next_run_at", flat=True)) == {opening}
    assert dict(Execution.objects.filter(campaign=campaign).values_list("id", "eligible_at")) == eligible_before
    driver.tick(opening + timedelta(minutes=1))
    waiting = Execution.objects.filter(campaign=campaign, status=ExecutionStatus.ACTIVE)
    assert waiting.count() == 3
    assert set(waiting.values_list("next_run_at", flat=True)) == {opening}  # untouched, first tomorrow


@pytest.mark.django_db
def test_window_closes_between_claim_and_run_defers(actor, workspace, monkeypatch):
    setup_sms(workspace)
    provider = CountingConsole(monkeypatch)
    with time_machine.travel(T0, tick=False):
        campaign = journey(actor, linear_graph(sms_node("a"), end_node()), send_window=WINDOW_9_18)
        enroll(actor, campaign, [make_target(workspace)])
    claim_at = datetime(2026, 11, 1, 17, 59, tzinfo=TEHRAN)
    execution = Execution.objects.get(campaign=campaign)
    eligible = execution.eligible_at
    _, batch = Driver().tick(claim_at, process=False)
    assert len(batch) == 1
    process_batch(batch, now=claim_at + timedelta(minutes=2))  # 18:01: window closed
    execution.refresh_from_db()
    assert execution.status == ExecutionStatus.WAITING
    assert execution.next_run_at == datetime(2026, 11, 2, 9, 0, tzinfo=TEHRAN)
    assert execution.eligible_at == eligible
    assert provider.calls == []
    assert ExecutionEvent.objects.filter(execution=execution, type=EventType.DEFERRED_WINDOW).exists()


@pytest.mark.django_db
def test_workspace_global_limit_gives_back_campaign_slot(actor, workspace):
    from automation.engine.context import automation_settings
    from automation.models import DailyCounter

    setup_sms(workspace)
    with time_machine.travel(T0, tick=False):
        first = journey(actor, linear_graph(sms_node("a"), end_node()), daily_limit=10)
        second = journey(actor, linear_graph(sms_node("a"), end_node()), daily_limit=10)
        enroll(actor, first, [make_target(workspace) for _ in range(2)])
        enroll(actor, second, [make_target(workspace) for _ in range(2)])
    now = T0 + timedelta(hours=7)  # 10:30 Tehran
    _, batch = Driver().tick(now, process=False)  # all four claimed before the workspace limit is set
    assert len(batch) == 4
    settings = automation_settings(workspace)
    settings.global_daily_limit = 2
    settings.save()
    process_batch(batch, now=now)
    assert SmsAttempt.objects.filter(status="submitted").count() == 2
    used = dict(DailyCounter.objects.filter(scope="campaign").values_list("scope_id", "used"))
    assert used.get(second.id, 0) == 0  # the campaign slot was given back, nothing sent
    deferred = Execution.objects.filter(campaign=second).first()
    assert deferred.status == ExecutionStatus.WAITING
    assert deferred.next_run_at == datetime(2026, 11, 2, 0, 0, tzinfo=TEHRAN)  # tomorrow (workspace day)
    assert deferred.retry_count == 0
    assert not SmsAttempt.objects.filter(campaign=second).exists()
    # The scheduler itself leaves room only for what the workspace has left: nothing more is claimed today.
    assert Driver().tick(now + timedelta(minutes=1))[1] == []
