"""Duplicate and lost SMS (sms-providers.md "Mapping to our results", journeys.md "Leases"): unknown
outcomes are settled by a status query by local id, never resent blindly; a dead or stopped job loses
nothing. Real HTTP against a fake Kavenegar on loopback, PostgreSQL."""

from collections import Counter
from datetime import UTC, datetime, timedelta

import pytest
import time_machine
from celery.exceptions import SoftTimeLimitExceeded
from django.db import connection

from automation.choices import ExecutionStatus
from automation.engine.batch import process_batch
from automation.engine.scheduler import reap_expired_leases
from automation.models import DailyCounter, Execution
from automation.services.enrollment import enroll_subjects
from sms import channel
from sms.models import SmsAttempt, SmsLogEvent
from tests.automation.helpers import Driver, end_node, journey, linear_graph, setup_sms, sms_node
from tests.conftest import api_client_for, make_target

from .fake_provider import FakeProvider

T0 = datetime(2026, 11, 1, 7, 0, tzinfo=UTC)
RETRY = {"enabled": True, "strategy": "fixed", "max_attempts": 3, "interval_seconds": 900, "on_exhausted": "fail"}

pytestmark = pytest.mark.django_db


@pytest.fixture
def kavenegar(settings):
    server = FakeProvider(hold_seconds=1.0)
    settings.SMS_PROVIDER_BASE_URLS = {"kavenegar": server.url, "melipayamak": server.url}
    settings.SMS_HTTP_TIMEOUT = 0.4
    settings.SMS_UNKNOWN_SETTLE_SECONDS = 120
    yield server
    server.close()


def _journey(actor, workspace, count=1, provider="kavenegar", credentials=None, **node_config):
    setup_sms(workspace, provider, credentials or {"api_key": "K"})
    with time_machine.travel(T0, tick=False):
        campaign = journey(actor, linear_graph(sms_node("a", retry=RETRY, **node_config), end_node()))
        targets = [make_target(workspace) for _ in range(count)]
        enroll_subjects(actor=actor, campaign_id=campaign.id, target_ids=[t.id for t in targets])
    return campaign


def test_accepted_then_read_timeout_is_settled_as_exactly_one_message(actor, workspace, kavenegar):
    campaign = _journey(actor, workspace)
    kavenegar.responses.append("accept_timeout")
    driver = Driver()
    driver.tick(T0 + timedelta(minutes=1))
    attempt = SmsAttempt.objects.get(campaign=campaign)
    assert attempt.status == "unknown" and attempt.error_code == "timeout"  # not failed: the bytes left
    assert attempt.retry_scheduled_at is None
    execution = Execution.objects.get(campaign=campaign)
    assert execution.status == ExecutionStatus.WAITING and execution.retry_count == 0
    for minute in (2, 4, 6, 20, 40):  # the status query answers "sent": settled, never resent
        driver.tick(T0 + timedelta(minutes=minute))
    attempt.refresh_from_db()
    execution.refresh_from_db()
    assert (attempt.status, attempt.provider_message_id) == ("submitted", "8000000")
    assert execution.status == ExecutionStatus.COMPLETED
    assert len(kavenegar.messages) == 1 and len(kavenegar.sends()) == 1
    assert [q["form"]["localid"] for q in kavenegar.queries()] == [str(attempt.local_id)]
    assert SmsAttempt.objects.filter(campaign=campaign).count() == 1
    assert SmsLogEvent.objects.get(attempt=attempt, event="status_query").provider_status == "sent"


def test_read_timeout_maps_to_unknown_and_connect_error_to_failed(actor, workspace, kavenegar, settings):
    from sms.providers import SendRequest
    from sms.providers.kavenegar import KavenegarProvider

    request = SendRequest(phone="+989121234567", text="x", sender="3000", local_id="7")
    kavenegar.responses.append("timeout")
    assert KavenegarProvider().send({"api_key": "K"}, request).status == "unknown"
    settings.SMS_PROVIDER_BASE_URLS = {"kavenegar": "http://127.0.0.1:9"}  # refused: nothing left
    assert KavenegarProvider().send({"api_key": "K"}, request).status == "failed"


def test_local_id_is_the_same_on_every_retry_and_a_not_sent_answer_allows_one_resend(actor, workspace, kavenegar):
    campaign = _journey(actor, workspace)
    kavenegar.responses += [(402, {"return": {"status": 402, "message": "failed"}}), "timeout"]
    driver = Driver()
    driver.tick(T0 + timedelta(minutes=1))  # provider refused (402) → failed, retry in 15 min
    driver.tick(T0 + timedelta(minutes=17))  # retry: read timeout → unknown
    driver.tick(T0 + timedelta(minutes=20))  # status query: no such message (it asks, never sends)
    driver.tick(T0 + timedelta(minutes=21))  # the resend is budgeted like any send: same local id
    attempts = list(SmsAttempt.objects.filter(campaign=campaign).order_by("attempt_number"))
    assert [a.status for a in attempts] == ["failed", "failed", "submitted"]
    assert attempts[1].error_code == "not_sent"
    assert len({a.local_id for a in attempts}) == 1
    sent_ids = {r["form"]["localid"] for r in kavenegar.sends()}
    assert sent_ids == {str(attempts[0].local_id)} and len(kavenegar.sends()) == 3
    assert len(kavenegar.messages) == 1
    assert Execution.objects.get(campaign=campaign).status == ExecutionStatus.COMPLETED
    assert DailyCounter.objects.get(scope="campaign", scope_id=campaign.id).used == 1


@pytest.mark.parametrize("choice", ["skip", "resend"])
def test_resume_after_unknown_hold_offers_skip_and_resend(actor, owner, workspace, kavenegar, choice):
    # Melipayamak has no status query by local id: the step's on_unknown_outcome (hold) decides.
    campaign = _journey(
        actor,
        workspace,
        provider="melipayamak",
        credentials={"username": "u", "password": "p"},
        on_unknown_outcome="hold",
    )
    kavenegar.responses += ["drop", (200, {"Value": "5550001", "RetStatus": 1, "StrRetStatus": "Ok"})]
    driver = Driver()
    driver.tick(T0 + timedelta(minutes=1))
    execution = Execution.objects.get(campaign=campaign)
    assert execution.status == ExecutionStatus.PAUSED
    first = SmsAttempt.objects.get(campaign=campaign)
    assert first.status == "unknown"
    client = api_client_for(owner, workspace)
    body = {} if choice == "skip" else {"unknown_outcome": "resend"}  # skip is the default
    with time_machine.travel(T0 + timedelta(minutes=2), tick=False):
        response = client.post(f"/api/v1/executions/{execution.id}/resume", body, format="json")
    assert response.status_code == 200, response.json()
    driver.tick(T0 + timedelta(minutes=3))
    execution.refresh_from_db()
    assert execution.status == ExecutionStatus.COMPLETED
    attempts = list(SmsAttempt.objects.filter(campaign=campaign).order_by("id"))
    if choice == "skip":
        assert [a.status for a in attempts] == ["unknown"] and len(kavenegar.sends()) == 1
    else:
        assert [a.status for a in attempts] == ["failed", "submitted"]
        assert attempts[0].error_code == "resend_chosen"
        assert attempts[1].local_id == attempts[0].local_id


def test_resend_refused_for_an_execution_not_held_after_unknown(actor, owner, workspace, kavenegar):
    campaign = _journey(actor, workspace)
    execution = Execution.objects.get(campaign=campaign)
    client = api_client_for(owner, workspace)
    assert client.post(f"/api/v1/executions/{execution.id}/pause", {}, format="json").status_code == 200
    response = client.post(f"/api/v1/executions/{execution.id}/resume", {"unknown_outcome": "resend"}, format="json")
    assert response.status_code == 400
    assert "unknown_outcome" in response.json()["error"]["details"]


class Killed(BaseException):
    """The worker process dies (SIGKILL): nothing after this point runs."""


def _kill_after_first_call(monkeypatch):
    """Make the job die right after the provider answered its first (batched) call; returns the real
    send function."""
    real_send = channel.send_batch_through_gateway

    def send(*args, **kwargs):
        real_send(*args, **kwargs)
        raise Killed  # the provider accepted the whole call; nothing of its answer is written

    monkeypatch.setattr(channel, "send_batch_through_gateway", send)
    return real_send


def test_batch_killed_after_the_provider_accepted_it_is_settled_with_one_status_request(
    actor, workspace, kavenegar, monkeypatch
):
    # Kavenegar can be asked by local id: the batch's attempts are written ``sending`` (no per-send stamp) and
    # go in one ``sms/send`` call. The worker dies right after the provider accepted all five: one status
    # request by local id settles the five, nothing is sent again.
    if connection.vendor != "postgresql":
        pytest.skip("the batched job runs on PostgreSQL")
    campaign = _journey(actor, workspace, count=5)
    real_send = _kill_after_first_call(monkeypatch)
    driver = Driver()
    with pytest.raises(Killed):
        driver.tick(T0 + timedelta(minutes=1))
    statuses = Counter(SmsAttempt.objects.filter(campaign=campaign).values_list("status", flat=True))
    assert statuses == {"sending": 5}
    assert len(kavenegar.messages) == 5 and len(kavenegar.sends()) == 1  # one call for the five
    monkeypatch.setattr(channel, "send_batch_through_gateway", real_send)
    for minute in (5, 12, 13, 16, 30):  # lease expires (10 min from processing start), reaped, run again
        driver.tick(T0 + timedelta(minutes=minute))
    attempts = SmsAttempt.objects.filter(campaign=campaign)
    assert Counter(attempts.values_list("status", flat=True)) == {"submitted": 5}
    assert len(kavenegar.messages) == 5 and len(kavenegar.sends()) == 1  # 0 duplicates, 0 lost
    queries = kavenegar.queries()
    assert len(queries) == 1  # the five asked about in one request
    assert sorted(queries[0]["form"]["localid"].split(",")) == sorted(
        str(i) for i in attempts.values_list("local_id", flat=True)
    )
    assert set(Execution.objects.filter(campaign=campaign).values_list("status", flat=True)) == {"completed"}
    assert DailyCounter.objects.get(scope="campaign", scope_id=campaign.id).used == 5


def test_batch_killed_after_its_first_call_requeues_the_calls_never_made(actor, workspace, kavenegar, monkeypatch):
    # Melipayamak cannot be asked by local id: each call's attempts are stamped ``sending`` just before it.
    # With two numbers per call, five targets take three calls; the job dies after the first.
    if connection.vendor != "postgresql":
        pytest.skip("the batched job runs on PostgreSQL")
    from sms.providers.melipayamak import MelipayamakProvider

    monkeypatch.setattr(MelipayamakProvider, "batch_size", 2)
    campaign = _journey(
        actor, workspace, count=5, provider="melipayamak", credentials={"username": "u", "password": "p"}
    )
    real_send = _kill_after_first_call(monkeypatch)
    driver = Driver()
    with pytest.raises(Killed):
        driver.tick(T0 + timedelta(minutes=1))
    statuses = Counter(SmsAttempt.objects.filter(campaign=campaign).values_list("status", flat=True))
    assert statuses == {"queued": 3, "sending": 2}  # never called ≠ unknown
    assert len(kavenegar.sent_rows()) == 2
    monkeypatch.setattr(channel, "send_batch_through_gateway", real_send)
    for minute in (5, 12, 13, 16, 30):
        driver.tick(T0 + timedelta(minutes=minute))
    attempts = SmsAttempt.objects.filter(campaign=campaign)
    # The two called are unknown (on_unknown_outcome "continue" moves on); the three never called went once.
    assert Counter(attempts.values_list("status", flat=True)) == {"unknown": 2, "submitted": 3}
    assert len(kavenegar.sent_rows()) == 5  # 0 duplicates, 0 lost
    assert set(Execution.objects.filter(campaign=campaign).values_list("status", flat=True)) == {"completed"}


@pytest.mark.parametrize("count", [1, 3])
def test_soft_time_limit_inside_the_provider_call_propagates(actor, workspace, kavenegar, monkeypatch, count):
    campaign = _journey(actor, workspace, count=count)

    def send(*args, **kwargs):
        raise SoftTimeLimitExceeded

    monkeypatch.setattr(channel, "send_batch_through_gateway", send)
    driver = Driver()
    _, batch = driver.tick(T0 + timedelta(minutes=1), process=False)
    with pytest.raises(SoftTimeLimitExceeded):
        process_batch(batch, now=T0 + timedelta(minutes=1))
    executions = Execution.objects.filter(campaign=campaign)
    statuses = set(executions.values_list("status", flat=True))
    # no step_error: the interrupted rows stay processing (rows the job never reached stay queued)
    assert ExecutionStatus.PROCESSING in statuses
    assert statuses <= {ExecutionStatus.PROCESSING, ExecutionStatus.QUEUED}
    if connection.vendor == "postgresql":
        assert statuses == {ExecutionStatus.PROCESSING}  # the batched job had started every row
    assert not any(executions.values_list("last_error", flat=True))
    assert "sending" in set(SmsAttempt.objects.filter(campaign=campaign).values_list("status", flat=True))


def test_lease_starts_at_processing_and_the_reaper_spares_a_live_job(
    actor, workspace, kavenegar, monkeypatch, settings
):
    settings.AUTOMATION_LEASE_HEARTBEAT_SECONDS = 0  # beat before every call
    campaign = _journey(actor, workspace)
    driver = Driver()
    _, batch = driver.tick(T0 + timedelta(minutes=1), process=False)  # claimed at T0+1
    start = T0 + timedelta(minutes=9)  # the batch waited 8 minutes in the broker
    reaped = []
    real_send = channel.send_batch_through_gateway

    def send(*args, **kwargs):
        # While this job is inside its provider call, a tick 15 minutes after the claim runs the reaper.
        reaped.append(reap_expired_leases(T0 + timedelta(minutes=16)))
        return real_send(*args, **kwargs)

    monkeypatch.setattr(channel, "send_batch_through_gateway", send)
    assert process_batch(batch, now=start) == {"complete": 1}
    assert reaped == [0]
    assert len(kavenegar.messages) == 1
    assert Execution.objects.get(campaign=campaign).status == ExecutionStatus.COMPLETED


# --- settling is not sending: neither the daily limit nor a closed window holds it until the next opening ----
def _limited_journey(actor, workspace, count: int, **campaign_fields):
    setup_sms(workspace, "kavenegar", {"api_key": "K"})
    with time_machine.travel(T0, tick=False):
        graph = linear_graph(sms_node("a", retry=RETRY), end_node())
        campaign = journey(actor, graph, **campaign_fields)
        targets = [make_target(workspace) for _ in range(count)]
        enroll_subjects(actor=actor, campaign_id=campaign.id, target_ids=[t.id for t in targets])
    return campaign


def test_an_unknown_send_on_the_days_last_unit_is_settled_the_same_day(actor, workspace, kavenegar):
    # The unknown attempt keeps its unit, so the campaign's budget is used up; the status query sends nothing.
    campaign = _limited_journey(actor, workspace, 2, daily_limit=1)
    kavenegar.responses.append("accept_timeout")
    driver = Driver()
    driver.tick(T0 + timedelta(minutes=1))
    attempt = SmsAttempt.objects.get(campaign=campaign)
    assert attempt.status == "unknown"
    driver.tick(T0 + timedelta(minutes=4))
    driver.tick(T0 + timedelta(minutes=5))
    attempt.refresh_from_db()
    assert attempt.status == "submitted"  # not "unknown until tomorrow"
    assert len(kavenegar.messages) == 1 and len(kavenegar.sends()) == 1  # the other target waits for tomorrow
    assert Counter(Execution.objects.filter(campaign=campaign).values_list("status", flat=True)) == {
        "completed": 1,
        "active": 1,  # not claimed: no budget left today
    }
    assert DailyCounter.objects.get(scope="campaign", scope_id=campaign.id).used == 1


def test_an_unknown_send_just_before_the_window_closes_is_settled_while_it_is_closed(actor, workspace, kavenegar):
    from tests.automation.helpers import WINDOW_9_18

    campaign = _limited_journey(actor, workspace, 1, send_window=WINDOW_9_18)
    kavenegar.responses.append("accept_timeout")
    driver = Driver()
    before_close = datetime(2026, 11, 1, 14, 29, tzinfo=UTC)  # 17:59 Tehran
    driver.tick(before_close)
    attempt = SmsAttempt.objects.get(campaign=campaign)
    assert attempt.status == "unknown"
    driver.tick(before_close + timedelta(minutes=4))  # 18:03 Tehran: closed until 09:00 tomorrow
    driver.tick(before_close + timedelta(minutes=5))
    attempt.refresh_from_db()
    assert attempt.status == "submitted"
    assert Execution.objects.get(campaign=campaign).status == ExecutionStatus.COMPLETED
    assert len(kavenegar.sends()) == 1


def test_a_job_killed_after_the_send_on_the_days_last_unit_is_settled_after_its_lease(
    actor, workspace, kavenegar, monkeypatch
):
    campaign = _limited_journey(actor, workspace, 2, daily_limit=1)
    real_send = channel.send_batch_through_gateway

    def send(*args, **kwargs):
        real_send(*args, **kwargs)
        raise Killed  # the provider accepted; the worker dies before it records anything

    monkeypatch.setattr(channel, "send_batch_through_gateway", send)
    driver = Driver()
    with pytest.raises(Killed):
        driver.tick(T0 + timedelta(minutes=1))
    monkeypatch.setattr(channel, "send_batch_through_gateway", real_send)
    for minute in (12, 13, 16, 20):  # the lease (10 min) runs out, the reaper brings it back
        driver.tick(T0 + timedelta(minutes=minute))
    attempt = SmsAttempt.objects.get(campaign=campaign)
    assert attempt.status == "submitted"
    assert len(kavenegar.messages) == 1 and len(kavenegar.sends()) == 1
    assert Counter(Execution.objects.filter(campaign=campaign).values_list("status", flat=True)) == {
        "completed": 1,
        "active": 1,  # not claimed: no budget left today
    }


def test_a_request_that_lands_after_it_was_settled_not_sent_never_breaks_the_daily_limit(
    actor, workspace, kavenegar, monkeypatch
):
    """A process paused while writing its request (a VM stall; the chaos run's SIGSTOP) outlives its lease:
    the step is taken over, its attempt closed unknown and the provider — asked — has no such message. The
    request is still on its way and lands later. The unit of that attempt is kept (on its request day), so
    another step cannot take it meanwhile and the day never gets more messages than its limit; the resend
    takes a unit of its own (tomorrow here) and the provider keeps one message per local id."""
    if connection.vendor != "postgresql":
        pytest.skip("the batched job runs on PostgreSQL")
    setup_sms(workspace, "kavenegar", {"api_key": "K"})
    with time_machine.travel(T0, tick=False):
        campaign = journey(actor, linear_graph(sms_node("a", retry=RETRY), end_node()), daily_limit=1)
        first, second = make_target(workspace), make_target(workspace)
        enroll_subjects(actor=actor, campaign_id=campaign.id, target_ids=[first.id, second.id])
    on_its_way = []
    real_send = channel.send_batch_through_gateway

    def paused(*args, **kwargs):
        on_its_way.append((args, kwargs))
        raise Killed  # the job goes no further; its request has not reached the provider yet

    monkeypatch.setattr(channel, "send_batch_through_gateway", paused)
    driver = Driver()
    with pytest.raises(Killed):
        driver.tick(T0 + timedelta(minutes=1))
    monkeypatch.setattr(channel, "send_batch_through_gateway", real_send)
    for minute in (5, 12, 13, 16, 17, 18, 20, 30, 40, 60):  # reaped, taken over, asked: "no such message"
        driver.tick(T0 + timedelta(minutes=minute))
    late = SmsAttempt.objects.get(campaign=campaign, subject_id=first.id, attempt_number=1)
    assert (late.status, late.error_code) == ("failed", "not_sent")
    args, kwargs = on_its_way[0]
    with time_machine.travel(T0 + timedelta(minutes=61), tick=False):
        real_send(*args, **kwargs)  # the paused process goes on: its request lands
    assert len(kavenegar.messages) == 1  # today: the limit, not one more
    for day in (1, 2):  # the resend (the same local id: no second message) and the other person, a day each
        for minute in (0, 1, 5, 10, 30):
            driver.tick(T0 + timedelta(days=day, minutes=minute))
    assert len(kavenegar.messages) == 2  # one message per person
    sends = Counter(r["form"]["localid"] for r in kavenegar.sends())
    assert sends[str(late.local_id)] == 2  # the late request and the resend: one message
    assert set(Execution.objects.filter(campaign=campaign).values_list("status", flat=True)) == {"completed"}
    used = dict(DailyCounter.objects.filter(scope="campaign", scope_id=campaign.id).values_list("day", "used"))
    assert max(used.values()) == 1  # never beyond the limit
    # The unit the settled attempt kept went back once its step's message was at the provider.
    assert SmsLogEvent.objects.filter(attempt=late, event="unit_given_back").count() == 1
