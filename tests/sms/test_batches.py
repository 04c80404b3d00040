"""Batched sends (docs/sms.md "Batched sends"): many receptors per provider call with a result per receptor,
kept-alive connections that keep "surely not sent" apart from "maybe sent", one rate limit shared by every
worker at batch scale, and the provider's "too many requests" answers backing the account off without a
target failed or dropped. Real HTTP against the local fake providers."""

import json
import threading
import time
from collections import Counter
from datetime import UTC, datetime, timedelta
from types import SimpleNamespace

import pytest
import time_machine
from django.db import connection

from automation.choices import ExecutionStatus
from automation.models import DailyCounter, Execution
from automation.services.enrollment import enroll_subjects
from campaigns.models import Notification
from sms import rate_limits
from sms.channel import CREDIT_EXHAUSTED, BatchItem, send_batch_through_gateway
from sms.credit import credit_read
from sms.models import SmsAttempt, SmsProviderAccount, SmsSettings
from sms.providers import SendRequest
from sms.providers.base import POOL
from sms.providers.kavenegar import Fixtures as Kavenegar
from sms.providers.kavenegar import KavenegarProvider
from sms.providers.melipayamak import Fixtures as Melipayamak
from sms.providers.melipayamak import MelipayamakProvider
from tests.automation.helpers import Driver, end_node, journey, linear_graph, setup_sms, sms_node
from tests.conftest import make_target

from .fake_provider import Bucket as FakeBucket
from .fake_provider import FakeProvider

T0 = datetime(2026, 11, 1, 7, 0, tzinfo=UTC)
KEY = {"api_key": "K"}
MELI = {"username": "u", "password": "p"}
PERSIAN_3_PARTS = "سلام " * 30  # 150 UCS-2 units: three parts


def _requests(count: int, text="سلام", start: int = 1) -> list[SendRequest]:
    return [
        SendRequest(
            phone=f"+98912{i:07d}", text=text if isinstance(text, str) else text(i), sender="3000", local_id=str(i)
        )
        for i in range(start, start + count)
    ]


@pytest.fixture
def fake(settings):
    POOL.clear()
    server = FakeProvider(hold_seconds=2.5)
    settings.SMS_PROVIDER_BASE_URLS = {"kavenegar": server.url, "melipayamak": server.url}
    settings.SMS_HTTP_TIMEOUT = 2.0  # a shared CI box can be slow; lost answers are held longer than this
    settings.SMS_RATE_LIMIT_MAX_WAIT_SECONDS = 0  # defer at once (no sleeping in tests)
    rate_limits.reset()
    yield server
    rate_limits.reset()
    server.close()
    POOL.clear()


@pytest.fixture
def clock(monkeypatch):
    now = {"t": 1_000_000.0}
    monkeypatch.setattr(rate_limits, "clock", lambda: now["t"])
    return now


# --- the providers' batch calls --------------------------------------------------------------------------
def test_kavenegar_sends_one_text_to_200_receptors_per_call_with_a_local_id_each(fake):
    answers = KavenegarProvider().send_batch(KEY, _requests(250))
    sends = fake.sends()
    assert [r["path"] for r in sends] == ["/v1/K/sms/send.json"] * 2
    first = sends[0]["form"]
    assert (
        first["receptor"].split(",")[:2] == ["09120000001", "09120000002"] and len(first["receptor"].split(",")) == 200
    )
    assert first["localid"].split(",") == [str(i) for i in range(1, 201)]  # same order as the receptors
    assert len(sends[1]["form"]["localid"].split(",")) == 50
    assert [a.status for a in answers] == ["submitted"] * 250
    assert len({a.message_id for a in answers}) == 250  # each receptor's own entry
    assert answers[0].message_id == str(fake.messages["1"]["messageid"])


def test_kavenegar_sends_different_texts_in_one_sendarray_call_with_per_entry_results(fake):
    requests = _requests(3, text=lambda i: f"سلام {i}")
    entries = [
        Kavenegar.entry(9001, 1, local_id="1", receptor="09120000001"),
        Kavenegar.entry(9002, 14, local_id="2", receptor="09120000002"),  # filtered for this number
        Kavenegar.entry(9003, 5, local_id="3", receptor="09120000003"),
    ]
    fake.responses.append(Kavenegar.ok(entries))
    answers = KavenegarProvider().send_batch(KEY, requests)
    (sent,) = fake.sends()
    assert sent["path"] == "/v1/K/sms/sendarray.json"
    assert json.loads(sent["form"]["receptor"]) == ["09120000001", "09120000002", "09120000003"]
    assert json.loads(sent["form"]["message"]) == ["سلام 1", "سلام 2", "سلام 3"]
    assert json.loads(sent["form"]["sender"]) == ["3000"] * 3
    assert json.loads(sent["form"]["localmessageids"]) == ["1", "2", "3"]
    assert [(a.status, a.message_id) for a in answers] == [
        ("submitted", "9001"),
        ("rejected", "9002"),
        ("submitted", "9003"),
    ]
    assert answers[1].error_code == "entry_14"


def test_kavenegar_refusal_of_the_whole_call_answers_every_receptor(fake):
    fake.responses.append(Kavenegar.error(418))
    answers = KavenegarProvider().send_batch(KEY, _requests(3))
    assert [a.status for a in answers] == ["unavailable"] * 3 and len(fake.sends()) == 1


def test_kavenegar_lost_answer_of_a_batch_leaves_each_receptor_unknown(fake):
    fake.responses.append("accept_timeout")
    answers = KavenegarProvider().send_batch(KEY, _requests(3))
    assert [a.status for a in answers] == ["unknown"] * 3  # accepted, answer lost: asked by local id
    found = KavenegarProvider().query_status(KEY, local_ids=["1", "2", "3"])
    assert {k: v.state for k, v in found.items()} == {"1": "sent", "2": "sent", "3": "sent"}
    assert len(fake.queries()) == 1  # one status request for the batch


def test_melipayamak_sends_one_text_to_100_numbers_per_call_with_a_rec_id_each(fake):
    answers = MelipayamakProvider().send_batch(MELI, _requests(150))
    sends = fake.sends()
    assert [len(r["form"]["to"].split(",")) for r in sends] == [100, 50]
    assert sends[0]["form"]["text"] == "سلام" and sends[0]["form"]["from"] == "3000"
    assert [a.status for a in answers] == ["submitted"] * 150
    rec_ids = [a.message_id for a in answers]
    assert len(set(rec_ids)) == 150 and all(f"meli-{r}" in fake.messages for r in rec_ids)
    assert fake.messages[f"meli-{rec_ids[1]}"]["receptor"] == "09120000002"  # in the numbers' order


def test_melipayamak_lost_answer_of_a_batch_leaves_each_number_unknown_and_nothing_is_sent_again(fake):
    fake.responses.append("accept_timeout")  # the provider took the call, its answer never came
    answers = MelipayamakProvider().send_batch(MELI, _requests(3))
    assert [a.status for a in answers] == ["unknown"] * 3  # maybe sent: never "failed", so never resent blindly
    assert len(fake.sends()) == 1 and len(fake.messages) == 3  # one call, each number once


# --- a journey's batch ------------------------------------------------------------------------------------
def _journey(actor, workspace, count, provider=("kavenegar", KEY), body="سلام {first_name|دوست}", **account):
    settings = setup_sms(workspace, provider[0], provider[1])
    if account:
        SmsProviderAccount.objects.filter(pk=settings.primary_account_id).update(**account)
    with time_machine.travel(T0, tick=False):
        campaign = journey(actor, linear_graph(sms_node("a", body=body), end_node()))
        enroll_subjects(
            actor=actor, campaign_id=campaign.id, target_ids=[make_target(workspace).id for _ in range(count)]
        )
    return campaign


def test_a_journeys_claimed_executions_go_in_one_call(actor, workspace, fake):
    if connection.vendor != "postgresql":
        pytest.skip("the batched job runs on PostgreSQL")
    campaign = _journey(actor, workspace, 6, body="سلام")
    Driver().tick(T0 + timedelta(minutes=1))
    assert len(fake.sends()) == 1 and len(fake.sent_rows()) == 6
    attempts = SmsAttempt.objects.filter(campaign=campaign)
    assert Counter(attempts.values_list("status", flat=True)) == {"submitted": 6}
    assert len(set(attempts.values_list("provider_message_id", flat=True))) == 6
    sent = {row["localid"]: row["receptor"] for row in fake.sent_rows()}
    assert sent == {str(a.local_id): "0" + a.phone[3:] for a in attempts}  # each local id with its own number


def test_a_journeys_claimed_executions_go_in_one_melipayamak_call_with_a_rec_id_each(actor, workspace, fake):
    if connection.vendor != "postgresql":
        pytest.skip("the batched job runs on PostgreSQL")
    campaign = _journey(actor, workspace, 6, provider=("melipayamak", MELI), body="سلام")
    Driver().tick(T0 + timedelta(minutes=1))
    (call,) = fake.sends()
    assert call["path"] == "/api/SendSMS/SendSMS" and len(call["form"]["to"].split(",")) == 6
    attempts = SmsAttempt.objects.filter(campaign=campaign)
    assert Counter(attempts.values_list("status", flat=True)) == {"submitted": 6}
    sent = {m["recId"]: m["receptor"] for m in fake.messages.values()}
    assert sent == {a.provider_message_id: "0" + a.phone[3:] for a in attempts}  # each number its own recId


def test_a_lost_melipayamak_batch_answer_leaves_every_number_unknown_never_resent_and_alarmed(actor, workspace, fake):
    """Melipayamak cannot be asked by local id: a batch whose answer was lost is decided by the step's
    ``on_unknown_outcome`` (here "continue"), never sent again, and past six hours alarmed like any unknown."""
    if connection.vendor != "postgresql":
        pytest.skip("the batched job runs on PostgreSQL")
    from prometheus_client import REGISTRY

    from sms.unknown_watch import unknown_watch

    def aged() -> float:
        return REGISTRY.get_sample_value("sms_unknown_aged_total", {"provider": "melipayamak"}) or 0.0

    campaign = _journey(actor, workspace, 4, provider=("melipayamak", MELI), body="سلام")
    fake.responses.append("accept_timeout")  # the provider took the call; its answer never came
    driver = Driver()
    for minute in (1, 4, 7, 10):
        driver.tick(T0 + timedelta(minutes=minute))
    attempts = SmsAttempt.objects.filter(campaign=campaign)
    assert Counter(attempts.values_list("status", flat=True)) == {"unknown": 4}
    executions = Execution.objects.filter(campaign=campaign)
    assert set(executions.values_list("status", flat=True)) == {ExecutionStatus.COMPLETED}
    before = aged()
    unknown_watch(now=T0 + timedelta(hours=7))
    assert aged() == before + 4
    assert Notification.objects.filter(workspace=workspace, kind="sms_unknown_aged").count() == 1
    assert len(fake.sends()) == 1 and len(fake.messages) == 4  # one call, each number once, nothing resent
    assert Counter(attempts.values_list("status", flat=True)) == {"unknown": 4}


# --- kept-alive connections -------------------------------------------------------------------------------
def test_connections_are_kept_alive_and_a_closed_one_is_surely_not_sent(settings):
    POOL.clear()
    server = FakeProvider(keep_alive=0.3)
    settings.SMS_PROVIDER_BASE_URLS = {"kavenegar": server.url}
    settings.SMS_HTTP_TIMEOUT = 0.5
    try:
        provider = KavenegarProvider()
        for i in range(3):
            assert provider.send(KEY, _requests(1, start=i + 1)[0]).status == "submitted"
        assert len(server.connections) == 1  # three requests, one TCP connection
        time.sleep(0.6)  # the server closes the idle connection
        assert provider.send(KEY, _requests(1, start=10)[0]).status == "submitted"  # a fresh one, nothing lost
        assert len(server.connections) == 2 and len(server.messages) == 4
        time.sleep(0.6)
        server.close()  # the idle connection was closed and nobody listens any more
        answer = provider.send(KEY, _requests(1, start=11)[0])
        assert answer.status == "failed"  # the closed connection was seen before a byte was written
        assert answer.error_code == "connection"
    finally:
        POOL.clear()


def test_a_request_lost_on_a_kept_alive_connection_is_unknown(settings):
    POOL.clear()
    server = FakeProvider(keep_alive=5.0, hold_seconds=1.0)
    settings.SMS_PROVIDER_BASE_URLS = {"kavenegar": server.url}
    settings.SMS_HTTP_TIMEOUT = 0.5
    try:
        provider = KavenegarProvider()
        assert provider.send(KEY, _requests(1)[0]).status == "submitted"
        server.responses.append("drop")  # the reused connection is cut after the request was written
        assert provider.send(KEY, _requests(1, start=2)[0]).status == "unknown"
        assert len(server.connections) == 1
    finally:
        server.close()
        POOL.clear()


# --- the account's rate limit at batch scale ----------------------------------------------------------------
def _provider_refusals(grants: list[tuple[float, int]], rate: float) -> int:
    """How many of these calls (time, message parts) a provider counting "``rate`` a second" (a bucket holding
    one second's worth, like the fake provider's cap) would refuse."""
    tokens, at, refused = rate, None, 0
    for t, parts in sorted(grants):
        tokens = tokens if at is None else min(rate, tokens + (t - at) * rate)
        at = t
        if parts > tokens + 1e-9:
            refused += 1
        else:
            tokens -= parts
    return refused


def test_two_workers_sharing_one_account_stay_at_its_rate_and_the_provider_never_refuses(workspace, settings, clock):
    if not settings.REDIS_URL:
        pytest.skip("REDIS_URL not set")
    account = SmsProviderAccount.objects.create(
        workspace=workspace, name="k", provider="kavenegar", max_requests_per_second=50, max_messages_per_minute=600
    )  # 600 parts a minute: 10 a second
    rate_limits.reset(account)
    grants: list[tuple[float, int]] = []
    step = threading.Barrier(3)  # two workers and the clock

    def worker():
        for _ in range(600):  # 30 s in steps of 50 ms, both workers calling at every step
            step.wait()
            count, _ = rate_limits.take_batch(account, [3] * 100)  # 100 receptors of a 3-part text
            if count:
                grants.append((clock["t"], 3 * count))
            step.wait()

    threads = [threading.Thread(target=worker) for _ in range(2)]
    for t in threads:
        t.start()
    for _ in range(600):
        step.wait()
        step.wait()
        clock["t"] += 0.05
    for t in threads:
        t.join()
    parts = sum(p for _, p in grants)
    assert 0.8 * 300 <= parts <= 300 + 5  # 30 s at 10 parts a second (+ the bucket's half second)
    assert _provider_refusals(grants, 10) == 0  # never a burst the provider would refuse
    for start, _ in grants:  # over any minute, never more than the minute's limit
        assert sum(p for t, p in grants if start <= t < start + 60) <= 600
    rate_limits.reset(account)


def test_a_minute_limit_is_not_a_minutes_burst(workspace, settings, clock):
    """The account's 18,000 parts a minute are 300 a second: a full minute's worth at once would be refused by
    a provider counting per second, and so would a full second's when the calls reach it unevenly."""
    account = SmsProviderAccount.objects.create(
        workspace=workspace, name="k", provider="kavenegar", max_messages_per_minute=18_000
    )
    rate_limits.reset(account)
    assert rate_limits.take_batch(account, [1] * 200) == (150, 0.0)  # the bucket holds half a second's worth
    granted, wait = rate_limits.take_batch(account, [1] * 200)
    assert granted == 0 and wait == pytest.approx(75 / 300)  # the next call waits for half the bucket ...
    clock["t"] += wait
    assert rate_limits.take_batch(account, [1] * 200) == (75, 0.0)  # ... and goes with it, not one at a time
    clock["t"] += 60  # a quiet minute: still half a second's worth at once, not the minute's 18,000
    assert [rate_limits.take_batch(account, [1] * 200)[0] for _ in range(3)] == [150, 0, 0]
    rate_limits.reset(account)


def test_each_sender_line_has_its_own_limit_besides_the_accounts(workspace, settings, clock):
    account = SmsProviderAccount.objects.create(
        workspace=workspace,
        name="k",
        provider="kavenegar",
        senders=["3000", "2000"],
        max_messages_per_minute=1200,  # 20 a second for the account
        max_line_messages_per_second=8,  # 8 a second for each of its lines
    )
    rate_limits.reset(account)
    assert rate_limits.take_batch(account, [1] * 20, lines=["3000"] * 20) == (4, 0.0)  # the line's half second
    granted, wait = rate_limits.take_batch(account, [1] * 20, lines=["3000"] * 20)
    assert granted == 0 and wait == pytest.approx(2 / 8)  # until the line holds half its bucket again
    assert rate_limits.take_batch(account, [1] * 20, lines=["2000"] * 20) == (4, 0.0)  # the other line is free
    granted, wait = rate_limits.take_batch(account, [1] * 10, lines=[None] * 10)  # no line: the account's own
    assert granted == 0 and wait == pytest.approx(3 / 20)  # 2 of its 10 are left; it waits for 5
    clock["t"] += 1
    mixed = ["2000", "3000"] * 10
    assert rate_limits.take_batch(account, [1] * 20, lines=mixed) == (8, 0.0)  # 4 of each line, in their order
    rate_limits.reset(account)


def test_a_worker_that_lost_the_tokens_to_another_waits_again_within_its_wait(workspace, settings, clock, monkeypatch):
    settings.SMS_RATE_LIMIT_MAX_WAIT_SECONDS = 1
    account = SmsProviderAccount.objects.create(
        workspace=workspace, name="k", provider="kavenegar", max_messages_per_minute=1200
    )  # 20 a second: a bucket of 10, a waiting call goes with 5
    rate_limits.reset(account)
    assert rate_limits.take_batch(account, [1] * 10) == (10, 0.0)
    naps: list[float] = []

    def sleep(seconds):
        naps.append(seconds)
        clock["t"] += seconds
        if len(naps) == 1:  # another worker takes the refill first
            assert rate_limits.take_batch(account, [1] * 5) == (5, 0.0)

    monkeypatch.setattr(rate_limits, "time", SimpleNamespace(sleep=sleep, time=time.time))
    assert rate_limits.take_batch_or_wait(account, [1] * 10) == (5, 0.0)  # paced, not deferred
    assert naps == [pytest.approx(0.25)] * 2
    settings.SMS_RATE_LIMIT_MAX_WAIT_SECONDS = 0.3  # a second wait would not fit: deferred
    naps.clear()
    granted, wait = rate_limits.take_batch_or_wait(account, [1] * 10)
    assert granted == 0 and wait == pytest.approx(0.25) and naps == [pytest.approx(0.25)]
    rate_limits.reset(account)


def test_a_three_part_text_costs_three_of_the_accounts_messages(actor, workspace, fake, clock):
    if connection.vendor != "postgresql":
        pytest.skip("the batched job runs on PostgreSQL")
    campaign = _journey(actor, workspace, 4, body=PERSIAN_3_PARTS, max_messages_per_minute=720)  # 12 parts a second
    Driver().tick(T0 + timedelta(minutes=1))
    assert len(fake.sent_rows()) == 2  # 2 × 3 parts fill the bucket (half a second); the other two wait
    executions = Execution.objects.filter(campaign=campaign)
    assert executions.filter(status=ExecutionStatus.WAITING).count() == 2
    assert set(executions.values_list("retry_count", flat=True)) == {0}
    clock["t"] += 1
    Driver().tick(T0 + timedelta(minutes=2))
    assert len(fake.sent_rows()) == 4 and len(fake.messages) == 4  # everyone, once


def test_a_part_of_a_batch_the_limit_holds_goes_and_the_rest_follows_in_the_same_job(
    actor, workspace, fake, settings, clock, monkeypatch
):
    if connection.vendor != "postgresql":
        pytest.skip("the batched job runs on PostgreSQL")
    settings.SMS_RATE_LIMIT_MAX_WAIT_SECONDS = 1
    naps: list[float] = []

    def sleep(seconds):
        naps.append(seconds)
        clock["t"] += seconds

    monkeypatch.setattr(rate_limits, "time", SimpleNamespace(sleep=sleep, time=time.time))
    campaign = _journey(actor, workspace, 30, body="سلام", max_messages_per_minute=2400)  # 40 a second
    Driver().tick(T0 + timedelta(minutes=1))
    sizes = [len(r["form"]["receptor"].split(",")) for r in fake.sends()]
    assert sizes == [20, 10] and naps == [pytest.approx(0.25)]  # the bucket's 20, then 10 once refilled
    executions = Execution.objects.filter(campaign=campaign)
    assert set(executions.values_list("status", flat=True)) == {ExecutionStatus.COMPLETED}


@pytest.mark.parametrize(
    ("provider", "refusal"),
    [
        (("kavenegar", KEY), Kavenegar.error(414)),
        (("kavenegar", KEY), Kavenegar.error(451)),
        (("kavenegar", KEY), Kavenegar.error(409)),
        (("melipayamak", MELI), (200, {"Value": "3", "RetStatus": 3, "StrRetStatus": "limit"})),
        (("melipayamak", MELI), (200, {"Value": "4", "RetStatus": 4, "StrRetStatus": "limit"})),
    ],
)
def test_too_many_requests_backs_the_account_off_for_every_worker_and_drops_nobody(
    actor, workspace, fake, clock, provider, refusal
):
    if connection.vendor != "postgresql":
        pytest.skip("the batched job runs on PostgreSQL")
    campaign = _journey(actor, workspace, 5, provider=provider, body="سلام")
    fake.responses.append(refusal)
    driver = Driver()
    driver.tick(T0 + timedelta(minutes=1))
    executions = Execution.objects.filter(campaign=campaign)
    assert Counter(executions.values_list("status", flat=True)) == {ExecutionStatus.WAITING: 5}
    assert set(executions.values_list("retry_count", flat=True)) == {0}  # not a failure: no retry used
    assert not SmsAttempt.objects.filter(campaign=campaign).exists()  # refused rows gone, units back
    assert not DailyCounter.objects.filter(scope="campaign", scope_id=campaign.id, used__gt=0).exists()
    account = SmsProviderAccount.objects.get(workspace=workspace)
    assert rate_limits.take(account) > 0  # another worker's call of this account waits too
    clock["t"] += 10  # the back-off is over
    driver.tick(T0 + timedelta(minutes=2))
    assert set(executions.values_list("status", flat=True)) == {ExecutionStatus.COMPLETED}
    assert len(fake.sent_rows()) == 10  # five refused, five accepted: everyone messaged once
    accepted = fake.messages.values()
    assert len(accepted) == 5 and len({m["receptor"] for m in accepted}) == 5


@pytest.mark.parametrize(
    ("provider", "no_credit"),
    [
        (("kavenegar", KEY), Kavenegar.error(418)),
        (("melipayamak", MELI), (200, {"Value": "2", "RetStatus": 2, "StrRetStatus": "credit"})),
    ],
)
def test_insufficient_credit_pauses_the_sends_with_a_notice_and_resumes_when_credit_returns(
    actor, workspace, fake, provider, no_credit
):
    if connection.vendor != "postgresql":
        pytest.skip("the batched job runs on PostgreSQL")
    campaign = _journey(actor, workspace, 5, provider=provider, body="سلام")
    fake.responses.append(no_credit)
    driver = Driver()
    driver.tick(T0 + timedelta(minutes=1))
    settings = SmsSettings.objects.get(workspace=workspace)
    assert settings.paused_until == T0 + timedelta(minutes=31)  # the account's sends pause ...
    notices = Notification.objects.filter(workspace=workspace, kind="channel_outage")
    assert list(notices.values_list("recipient_id", flat=True)) == [actor.user.id]  # ... with the owner's notice
    executions = Execution.objects.filter(campaign=campaign)
    assert Counter(executions.values_list("status", flat=True)) == {ExecutionStatus.WAITING: 5}
    assert set(executions.values_list("retry_count", flat=True)) == {0}  # not a failure of the targets
    assert not DailyCounter.objects.filter(scope="campaign", scope_id=campaign.id, used__gt=0).exists()
    for minutes in (5, 15, 30):
        driver.tick(T0 + timedelta(minutes=minutes))
    assert len(fake.sends()) == 1 and fake.messages == {}  # nothing called while paused
    for minutes in (32, 33):  # credit is back: the probe, then the rest
        driver.tick(T0 + timedelta(minutes=minutes))
    settings.refresh_from_db()
    assert settings.paused_until is None
    assert set(executions.values_list("status", flat=True)) == {ExecutionStatus.COMPLETED}
    accepted = list(fake.messages.values())
    assert len(accepted) == 5 and len({m["receptor"] for m in accepted}) == 5  # everyone, once
    assert notices.count() == 1


@pytest.mark.parametrize(
    ("provider", "no_credit", "empty", "recharged"),
    [
        (("kavenegar", KEY), Kavenegar.error(418), Kavenegar.account_info(0), Kavenegar.account_info(5_000_000)),
        (
            ("melipayamak", MELI),
            (200, {"Value": "2", "RetStatus": 2, "StrRetStatus": "credit"}),
            Melipayamak.credit(0),
            Melipayamak.credit(2_000),
        ),
    ],
    ids=["kavenegar", "melipayamak"],
)
def test_sends_paused_for_credit_resume_as_soon_as_the_credit_read_sees_credit_again(
    actor, workspace, fake, provider, no_credit, empty, recharged
):
    if connection.vendor != "postgresql":
        pytest.skip("the batched job runs on PostgreSQL")
    campaign = _journey(actor, workspace, 5, provider=provider, body="سلام")
    fake.responses.append(no_credit)
    driver = Driver()
    driver.tick(T0 + timedelta(minutes=1))
    settings = SmsSettings.objects.get(workspace=workspace)
    assert (settings.paused_until, settings.pause_reason) == (T0 + timedelta(minutes=31), CREDIT_EXHAUSTED)
    notice = Notification.objects.get(workspace=workspace, kind="channel_outage")
    assert notice.recipient_id == actor.user.id
    assert notice.title == "ارسال پیامک‌ها برای اعتبار حساب متوقف شد"
    assert "هیچ پیامکی از دست نمی‌رود" in notice.body and "خودبه‌خود ادامه می‌یابند" in notice.body
    executions = Execution.objects.filter(campaign=campaign)
    assert Counter(executions.values_list("status", flat=True)) == {ExecutionStatus.WAITING: 5}
    assert set(executions.values_list("retry_count", flat=True)) == {0}  # no target failed or dropped

    fake.status_responses.append(empty)  # the credit read: still nothing
    assert credit_read(now=T0 + timedelta(minutes=15))["resumed"] == 0
    driver.tick(T0 + timedelta(minutes=16))
    assert len(fake.sends()) == 1 and fake.messages == {}  # still paused: nothing called

    fake.status_responses.append(recharged)  # recharged: the next read resumes, well before the pause's end
    assert credit_read(now=T0 + timedelta(minutes=20))["resumed"] == 1
    settings.refresh_from_db()
    assert (settings.paused_until, settings.pause_reason) == (None, "")
    driver.tick(T0 + timedelta(minutes=21))
    assert set(executions.values_list("status", flat=True)) == {ExecutionStatus.COMPLETED}
    accepted = list(fake.messages.values())
    assert len(accepted) == 5 and len({m["receptor"] for m in accepted}) == 5  # everyone, once
    assert Notification.objects.filter(workspace=workspace, kind="channel_outage").count() == 1


def test_a_pause_for_another_reason_is_not_resumed_by_credit(actor, workspace, fake):
    sms = setup_sms(workspace, "kavenegar", KEY)
    SmsSettings.objects.filter(pk=sms.pk).update(paused_until=T0 + timedelta(minutes=31), pause_reason="401")
    fake.status_responses.append(Kavenegar.account_info(5_000_000))
    assert credit_read(now=T0 + timedelta(minutes=20))["resumed"] == 0
    sms.refresh_from_db()
    assert (sms.paused_until, sms.pause_reason) == (T0 + timedelta(minutes=31), "401")


@pytest.mark.parametrize("provider", [("kavenegar", KEY), ("melipayamak", MELI)], ids=["kavenegar", "melipayamak"])
def test_two_workers_calling_one_account_at_once_are_never_refused_for_rate(workspace, fake, settings, provider):
    """Two workers send batches through one account limited to the provider's own cap (400 a second, counted
    by the fake as the provider does): their calls share one bucket, so the provider refuses none, and what the
    limit holds back is answered "limited" (deferred by the engine), never lost or sent twice."""
    if not settings.REDIS_URL:
        pytest.skip("REDIS_URL not set")
    settings.SMS_RATE_LIMIT_MAX_WAIT_SECONDS = 1
    fake.caps["messages"] = FakeBucket(400)
    sms = setup_sms(workspace, provider[0], provider[1])
    SmsProviderAccount.objects.filter(pk=sms.primary_account_id).update(max_messages_per_minute=400 * 60)
    sms = SmsSettings.objects.select_related("primary_account").get(pk=sms.pk)
    size = MelipayamakProvider.batch_size if provider[0] == "melipayamak" else KavenegarProvider.batch_size
    answers: list[str] = []
    start = threading.Barrier(2)

    def worker(first: int):
        start.wait()
        for call in range(3):
            base = first + call * size
            items = [BatchItem(f"+98912{base + i:07d}", "سلام", None, str(base + i)) for i in range(size)]
            answers.extend(r.response.status for r in send_batch_through_gateway(sms, items, provider_kind=None))

    threads = [threading.Thread(target=worker, args=(n * 10_000,)) for n in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sum(fake.refused.values()) == 0  # the provider refused nothing
    counts = Counter(answers)
    assert set(counts) <= {"submitted", "limited"} and counts["submitted"] >= 2 * size  # most of a second's worth
    receptors = Counter(m["receptor"] for m in fake.messages.values())
    assert len(receptors) == counts["submitted"] and set(receptors.values()) == {1}  # each accepted once
    assert counts["submitted"] + counts["limited"] == 2 * 3 * size  # nobody dropped: the rest is deferred
