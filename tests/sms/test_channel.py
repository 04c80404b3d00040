"""Segments, attempts, gateway fallback, credentials at rest, end-to-end with a fake Kavenegar."""

import json
from datetime import UTC, datetime, timedelta

import pytest
import time_machine
from django.db import connection

from automation.models import Execution
from automation.services.enrollment import enroll_subjects
from sms.models import ImmutableError, SmsAttempt, SmsProviderAccount
from sms.providers.melipayamak import MelipayamakProvider
from sms.segments import count_segments
from tests.automation.helpers import Driver, end_node, journey, linear_graph, setup_sms, sms_node
from tests.conftest import make_target

from .fake_provider import FakeProvider

T0 = datetime(2026, 11, 1, 7, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("text", "encoding", "segments"),
    [
        ("a" * 160, "GSM-7", 1),
        ("a" * 161, "GSM-7", 2),
        ("a" * 306, "GSM-7", 2),
        ("a" * 307, "GSM-7", 3),
        ("{" * 80, "GSM-7", 1),
        ("{" * 81, "GSM-7", 2),
        ("€" + "a" * 152, "GSM-7", 1),
        ("س" * 70, "UCS-2", 1),
        ("س" * 71, "UCS-2", 2),
        ("a" * 69 + "؟", "UCS-2", 1),
        ("😀" * 35, "UCS-2", 1),
        ("😀" * 36, "UCS-2", 2),
        ("", "GSM-7", 0),
    ],
)
def test_segment_counter(text, encoding, segments):
    info = count_segments(text)
    assert (info.encoding, info.segments) == (encoding, segments)


def test_ucs2_astral_chars_are_not_split():
    # 70 units fit one part; past 70 the parts hold 67 units and an emoji never straddles two parts.
    assert count_segments("a" * 68 + "😀").segments == 1  # 70 units exactly
    info = count_segments("ب" * 66 + "😀" + "ب" * 10)  # the emoji would straddle 67: moves to part 2
    assert info.units == 78 and info.segments == 2


@pytest.mark.django_db
def test_credentials_are_encrypted_at_rest(workspace):
    account = SmsProviderAccount.objects.create(
        workspace=workspace, name="k", provider="kavenegar", credentials=json.dumps({"api_key": "SECRET-KEY"})
    )
    with connection.cursor() as cursor:
        cursor.execute("SELECT credentials FROM sms_smsprovideraccount WHERE id = %s", [account.id])
        raw = cursor.fetchone()[0]
    assert "SECRET-KEY" not in raw
    assert json.loads(SmsProviderAccount.objects.get(pk=account.pk).credentials)["api_key"] == "SECRET-KEY"


@pytest.fixture
def kavenegar(settings):
    server = FakeProvider()
    settings.SMS_PROVIDER_BASE_URLS = {"kavenegar": server.url, "melipayamak": server.url}
    settings.SMS_HTTP_TIMEOUT = 0.5
    yield server
    server.close()


@pytest.mark.django_db
def test_journey_through_fake_kavenegar_records_attempt_once(actor, workspace, kavenegar):
    setup_sms(workspace, "kavenegar", {"api_key": "K"}, senders=("10004346",))
    kavenegar.responses.append((200, {"return": {"status": 200}, "entries": [{"messageid": 777, "status": 1}]}))
    with time_machine.travel(T0, tick=False):
        campaign = journey(actor, linear_graph(sms_node("a", body="سلام {first_name|دوست}"), end_node()))
        enroll_subjects(actor=actor, campaign_id=campaign.id, target_ids=[make_target(workspace).id])
    Driver().tick(T0 + timedelta(minutes=1))
    attempt = SmsAttempt.objects.get(campaign=campaign)
    assert (attempt.status, attempt.provider, attempt.sender, attempt.provider_message_id) == (
        "submitted",
        "kavenegar",
        "10004346",
        "777",
    )
    assert kavenegar.requests[0]["form"]["localid"] == str(attempt.local_id)  # digits only (the send slot)
    assert attempt.segments == 1
    attempt.status = "delivered"
    with pytest.raises(ImmutableError):
        attempt.save()
    with pytest.raises(ImmutableError):
        attempt.delete()


def _journey_failing_over(actor, workspace, kavenegar):
    """A one-SMS journey for one target: Kavenegar (primary) answers "out of credit", Melipayamak (fallback,
    line 5000) accepts as message 99887766."""
    settings = setup_sms(workspace, "kavenegar", {"api_key": "K"})
    settings.fallback_account = SmsProviderAccount.objects.create(
        workspace=workspace,
        name="mp",
        provider="melipayamak",
        credentials=json.dumps({"username": "u", "password": "p"}),
        senders=["5000"],
    )
    settings.save()
    kavenegar.responses.append((418, {"return": {"status": 418, "message": "credit"}}))
    kavenegar.responses.append((200, {"Value": "99887766", "RetStatus": 1, "StrRetStatus": "Ok"}))
    with time_machine.travel(T0, tick=False):
        campaign = journey(actor, linear_graph(sms_node("a"), end_node()))
        enroll_subjects(actor=actor, campaign_id=campaign.id, target_ids=[make_target(workspace).id])
    return campaign


@pytest.mark.django_db
def test_fallback_provider_is_logged_as_the_one_used(actor, workspace, kavenegar):
    campaign = _journey_failing_over(actor, workspace, kavenegar)
    Driver().tick(T0 + timedelta(minutes=1))
    attempt = SmsAttempt.objects.get(campaign=campaign)
    assert (attempt.status, attempt.provider, attempt.sender, attempt.provider_message_id) == (
        "submitted",
        "melipayamak",
        "5000",
        "99887766",
    )
    assert Execution.objects.get(campaign=campaign).status == "completed"


class Killed(BaseException):
    """The worker process dies: nothing after this point runs."""


@pytest.mark.django_db
def test_a_crash_during_the_fallback_call_is_settled_at_the_fallback(actor, workspace, kavenegar, monkeypatch):
    # Kavenegar (primary, askable) is out of credit; Melipayamak (fallback, cannot be asked) accepts and the
    # worker dies before the answer is written. The row must name Melipayamak: asking Kavenegar would hear
    # "no such message" and send the step a second time.
    campaign = _journey_failing_over(actor, workspace, kavenegar)
    real_send = MelipayamakProvider.send_batch

    def send_then_die(*args, **kwargs):
        real_send(*args, **kwargs)
        raise Killed

    monkeypatch.setattr(MelipayamakProvider, "send_batch", send_then_die)
    driver = Driver()
    with pytest.raises(Killed):
        driver.tick(T0 + timedelta(minutes=1))
    attempt = SmsAttempt.objects.get(campaign=campaign)
    assert (attempt.status, attempt.provider, attempt.sender) == ("sending", "melipayamak", "5000")
    monkeypatch.setattr(MelipayamakProvider, "send_batch", real_send)
    for minute in (15, 16, 30):  # reaped, run again: Melipayamak cannot be asked, on_unknown_outcome decides
        driver.tick(T0 + timedelta(minutes=minute))
    attempt.refresh_from_db()
    assert attempt.status == "unknown" and SmsAttempt.objects.filter(campaign=campaign).count() == 1
    assert len(kavenegar.sends()) == 2  # the refused primary call and the fallback's: never sent again
    assert Execution.objects.get(campaign=campaign).status == "completed"


@pytest.mark.django_db
def test_rejected_number_follows_on_exhausted_without_retry(actor, workspace, kavenegar):
    setup_sms(workspace, "kavenegar", {"api_key": "K"})
    kavenegar.responses.append((411, {"return": {"status": 411, "message": "receptor"}}))
    retry = {"enabled": True, "strategy": "fixed", "max_attempts": 3, "interval_seconds": 900, "on_exhausted": "stop"}
    with time_machine.travel(T0, tick=False):
        campaign = journey(actor, linear_graph(sms_node("a", retry=retry), end_node()))
        enroll_subjects(actor=actor, campaign_id=campaign.id, target_ids=[make_target(workspace).id])
    Driver().tick(T0 + timedelta(minutes=1))
    execution = Execution.objects.get(campaign=campaign)
    assert (execution.status, execution.end_reason) == ("completed", "retries_exhausted")
    assert SmsAttempt.objects.get(campaign=campaign).status == "rejected"
    assert len(kavenegar.requests) == 1
