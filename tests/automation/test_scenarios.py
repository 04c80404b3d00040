"""The seed's scenario list, with simulated time on PostgreSQL (journeys.md "Tests")."""

import threading
import zoneinfo
from collections import Counter
from datetime import UTC, datetime, timedelta

import pytest
import time_machine
from django.db import connection, connections

from automation.choices import EventType, ExecutionStatus
from automation.engine.runner import process_batch, process_execution
from automation.engine.scheduler import schedule_campaign, tick
from automation.models import CampaignJourney, Execution, ExecutionEvent
from automation.services.enrollment import enroll_subjects
from automation.services.executions import execution_control
from automation.services.workflows import workflow_graph_save, workflow_new_draft, workflow_publish
from campaigns.models import Campaign, Notification
from sms.action import SendSmsAction
from sms.models import BlacklistEntry, SmsAttempt, SmsSendSlot, SmsSettings
from sms.providers import SendResponse
from sms.providers.console import ConsoleProvider
from tests.conftest import make_target

from .helpers import WINDOW_9_18, Driver, end_node, journey, linear_graph, setup_sms, sms_node, wait_node

TEHRAN = zoneinfo.ZoneInfo("Asia/Tehran")
# Sunday 2026-11-01 06:30 Tehran (window closed).
T0 = datetime(2026, 11, 1, 3, 0, tzinfo=UTC)


def _enroll(actor, campaign, targets):
    return enroll_subjects(actor=actor, campaign_id=campaign.id, target_ids=[t.id for t in targets])


class CountingConsole:
    """Wraps the console provider: counts calls, can fail chosen local ids."""

    def __init__(self, monkeypatch, respond=None):
        self.calls: list[str] = []
        self.respond = respond
        original = ConsoleProvider.send

        def send(provider, credentials, request):
            self.calls.append(request.local_id)
            if self.respond:
                response = self.respond(request)
                if response is not None:
                    return response
            return original(provider, credentials, request)

        monkeypatch.setattr(ConsoleProvider, "send", send)


@pytest.mark.django_db
def test_500_targets_limit_100_window_retries_over_days(actor, workspace, monkeypatch):
    """Exactly 100 accepted sends a workspace day, in enrollment order, never outside 09:00–18:00."""
    setup_sms(workspace)
    failed_once: set[str] = set()

    def flaky(request):
        execution_id = SmsSendSlot.objects.get(pk=int(request.local_id)).execution_id
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
        report = _enroll(actor, campaign, targets)
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
        _enroll(actor, campaign, [make_target(workspace) for _ in range(5)])
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
def test_worker_dies_after_provider_accepted_never_resends(actor, workspace, monkeypatch):
    setup_sms(workspace)
    provider = CountingConsole(monkeypatch)
    with time_machine.travel(T0, tick=False):
        campaign = journey(actor, linear_graph(sms_node("a"), sms_node("b"), end_node()))
        _enroll(actor, campaign, [make_target(workspace)])

    class WorkerDied(BaseException):
        pass

    def die(*args, **kwargs):
        raise WorkerDied

    driver = Driver()
    monkeypatch.setattr(SendSmsAction, "_settle", die)  # dies after the provider accepted
    with pytest.raises(WorkerDied):
        driver.tick(T0 + timedelta(minutes=1))
    monkeypatch.undo()
    provider = CountingConsole(monkeypatch)
    attempt = SmsAttempt.objects.get(campaign=campaign)
    assert attempt.status == "sending"
    execution = Execution.objects.get(campaign=campaign)
    assert execution.status == ExecutionStatus.PROCESSING
    driver.tick(T0 + timedelta(minutes=5))  # lease not expired: nothing happens
    assert provider.calls == []
    driver.tick(T0 + timedelta(minutes=15))  # reaped, claimed again: step a closes as unknown, not resent
    driver.tick(T0 + timedelta(minutes=16))  # step b (budget step, back through the scheduler)
    attempt.refresh_from_db()
    assert attempt.status == "unknown"
    assert provider.calls == [str(SmsAttempt.objects.exclude(pk=attempt.pk).get().local_id)]
    execution.refresh_from_db()
    assert execution.status == ExecutionStatus.COMPLETED
    assert ExecutionEvent.objects.filter(execution=execution, type=EventType.LEASE_EXPIRED).count() == 1
    assert ExecutionEvent.objects.filter(execution=execution, type=EventType.UNKNOWN_OUTCOME).count() == 1


@pytest.mark.django_db
def test_unknown_outcome_hold_pauses_execution(actor, workspace, monkeypatch):
    setup_sms(workspace)
    with time_machine.travel(T0, tick=False):
        campaign = journey(actor, linear_graph(sms_node("a", on_unknown_outcome="hold"), end_node()))
        _enroll(actor, campaign, [make_target(workspace)])
    CountingConsole(monkeypatch, lambda r: SendResponse("unknown", error_code="connection_dropped"))
    Driver().tick(T0 + timedelta(minutes=1))
    execution = Execution.objects.get(campaign=campaign)
    assert execution.status == ExecutionStatus.PAUSED
    assert SmsAttempt.objects.get(campaign=campaign).status == "unknown"


@pytest.mark.django_db
def test_same_job_delivered_twice_sends_once(actor, workspace, monkeypatch):
    setup_sms(workspace)
    provider = CountingConsole(monkeypatch)
    with time_machine.travel(T0, tick=False):
        campaign = journey(actor, linear_graph(sms_node("a"), end_node()))
        _enroll(actor, campaign, [make_target(workspace) for _ in range(3)])
    driver = Driver()
    _, batch = driver.tick(T0 + timedelta(minutes=1), process=False)
    first = process_batch(batch, now=T0 + timedelta(minutes=1))
    second = process_batch(batch, now=T0 + timedelta(minutes=1))
    assert first == {"complete": 3}
    assert second == {"stale": 3}
    assert len(provider.calls) == 3
    assert SmsAttempt.objects.filter(campaign=campaign).count() == 3


@pytest.mark.django_db
def test_blacklisted_mid_journey_stops_and_resumes_only_by_hand(actor, workspace):
    setup_sms(workspace)
    with time_machine.travel(T0, tick=False):
        campaign = journey(actor, linear_graph(sms_node("a"), wait_node("w", 1, "days"), sms_node("b"), end_node()))
        target = make_target(workspace)
        _enroll(actor, campaign, [target])
    driver = Driver()
    driver.tick(T0 + timedelta(minutes=1))
    BlacklistEntry.objects.create(workspace=workspace, value=target.mobile, reason="opt_out", source="opt_out")
    for minutes in (1, 2, 3):
        driver.tick(T0 + timedelta(days=1, minutes=minutes))
    execution = Execution.objects.get(campaign=campaign)
    assert execution.status == ExecutionStatus.BLACKLISTED
    assert SmsAttempt.objects.filter(campaign=campaign).count() == 1
    driver.tick(T0 + timedelta(days=2))
    execution.refresh_from_db()
    assert execution.status == ExecutionStatus.BLACKLISTED  # no automatic resume
    BlacklistEntry.objects.filter(workspace=workspace).update(is_active=False)
    with time_machine.travel(T0 + timedelta(days=2, minutes=1), tick=False):
        execution_control(actor=actor, execution_id=execution.id, action="resume")
    driver.tick(T0 + timedelta(days=2, minutes=2))
    execution.refresh_from_db()
    assert execution.status == ExecutionStatus.COMPLETED
    assert SmsAttempt.objects.filter(campaign=campaign).count() == 2


@pytest.mark.django_db
def test_window_closes_between_claim_and_run_defers(actor, workspace, monkeypatch):
    setup_sms(workspace)
    provider = CountingConsole(monkeypatch)
    with time_machine.travel(T0, tick=False):
        campaign = journey(actor, linear_graph(sms_node("a"), end_node()), send_window=WINDOW_9_18)
        _enroll(actor, campaign, [make_target(workspace)])
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
def test_loop_respects_delay_and_max_cycles(actor, workspace, monkeypatch):
    setup_sms(workspace)
    provider = CountingConsole(monkeypatch)
    graph = linear_graph(
        sms_node("a"), end_node("loop", "loop", to_node="a", delay={"amount": 2, "unit": "hours"}, max_cycles=3)
    )
    with time_machine.travel(T0, tick=False):
        campaign = journey(actor, graph)
        _enroll(actor, campaign, [make_target(workspace)])
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
        _enroll(actor, campaign, [make_target(workspace)])
    driver = Driver()
    for step in range(6):
        driver.tick(T0 + timedelta(hours=12 * step, minutes=1))
    execution = Execution.objects.get(campaign=campaign)
    assert len(provider.calls) == 2
    assert execution.status == ExecutionStatus.COMPLETED and execution.cycle == 2
    assert ExecutionEvent.objects.filter(execution=execution, type=EventType.RESTARTED).count() == 1


@pytest.mark.django_db
def test_disabled_node_is_skipped_with_event(actor, workspace, monkeypatch):
    setup_sms(workspace)
    provider = CountingConsole(monkeypatch)
    disabled = sms_node("b")
    disabled["is_enabled"] = False
    with time_machine.travel(T0, tick=False):
        campaign = journey(actor, linear_graph(sms_node("a"), disabled, sms_node("c"), end_node()))
        _enroll(actor, campaign, [make_target(workspace)])
    driver = Driver()
    for minutes in (1, 2, 3):
        driver.tick(T0 + timedelta(minutes=minutes))
    execution = Execution.objects.get(campaign=campaign)
    assert execution.status == ExecutionStatus.COMPLETED
    assert len(provider.calls) == 2
    skipped = ExecutionEvent.objects.get(execution=execution, type=EventType.SKIPPED)
    assert skipped.node.node_key == "b"


@pytest.mark.django_db
def test_publishing_v2_keeps_running_executions_on_v1(actor, workspace):
    setup_sms(workspace)
    with time_machine.travel(T0, tick=False):
        campaign = journey(
            actor,
            linear_graph(
                sms_node("a", body="نسخه یک"), wait_node("w", 1, "hours"), sms_node("b", body="پایان یک"), end_node()
            ),
        )
        _enroll(actor, campaign, [make_target(workspace)])
    driver = Driver()
    driver.tick(T0 + timedelta(minutes=1))
    workflow = campaign.journey.workflow
    with time_machine.travel(T0 + timedelta(minutes=5), tick=False):
        workflow_new_draft(actor=actor, workflow_id=workflow.id)
        v2 = linear_graph(sms_node("a", body="نسخه دو"), sms_node("b", body="پایان دو"), end_node())
        workflow_graph_save(actor=actor, workflow_id=workflow.id, graph_data=v2)
        workflow_publish(actor=actor, workflow_id=workflow.id)
    for minutes in (70, 71, 72):
        driver.tick(T0 + timedelta(minutes=minutes))
    texts = list(SmsAttempt.objects.filter(campaign=campaign).order_by("id").values_list("message", flat=True))
    assert texts == ["نسخه یک", "پایان یک"]
    assert CampaignJourney.objects.get(campaign=campaign).workflow_version.version_number == 1


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
        _enroll(actor, campaign, [make_target(workspace) for _ in range(3)])
    driver = Driver()
    _, batch = driver.tick(T0 + timedelta(minutes=1), process=False)
    process_execution(*batch[0], now=T0 + timedelta(minutes=1))  # the first send learns the outage
    settings = SmsSettings.objects.get(workspace=workspace)
    assert settings.paused_until == T0 + timedelta(minutes=31)
    assert settings.outage_notified_at is not None
    # the owner hears about it once
    assert list(Notification.objects.values_list("recipient_id", "kind")) == [(actor.user.id, "channel_outage")]
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
        _enroll(actor, campaign, [make_target(workspace)])
    driver = Driver()
    for minutes in (1, 2, 3, 4, 5, 6, 7, 8):
        driver.tick(T0 + timedelta(minutes=minutes))
    attempts = list(SmsAttempt.objects.filter(campaign=campaign).order_by("id"))
    assert [a.status for a in attempts] == ["failed", "failed", "failed", "submitted"]
    assert attempts[0].retry_scheduled_at == T0 + timedelta(minutes=2)
    assert attempts[1].retry_scheduled_at == attempts[1].request_at + timedelta(minutes=2)  # exponential
    assert Execution.objects.get(campaign=campaign).status == ExecutionStatus.COMPLETED


@pytest.mark.django_db
def test_campaign_end_cancels_live_executions(actor, workspace):
    setup_sms(workspace)
    with time_machine.travel(T0, tick=False):
        campaign = journey(
            actor,
            linear_graph(sms_node("a"), wait_node("w", 5, "days"), sms_node("b"), end_node()),
            ends_at=T0 + timedelta(days=2),
        )
        _enroll(actor, campaign, [make_target(workspace) for _ in range(2)])
    driver = Driver()
    driver.tick(T0 + timedelta(minutes=1))
    driver.tick(T0 + timedelta(days=2, minutes=1))
    campaign.refresh_from_db()
    assert campaign.status == "completed"
    assert set(Execution.objects.filter(campaign=campaign).values_list("end_reason", flat=True)) == {"campaign_ended"}
    ended = Notification.objects.get(kind="campaign_ended")
    assert (ended.recipient_id, ended.link) == (actor.user.id, f"/automation/campaigns/{campaign.id}/")
    assert set(Execution.objects.filter(campaign=campaign).values_list("status", flat=True)) == {
        ExecutionStatus.CANCELLED
    }


@pytest.mark.django_db
def test_scheduled_campaign_starts_and_activates_pending(actor, workspace):
    setup_sms(workspace)
    with time_machine.travel(T0, tick=False):
        campaign = journey(actor, linear_graph(sms_node("a"), end_node()), starts_at=T0 + timedelta(hours=1))
        assert campaign.status == "scheduled"
        _enroll(actor, campaign, [make_target(workspace)])
    assert Execution.objects.get(campaign=campaign).status == ExecutionStatus.PENDING
    driver = Driver()
    driver.tick(T0 + timedelta(minutes=30))
    assert SmsAttempt.objects.count() == 0
    driver.tick(T0 + timedelta(hours=1, minutes=1))
    campaign.refresh_from_db()
    assert campaign.status == "active"
    assert Execution.objects.get(campaign=campaign).status == ExecutionStatus.COMPLETED


@pytest.mark.django_db
def test_stop_status_and_deleted_target_cancel(actor, workspace):
    from campaigns.services.targets import target_delete

    setup_sms(workspace)
    with time_machine.travel(T0, tick=False):
        campaign = journey(
            actor,
            linear_graph(sms_node("a"), wait_node("w", 1, "hours"), sms_node("b"), end_node()),
            settings={"stop_when_target_status_in": ["interested"]},
        )
        interested, deleted = make_target(workspace), make_target(workspace)
        _enroll(actor, campaign, [interested, deleted])
    driver = Driver()
    driver.tick(T0 + timedelta(minutes=1))
    interested.status = "interested"
    interested.save()
    target_delete(actor=actor, target_id=deleted.id)
    driver.tick(T0 + timedelta(hours=2))
    reasons = dict(Execution.objects.filter(campaign=campaign).values_list("subject_id", "end_reason"))
    assert reasons == {interested.id: "target_status_changed", deleted.id: "target_removed"}
    assert SmsAttempt.objects.filter(campaign=campaign).count() == 2


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
        _enroll(actor, campaign, [make_target(workspace)])
    driver = Driver()
    driver.tick(T0 + timedelta(minutes=1))
    driver.tick(T0 + timedelta(minutes=2))
    assert len(provider.calls) == 1


@pytest.mark.django_db
def test_condition_routes_on_target_status(actor, workspace):
    setup_sms(workspace)
    graph = {
        "nodes": [
            {"node_key": "start", "type": "start", "subtype": "manual", "config": {}},
            {
                "node_key": "c",
                "type": "condition",
                "subtype": "field_rules",
                "config": {
                    "logic": "any",
                    "rules": [
                        {"field": "target.status", "operator": "in", "value": ["interested"]},
                        {"field": "target.attributes.vip", "operator": "eq", "value": True},
                    ],
                },
            },
            sms_node("yes", body="بله"),
            sms_node("no", body="خیر"),
            end_node("e1"),
            end_node("e2"),
        ],
        "edges": [
            {"from": "start", "to": "c", "port": "default"},
            {"from": "c", "to": "yes", "port": "yes"},
            {"from": "c", "to": "no", "port": "no"},
            {"from": "yes", "to": "e1", "port": "default"},
            {"from": "no", "to": "e2", "port": "default"},
        ],
        "settings": {},
    }
    with time_machine.travel(T0, tick=False):
        campaign = journey(actor, graph)
        a, b, c = (
            make_target(workspace, status="interested"),
            make_target(workspace, attributes={"vip": True}),
            make_target(workspace),
        )
        _enroll(actor, campaign, [a, b, c])
    driver = Driver()
    driver.tick(T0 + timedelta(minutes=1))
    driver.tick(T0 + timedelta(minutes=2))
    texts = dict(SmsAttempt.objects.filter(campaign=campaign).values_list("subject_id", "message"))
    assert texts == {a.id: "بله", b.id: "بله", c.id: "خیر"}


@pytest.mark.django_db
def test_step_budget_limits_nodes_per_job(actor, workspace):
    """A chain of 60 conditions is walked in two jobs (≤ 50 nodes each)."""
    setup_sms(workspace)
    nodes = [
        {
            "node_key": f"c{i}",
            "type": "condition",
            "subtype": "field_rules",
            "config": {"logic": "all", "rules": [{"field": "execution.cycle", "operator": "gte", "value": 1}]},
        }
        for i in range(60)
    ]
    edges = [{"from": "start", "to": "c0", "port": "default"}]
    edges += [{"from": f"c{i}", "to": f"c{i + 1}", "port": "yes"} for i in range(59)]
    edges += [{"from": "c59", "to": "end", "port": "yes"}]
    edges += [{"from": f"c{i}", "to": "end", "port": "no"} for i in range(60)]
    nodes.append(end_node())
    graph = {
        "nodes": [{"node_key": "start", "type": "start", "subtype": "manual", "config": {}}, *nodes],
        "edges": edges,
        "settings": {},
    }
    with time_machine.travel(T0, tick=False):
        campaign = journey(actor, graph)
        _enroll(actor, campaign, [make_target(workspace)])
    driver = Driver()
    driver.tick(T0 + timedelta(minutes=1))
    execution = Execution.objects.get(campaign=campaign)
    assert execution.status == ExecutionStatus.ACTIVE
    assert execution.current_node.node_key == "c50"
    driver.tick(T0 + timedelta(minutes=2))
    execution.refresh_from_db()
    assert execution.status == ExecutionStatus.COMPLETED


# --- concurrency: real PostgreSQL transactions in threads ------------------------------------------
def _in_thread(fn, results, barrier):
    try:
        barrier.wait()
        results.append(fn())
    finally:
        connections.close_all()


@pytest.mark.django_db(transaction=True)
def test_two_ticks_at_once_claim_each_execution_once(actor, workspace):
    assert connection.vendor == "postgresql"
    setup_sms(workspace)
    with time_machine.travel(T0, tick=False):
        campaign = journey(actor, linear_graph(sms_node("a"), end_node()))
        _enroll(actor, campaign, [make_target(workspace) for _ in range(300)])
    now = T0 + timedelta(minutes=1)
    results: list = []
    barrier = threading.Barrier(2)
    fresh = Campaign.objects.select_related("workspace", "journey__workflow_version").get(pk=campaign.pk)

    def claim():
        return schedule_campaign(fresh, now, limit=200)[0]

    threads = [threading.Thread(target=_in_thread, args=(claim, results, barrier)) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    ids = [item[0] for batch in results for item in batch]
    assert len(ids) == len(set(ids)) == 300
    claimed = Counter(
        ExecutionEvent.objects.filter(campaign=campaign, type=EventType.CLAIMED).values_list("execution_id", flat=True)
    )
    assert set(claimed.values()) == {1}
    # Two whole ticks at once: the advisory lock lets one run; nothing is claimed twice.
    results.clear()
    barrier = threading.Barrier(2)
    threads = [
        threading.Thread(target=_in_thread, args=(lambda: tick(now=now, send=lambda c: None), results, barrier))
        for _ in range(2)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(results) == 2


@pytest.mark.django_db(transaction=True)
def test_duplicate_jobs_running_concurrently_send_once(actor, workspace, monkeypatch):
    setup_sms(workspace)
    provider = CountingConsole(monkeypatch)
    with time_machine.travel(T0, tick=False):
        campaign = journey(actor, linear_graph(sms_node("a"), end_node()))
        _enroll(actor, campaign, [make_target(workspace) for _ in range(20)])
    now = T0 + timedelta(minutes=1)
    batch: list = []
    tick(now=now, send=batch.extend)
    results: list = []
    barrier = threading.Barrier(2)
    threads = [
        threading.Thread(target=_in_thread, args=(lambda: process_batch(batch, now=now), results, barrier))
        for _ in range(2)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(provider.calls) == 20
    assert SmsAttempt.objects.filter(campaign=campaign).count() == 20
    totals = Counter()
    for r in results:
        totals.update(r)
    assert totals == {"complete": 20, "stale": 20}


@pytest.mark.django_db(transaction=True)
def test_daily_limit_race_never_exceeds(actor, workspace):
    from automation.engine.counters import reserve

    results: list = []
    barrier = threading.Barrier(4)
    day = T0.date()

    def grab():
        return sum(reserve(workspace.id, "campaign", 999, "sms", day, 25) for _ in range(20))

    threads = [threading.Thread(target=_in_thread, args=(grab, results, barrier)) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sum(results) == 25


@pytest.mark.django_db
def test_workspace_global_limit_gives_back_campaign_slot(actor, workspace):
    from automation.engine.context import automation_settings
    from automation.models import DailyCounter

    setup_sms(workspace)
    with time_machine.travel(T0, tick=False):
        first = journey(actor, linear_graph(sms_node("a"), end_node()), daily_limit=10)
        second = journey(actor, linear_graph(sms_node("a"), end_node()), daily_limit=10)
        _enroll(actor, first, [make_target(workspace) for _ in range(2)])
        _enroll(actor, second, [make_target(workspace) for _ in range(2)])
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


@pytest.mark.django_db
def test_number_changed_after_enrollment_uses_live_data(actor, workspace):
    setup_sms(workspace)
    target = make_target(workspace)
    with time_machine.travel(T0, tick=False):
        campaign = journey(actor, linear_graph(sms_node("a"), end_node()))
        _enroll(actor, campaign, [target])
    target.mobile = "+989351234567"
    target.save()
    Driver().tick(T0 + timedelta(minutes=1))
    assert SmsAttempt.objects.get(campaign=campaign).phone == "+989351234567"


@pytest.mark.django_db
def test_cancel_during_a_batched_step_wins_over_the_worker(actor, workspace, monkeypatch):
    """A person (or a target deletion) cancels while the worker is in the provider call: the worker's
    final write loses the race — no overwrite, no events — and nothing is sent twice."""
    from automation.engine.scheduler import cancel_live_executions

    setup_sms(workspace)
    with time_machine.travel(T0, tick=False):
        campaign = journey(actor, linear_graph(sms_node("a"), wait_node("w", 1, "hours"), sms_node("b"), end_node()))
        victim, other = make_target(workspace), make_target(workspace)
        _enroll(actor, campaign, [victim, other])

    def cancel_victim(request):
        if request.phone == victim.mobile:
            cancel_live_executions(subject=victim, reason="target_removed", now=T0)
        return None

    CountingConsole(monkeypatch, cancel_victim)
    _, batch = Driver().tick(T0 + timedelta(minutes=1), process=False)
    counts = process_batch(batch, now=T0 + timedelta(minutes=1))
    assert counts == {"wait": 1, "lost_race": 1}
    executions = {e.subject_id: e for e in Execution.objects.filter(campaign=campaign)}
    assert executions[victim.id].status == ExecutionStatus.CANCELLED
    assert executions[other.id].status == ExecutionStatus.WAITING
    victim_events = list(ExecutionEvent.objects.filter(execution=executions[victim.id]).values_list("type", flat=True))
    assert "wait_started" not in victim_events
    assert SmsAttempt.objects.filter(campaign=campaign, status="submitted").count() == 2
