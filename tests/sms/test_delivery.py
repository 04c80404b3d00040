"""Delivery status by polling and per-account rate limits (real HTTP against the fake providers on loopback).

Polling: accepted attempts go submitted → sent → delivered / failed from the providers' own answers,
each provider status is recorded once, a late report adds history only. Rate limits: a burst beyond an
account's limit is deferred — no attempt kept, no retry, no budget unit — and sent on later ticks.
"""

import threading
from datetime import UTC, datetime, timedelta

import pytest
import time_machine
from django.db import connection

from automation.choices import ExecutionStatus
from automation.models import DailyCounter, Execution
from automation.services.enrollment import enroll_subjects
from sms import rate_limits
from sms.delivery import delivery_poll
from sms.models import SmsAttempt, SmsLogEvent, SmsProviderAccount
from sms.services import delivery_reports_apply
from tests.automation.helpers import Driver, end_node, journey, linear_graph, setup_sms, sms_node
from tests.conftest import make_actor, make_target, make_workspace

from .fake_provider import FakeProvider

T0 = datetime(2026, 11, 1, 7, 0, tzinfo=UTC)
RETRY = {"enabled": True, "strategy": "fixed", "max_attempts": 3, "interval_seconds": 900, "on_exhausted": "fail"}
KAVENEGAR = ("kavenegar", {"api_key": "K"})
MELIPAYAMAK = ("melipayamak", {"username": "u", "password": "p"})

pytestmark = pytest.mark.django_db


@pytest.fixture
def fake(settings):
    server = FakeProvider(hold_seconds=1.0)
    settings.SMS_PROVIDER_BASE_URLS = {"kavenegar": server.url, "melipayamak": server.url}
    settings.SMS_HTTP_TIMEOUT = 0.4
    settings.SMS_RATE_LIMIT_MAX_WAIT_SECONDS = 0  # defer at once (no sleeping in tests)
    rate_limits.reset()
    yield server
    rate_limits.reset()
    server.close()


@pytest.fixture
def clock(monkeypatch):
    """The rate limiter's clock, moved by the test (a burst happens at one instant)."""
    now = {"t": 1_000_000.0}
    monkeypatch.setattr(rate_limits, "clock", lambda: now["t"])
    return now


def _journey(actor, workspace, provider=KAVENEGAR, count=1, **account_fields):
    settings = setup_sms(workspace, provider[0], provider[1])
    if account_fields:
        SmsProviderAccount.objects.filter(pk=settings.primary_account_id).update(**account_fields)
    with time_machine.travel(T0, tick=False):
        campaign = journey(actor, linear_graph(sms_node("a", retry=RETRY), end_node()))
        targets = [make_target(workspace) for _ in range(count)]
        enroll_subjects(actor=actor, campaign_id=campaign.id, target_ids=[t.id for t in targets])
    return campaign


def _events(attempt):
    return list(
        SmsLogEvent.objects.filter(attempt=attempt, event="delivery_status")
        .order_by("id")
        .values_list("provider_status", flat=True)
    )


# --- delivery polling ----------------------------------------------------------------------------------
def test_kavenegar_attempt_goes_submitted_sent_delivered_by_polling(actor, workspace, fake):
    campaign = _journey(actor, workspace)
    Driver().tick(T0 + timedelta(minutes=1))
    attempt = SmsAttempt.objects.get(campaign=campaign)
    assert attempt.status == "submitted" and attempt.provider_message_id == "8000000"
    fake.set_status(attempt.provider_message_id, 4)  # sent to the centre
    assert delivery_poll(now=T0 + timedelta(minutes=10))["moved"] == 1
    attempt.refresh_from_db()
    assert attempt.status == "sent"
    fake.set_status(attempt.provider_message_id, 10)  # delivered
    assert delivery_poll(now=T0 + timedelta(minutes=20))["moved"] == 1
    attempt.refresh_from_db()
    assert attempt.status == "delivered"
    assert _events(attempt) == ["4", "10"]
    assert [r["form"] for r in fake.status_requests()] == [{"messageid": "8000000"}] * 2
    delivery_poll(now=T0 + timedelta(minutes=30))  # final: never asked again
    assert len(fake.status_requests()) == 2
    assert Execution.objects.get(campaign=campaign).status == ExecutionStatus.COMPLETED  # the path never changed


def test_kavenegar_delivery_is_polled_500_message_ids_a_request(actor, workspace, fake):
    campaign = _journey(actor, workspace)
    Driver().tick(T0 + timedelta(minutes=1))
    attempt = SmsAttempt.objects.get(campaign=campaign)
    fields = {f.attname: getattr(attempt, f.attname) for f in SmsAttempt._meta.concrete_fields if not f.primary_key}
    SmsAttempt.objects.bulk_create(
        [
            SmsAttempt(**(fields | {"idempotency_key": f"copy:{i}", "provider_message_id": str(8_100_000 + i)}))
            for i in range(649)
        ]
    )  # 650 accepted sends awaiting their reports
    fake.set_status(attempt.provider_message_id, 4)
    report = delivery_poll(now=T0 + timedelta(minutes=10))
    assert report["asked"] == 650 and report["moved"] == 1
    sizes = [len(r["form"]["messageid"].split(",")) for r in fake.status_requests()]
    assert sizes == [500, 150]  # sms/status takes at most 500 ids: two requests, not 650
    assert fake.status_requests()[0]["form"]["messageid"].split(",")[0] == attempt.provider_message_id
    attempt.refresh_from_db()
    assert attempt.status == "sent"


def test_melipayamak_attempt_goes_submitted_failed_by_polling(actor, workspace, fake):
    campaign = _journey(actor, workspace, provider=MELIPAYAMAK)
    Driver().tick(T0 + timedelta(minutes=1))
    attempt = SmsAttempt.objects.get(campaign=campaign)
    assert attempt.status == "submitted" and attempt.provider_message_id == "5000000"
    delivery_poll(now=T0 + timedelta(minutes=10))  # 400 "in send list": history, no move
    attempt.refresh_from_db()
    assert attempt.status == "submitted" and _events(attempt) == ["400"]
    fake.set_status(attempt.provider_message_id, 2)  # not delivered
    delivery_poll(now=T0 + timedelta(minutes=20))
    attempt.refresh_from_db()
    assert attempt.status == "failed" and _events(attempt) == ["400", "2"]
    assert fake.status_requests()[-1]["form"] == {"username": "u", "password": "p", "recId": "5000000"}


def test_an_attempt_accepted_without_a_message_id_is_polled_by_its_local_id(actor, workspace, fake):
    campaign = _journey(actor, workspace)
    fake.responses.append((200, {"return": {"status": 200, "message": "ok"}, "entries": []}))
    Driver().tick(T0 + timedelta(minutes=1))
    attempt = SmsAttempt.objects.get(campaign=campaign)
    assert attempt.status == "submitted" and attempt.provider_message_id == ""
    fake.messages[str(attempt.local_id)] = {"messageid": 777, "localid": str(attempt.local_id), "status": 10}
    delivery_poll(now=T0 + timedelta(minutes=10))
    attempt.refresh_from_db()
    assert attempt.status == "delivered"
    assert fake.requests[-1]["path"].endswith("/sms/statuslocalmessageid.json")


def test_a_repeated_answer_is_recorded_once(actor, workspace, fake):
    campaign = _journey(actor, workspace)
    Driver().tick(T0 + timedelta(minutes=1))
    attempt = SmsAttempt.objects.get(campaign=campaign)
    fake.set_status(attempt.provider_message_id, 5)
    for minute in (10, 20, 30):
        delivery_poll(now=T0 + timedelta(minutes=minute))
    attempt.refresh_from_db()
    assert attempt.status == "sent" and _events(attempt) == ["5"]
    assert len(fake.status_requests()) == 3
    report = {"message_id": attempt.provider_message_id, "status": "delivered", "at": "2026-11-01T07:30:00Z"}
    settings = attempt.workspace.sms_settings
    delivery_reports_apply(settings=settings, reports=[report, report], opt_outs=[])
    delivery_reports_apply(settings=settings, reports=[report], opt_outs=[])
    assert SmsLogEvent.objects.filter(attempt=attempt, event="delivery_report").count() == 1


def test_a_late_report_adds_history_only(actor, workspace, fake):
    campaign = _journey(actor, workspace)
    Driver().tick(T0 + timedelta(minutes=1))
    attempt = SmsAttempt.objects.get(campaign=campaign)
    fake.set_status(attempt.provider_message_id, 10)
    delivery_poll(now=T0 + timedelta(minutes=10))
    attempt.refresh_from_db()
    assert attempt.status == "delivered"
    late = [
        {"message_id": attempt.provider_message_id, "status": "sent", "at": "1"},
        {"message_id": attempt.provider_message_id, "status": "failed", "at": "2"},
    ]
    delivery_reports_apply(settings=attempt.workspace.sms_settings, reports=late, opt_outs=[])
    attempt.refresh_from_db()
    assert attempt.status == "delivered"  # forward-only: a final status never moves
    assert SmsLogEvent.objects.filter(attempt=attempt, event="delivery_report").count() == 2  # history kept


def test_two_polls_never_ask_about_the_same_attempt(actor, workspace, fake):
    _journey(actor, workspace, count=3)
    Driver().tick(T0 + timedelta(minutes=1))
    first = delivery_poll(now=T0 + timedelta(minutes=10), batch=2)
    second = delivery_poll(now=T0 + timedelta(minutes=10, seconds=1), batch=2)
    third = delivery_poll(now=T0 + timedelta(minutes=10, seconds=2), batch=2)
    assert (first["asked"], second["asked"], third["asked"]) == (2, 1, 0)


def test_a_flooding_workspace_does_not_delay_another_workspace_reports(actor, workspace, fake):
    """The poll's batch is shared fairly: the quiet workspace's attempts are asked about in the first poll."""
    quiet = make_workspace("quiet")
    _journey(actor, workspace, count=6)
    Driver().tick(T0 + timedelta(minutes=1))  # the flood's attempts first (lower ids) ...
    _journey(make_actor(quiet), quiet, count=2)
    Driver().tick(T0 + timedelta(minutes=2))  # ... then the quiet workspace's two
    asked_at = T0 + timedelta(minutes=10)
    assert delivery_poll(now=asked_at, batch=4)["asked"] == 4
    asked = SmsAttempt.objects.filter(status_checked_at=asked_at)
    assert (asked.filter(workspace=workspace).count(), asked.filter(workspace=quiet).count()) == (2, 2)


# --- rate limits ---------------------------------------------------------------------------------------
def test_a_burst_beyond_the_rate_limit_is_deferred_without_a_retry_or_a_budget_unit(actor, workspace, fake, clock):
    if connection.vendor != "postgresql":
        pytest.skip("the batched job runs on PostgreSQL")
    campaign = _journey(actor, workspace, count=4, max_messages_per_minute=4)  # one message every 15 s
    driver = Driver()
    driver.tick(T0 + timedelta(minutes=1))
    assert len(fake.sends()) == 1 and len(fake.sent_rows()) == 1  # the bucket holds one second's worth: one
    attempts = SmsAttempt.objects.filter(campaign=campaign)
    assert list(attempts.values_list("status", flat=True)) == ["submitted"]  # no row for the rest
    executions = Execution.objects.filter(campaign=campaign)
    waiting = executions.filter(status=ExecutionStatus.WAITING)
    assert waiting.count() == 3
    assert set(executions.values_list("retry_count", flat=True)) == {0}
    for ex in waiting:  # shortly: when the bucket holds the next message, not the retry interval
        assert ex.next_run_at <= T0 + timedelta(minutes=1, seconds=15)
    assert DailyCounter.objects.get(scope="campaign", scope_id=campaign.id).used == 1
    for minute in range(2, 5):
        clock["t"] += 15  # 15 s later the bucket holds one message again
        driver.tick(T0 + timedelta(minutes=minute))
    assert len(fake.sent_rows()) == 4 and len(fake.messages) == 4
    assert set(executions.values_list("status", flat=True)) == {ExecutionStatus.COMPLETED}
    assert set(executions.values_list("retry_count", flat=True)) == {0}
    assert DailyCounter.objects.get(scope="campaign", scope_id=campaign.id).used == 4
    assert sorted(set(SmsAttempt.objects.filter(campaign=campaign).values_list("attempt_number", flat=True))) == [1]


def test_requests_per_second_limit_the_single_step_path_too(actor, workspace, fake, clock):
    campaign = _journey(actor, workspace, count=1, max_requests_per_second=1)
    account = SmsProviderAccount.objects.get(workspace=workspace)
    assert rate_limits.take(account) == 0  # another call of this account used this second's request
    Driver().tick(T0 + timedelta(minutes=1))
    execution = Execution.objects.get(campaign=campaign)
    assert execution.status == ExecutionStatus.WAITING and execution.retry_count == 0
    assert fake.sends() == [] and not SmsAttempt.objects.filter(campaign=campaign).exists()
    assert not DailyCounter.objects.filter(scope="campaign", scope_id=campaign.id, used__gt=0).exists()
    clock["t"] += 1
    Driver().tick(T0 + timedelta(minutes=2))
    execution.refresh_from_db()
    assert execution.status == ExecutionStatus.COMPLETED and len(fake.sends()) == 1


@pytest.mark.parametrize("backend", ["redis", "local"])
def test_token_bucket_under_a_concurrent_burst(workspace, settings, backend, clock):
    if backend == "redis" and not settings.REDIS_URL:
        pytest.skip("REDIS_URL not set")
    if backend == "local":
        settings.REDIS_URL = ""
    account = SmsProviderAccount.objects.create(
        workspace=workspace, name="k", provider="kavenegar", max_requests_per_second=5, max_messages_per_minute=480
    )  # 5 requests and 8 message parts a second; the buckets hold half a second's worth
    rate_limits.reset(account)
    granted = []
    barrier = threading.Barrier(20)

    def call(messages):
        barrier.wait()
        granted.append(rate_limits.take(account, requests=1, messages=messages) == 0)

    threads = [threading.Thread(target=call, args=(1,)) for _ in range(20)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert granted.count(True) == 2  # the requests/s bucket: two (of 2.5) at one instant
    clock["t"] += 1  # a second later: 2.5 requests, 4 parts — two 2-part calls
    assert [rate_limits.take(account, requests=1, messages=2) == 0 for _ in range(3)] == [True, True, False]
    wait = rate_limits.take(account, requests=1, messages=2)
    assert wait == pytest.approx(2 / 8)  # the next two parts of the messages bucket (a request is there first)
    clock["t"] += wait
    assert rate_limits.take(account, requests=1, messages=2) == 0
    rate_limits.reset(account)


# --- each provider's status window ---------------------------------------------------------------------
def test_kavenegar_is_polled_for_48_hours_then_an_unreported_send_ends_sent(actor, workspace, fake):
    """Kavenegar's sms/status answers for 48 hours: an attempt still intermediate is asked at 47 h, not at 49 h,
    and ends ``sent`` (counted as sent, never guessed failed) with the closing kept in its history."""
    from sms.action import SendSmsAction

    campaign = _journey(actor, workspace)
    Driver().tick(T0 + timedelta(minutes=1))
    attempt = SmsAttempt.objects.get(campaign=campaign)
    fake.set_status(attempt.provider_message_id, 1)  # queued: intermediate
    assert delivery_poll(now=T0 + timedelta(hours=47))["asked"] == 1
    attempt.refresh_from_db()
    assert attempt.status == "submitted"
    with time_machine.travel(T0 + timedelta(hours=47), tick=False):
        assert SendSmsAction().pending_reports([attempt.execution_id]) == 1
    asked = len(fake.status_requests())
    report = delivery_poll(now=T0 + timedelta(hours=49))
    assert (report["asked"], report["closed"]) == (0, 1)
    assert len(fake.status_requests()) == asked  # past the window: not asked
    attempt.refresh_from_db()
    assert attempt.status == "sent"
    closing = SmsLogEvent.objects.get(attempt=attempt, event="report_window_closed")
    assert closing.payload == {"hours": 48}
    with time_machine.travel(T0 + timedelta(hours=49), tick=False):
        assert SendSmsAction().pending_reports([attempt.execution_id]) == 0  # a follow-up no longer waits for it
    delivery_poll(now=T0 + timedelta(hours=50))  # closed once, never asked again
    assert SmsLogEvent.objects.filter(attempt=attempt, event="report_window_closed").count() == 1
    assert len(fake.status_requests()) == asked
    report = {"message_id": attempt.provider_message_id, "status": "delivered", "at": "late"}
    delivery_reports_apply(settings=attempt.workspace.sms_settings, reports=[report], opt_outs=[])
    attempt.refresh_from_db()
    assert attempt.status == "delivered"  # a later pushed report still moves it forward


def test_melipayamak_keeps_the_72_hour_poll(actor, workspace, fake):
    campaign = _journey(actor, workspace, provider=MELIPAYAMAK)
    Driver().tick(T0 + timedelta(minutes=1))
    attempt = SmsAttempt.objects.get(campaign=campaign)
    assert delivery_poll(now=T0 + timedelta(hours=49))["asked"] == 1  # 400 "in send list": intermediate
    assert delivery_poll(now=T0 + timedelta(hours=71))["asked"] == 1
    report = delivery_poll(now=T0 + timedelta(hours=73))
    assert (report["asked"], report["closed"]) == (0, 1)
    attempt.refresh_from_db()
    assert attempt.status == "sent"
