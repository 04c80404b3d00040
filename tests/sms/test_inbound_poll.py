"""Replies read from the providers' fake inboxes: Kavenegar per line (unread ones), Melipayamak after a message-id
cursor, the Melipayamak push answering OK only once stored; the beat poll is fair, bounded and idempotent."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import pytest
from django.utils import timezone

from sms import channel
from sms.choices import InboundOutcome
from sms.inbound.models import InboundSms, SmsInboxCursor
from sms.inbound.poll import inbox_poll
from sms.models import SmsProviderAccount
from sms.providers.kavenegar import Fixtures as Kavenegar
from tests.conftest import make_target, make_workspace
from tests.sms.fake_provider import FakeProvider

pytestmark = pytest.mark.django_db


@pytest.fixture
def fake(settings):
    server = FakeProvider()
    settings.SMS_PROVIDER_BASE_URLS = {
        "kavenegar": server.url,
        "melipayamak": server.url,
        "melipayamak_receive": server.url,
    }
    yield server
    server.close()


def account(workspace, provider: str, senders=("10004346",)) -> SmsProviderAccount:
    credentials = {"api_key": "K"} if provider == "kavenegar" else {"username": "u", "password": "p"}
    return SmsProviderAccount.objects.create(
        workspace=workspace,
        name=provider,
        provider=provider,
        senders=list(senders),
        credentials=json.dumps(credentials),
    )


def test_kavenegar_is_read_per_line_and_each_reply_stored_once(fake, workspace):
    acme = account(workspace, "kavenegar", senders=["10004346", "20002000"])
    target = make_target(workspace, mobile="+989121234567")
    fake.reply("09121234567", "لغو۱۱", line="10004346")
    fake.reply("09350000000", "سلام", line="20002000")
    report = inbox_poll()
    assert (report["read"], report["stored"]) == (2, 2)
    asked = sorted((r["form"]["linenumber"], r["form"]["isread"]) for r in fake.inbox_requests())
    assert asked == [("10004346", "0"), ("20002000", "0")]
    opt_out = InboundSms.objects.get(number="+989121234567")
    assert (opt_out.target_id, opt_out.line, opt_out.account_id) == (target.id, "10004346", acme.id)
    assert opt_out.outcome == InboundOutcome.OPT_OUT and channel.is_blacklisted(workspace.id, target.mobile)
    assert InboundSms.objects.get(number="+989350000000").target_id is None  # unknown: kept
    # Read again before the interval: not due. After it: nothing unread any more.
    assert inbox_poll()["read"] == 0
    assert inbox_poll(now=timezone.now() + timedelta(minutes=2))["stored"] == 0
    # The provider handing a message over twice still stores it once.
    fake.inbox_responses.append(
        Kavenegar.ok([Kavenegar.inbox_entry(7_000_000, "09121234567", "10004346", "لغو۱۱", 1_790_000_000)])
    )
    inbox_poll(now=timezone.now() + timedelta(minutes=4))
    assert InboundSms.objects.count() == 2


def test_melipayamak_is_read_after_its_cursor(fake, workspace):
    meli = account(workspace, "melipayamak", senders=["50001000"])
    first = [fake.reply(f"0912000000{i}", f"پاسخ {i}", line="50001000") for i in range(3)]
    assert inbox_poll()["stored"] == 3
    cursor = SmsInboxCursor.objects.get(account=meli)
    assert (cursor.line, cursor.cursor) == ("", str(max(first)))
    latest = fake.reply("09120000009", "باز هم", line="50001000")
    report = inbox_poll(now=timezone.now() + timedelta(minutes=2))
    assert report["stored"] == 1 and fake.inbox_requests()[-1]["form"]["msgId"] == str(max(first))
    assert SmsInboxCursor.objects.get(account=meli).cursor == str(latest)
    stored = InboundSms.objects.get(provider_message_id=str(latest))
    assert stored.text == "باز هم"
    assert stored.received_at == datetime(2026, 12, 4, 18, 20, tzinfo=UTC)  # the panel's Tehran time
    # A cursor set back reads everything again and stores nothing twice.
    SmsInboxCursor.objects.filter(account=meli).update(cursor="")
    assert inbox_poll(now=timezone.now() + timedelta(minutes=4))["stored"] == 0
    assert InboundSms.objects.filter(account=meli).count() == 4


def test_an_unusable_answer_stores_nothing_and_keeps_the_cursor(fake, workspace):
    meli = account(workspace, "melipayamak")
    fake.reply("09120000001", "سلام")
    fake.inbox_responses.append((500, "<html>gateway</html>"))
    assert inbox_poll()["failed"] == 1
    assert not InboundSms.objects.exists() and SmsInboxCursor.objects.get(account=meli).cursor == ""
    assert inbox_poll(now=timezone.now() + timedelta(minutes=2))["stored"] == 1


def test_the_poll_is_bounded_and_shared_fairly_between_workspaces(fake):
    busy, quiet = make_workspace("busy"), make_workspace("quiet")
    account(busy, "kavenegar", senders=[f"1000{i}" for i in range(6)])
    account(quiet, "kavenegar", senders=["20000"])
    now = timezone.now()
    first = inbox_poll(now=now, batch=2)
    assert first["read"] == 2
    read = {(c.workspace_id) for c in SmsInboxCursor.objects.filter(polled_at=now)}
    assert read == {busy.id, quiet.id}  # the quiet workspace's one line is read in the first run
    assert inbox_poll(now=now, batch=10)["read"] == 5  # the rest, each once
    assert inbox_poll(now=now, batch=10)["read"] == 0


def test_a_pushed_reply_is_answered_ok_only_once_stored(fake, client, workspace):
    meli = account(workspace, "melipayamak", senders=["50001000"])
    target = make_target(workspace, mobile="+989121234567")
    url = f"/api/webhooks/sms/inbound/{meli.id}/{meli.inbound_token}"
    params = {"from": "09121234567", "to": "50001000", "body": "لغو ۱۱"}
    response = client.get(url, params)
    assert (response.status_code, response.content) == (200, b"OK")
    message = InboundSms.objects.get()
    assert (message.target_id, message.outcome) == (target.id, InboundOutcome.OPT_OUT)
    assert client.get(url, params).content == b"OK" and InboundSms.objects.count() == 1  # a repeated push
    for bad in (f"/api/webhooks/sms/inbound/{meli.id}/wrong", f"/api/webhooks/sms/inbound/999999/{meli.inbound_token}"):
        refused = client.get(bad, params)
        assert refused.status_code == 404 and refused.content != b"OK"
    assert client.get(url, {"to": "50001000", "body": "x"}).status_code == 404  # no sender: never OK
    # An account that pushes is no longer polled (a reply would come twice).
    meli.refresh_from_db()
    assert meli.inbound_push
    fake.reply("09121234567", "سلام", line="50001000")
    assert inbox_poll()["read"] == 0 and fake.inbox_requests() == []


def test_a_push_for_a_provider_without_a_push_format_is_refused(client, workspace):
    kave = account(workspace, "kavenegar")
    response = client.get(f"/api/webhooks/sms/inbound/{kave.id}/{kave.inbound_token}", {"from": "09121234567"})
    assert response.status_code == 404 and not InboundSms.objects.exists()


def test_a_melipayamak_inbox_row_whose_id_is_not_ascii_digits_is_skipped():
    # «²» passes str.isdigit() but not int(): the row used to stop the account's poll with a ValueError
    from sms.inbound.providers import melipayamak_inbox

    rows = "".join(
        f"<MessagesBL><MsgID>{i}</MsgID><Body>x</Body><Sender>09121234567</Sender><Receiver>1000</Receiver>"
        "<SendDate>2026-12-05T10:00:00</SendDate></MessagesBL>"
        for i in ("²", "9" * 5000, "41")
    )
    answer = melipayamak_inbox(f"<ArrayOfMessagesBL>{rows}</ArrayOfMessagesBL>", cursor="²")
    assert [m.provider_message_id for m in answer.messages] == ["41"] and answer.cursor == "41"
