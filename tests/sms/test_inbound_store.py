"""Replies are stored once, matched to the target by normalised number (unknown numbers kept), linked to the
last message sent to that number on that line, and an opt-out word — the whole reply — blacklists the number."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from campaigns.choices import Role
from campaigns.platform.errors import PermissionDenied, ValidationFailed
from sms import channel
from sms.choices import AttemptStatus, BlacklistReason, BlacklistSource, InboundOutcome
from sms.inbound.models import InboundSms
from sms.inbound.services import inbound_store, inbound_words_update
from sms.models import BlacklistEntry
from sms.services import blacklist_add
from tests.conftest import make_actor, make_campaign, make_target

from .inbound_helpers import make_account, received, sent

pytestmark = pytest.mark.django_db


def test_a_batch_is_stored_once_and_matched_by_normalised_number(workspace, other_workspace):
    account = make_account(workspace)
    target = make_target(workspace, mobile="+989121234567")
    make_target(other_workspace, mobile="+989121234567")  # the same number elsewhere is never matched
    batch = [
        received("سلام، ممنون", "۰۹۱۲ ۱۲۳ ۴۵۶۷", message_id="m1"),
        received("کی هستید؟", "00989350000000", message_id="m2"),  # nobody we know: kept, unmatched
    ]
    stored = inbound_store(account=account, messages=batch)
    assert [m.provider_message_id for m in stored] == ["m1", "m2"]
    assert inbound_store(account=account, messages=batch) == []  # polled again: nothing new
    rows = {m.provider_message_id: m for m in InboundSms.objects.filter(workspace=workspace)}
    assert len(rows) == 2 and InboundSms.objects.count() == 2
    assert (rows["m1"].number, rows["m1"].target_id) == ("+989121234567", target.id)
    assert (rows["m2"].number, rows["m2"].target_id) == ("+989350000000", None)
    assert not rows["m1"].is_read and rows["m1"].provider == "kavenegar"


def test_a_reply_is_linked_to_the_last_message_accepted_on_its_line(workspace):
    account = make_account(workspace, senders=["10004346", "20002000"])
    target = make_target(workspace)
    campaign = make_campaign(workspace)
    now = timezone.now()
    sent(target, line="10004346", at=now - timedelta(hours=3))
    last = sent(target, line="10004346", campaign=campaign, at=now - timedelta(hours=2))
    sent(target, line="20002000", at=now - timedelta(hours=1))  # another line
    sent(target, line="10004346", at=now - timedelta(minutes=30), status=AttemptStatus.REJECTED)  # never went out
    sent(target, line="10004346", at=now + timedelta(minutes=5))  # after the reply
    (message,) = inbound_store(account=account, messages=[received("باشه", target.mobile, line="10004346", at=now)])
    assert (message.attempt_id, message.campaign_id) == (last.id, campaign.id)
    (unsent,) = inbound_store(account=account, messages=[received("باشه", target.mobile, line="30003000", at=now)])
    assert unsent.attempt_id is None and unsent.target_id == target.id


@pytest.mark.parametrize("text", ["لغو", "لغو ۱۱", "لغو11", "11", "STOP", "  لغو\u200c١١ ", "لغو.", "ﻟﻐﻮ"])
def test_an_opt_out_word_blacklists_the_number_at_once_with_the_reply(workspace, text):
    account = make_account(workspace)
    target = make_target(workspace)
    (message,) = inbound_store(account=account, messages=[received(text, target.mobile)])
    assert message.outcome == InboundOutcome.OPT_OUT
    assert channel.is_blacklisted(workspace.id, target.mobile)  # what a journey's next send checks
    entry = BlacklistEntry.objects.get(workspace=workspace, value=target.mobile)
    assert (entry.reason, entry.source) == (BlacklistReason.OPT_OUT, BlacklistSource.REPLY)
    assert text.strip() in entry.description


@pytest.mark.parametrize("text", ["لغو نکنید", "لطفا لغو کنید", "11 تا بفرستید", "stop it", "لغو؟ نه"])
def test_a_word_inside_a_sentence_never_opts_out(workspace, text):
    account = make_account(workspace)
    target = make_target(workspace)
    (message,) = inbound_store(account=account, messages=[received(text, target.mobile)])
    assert message.outcome == InboundOutcome.NONE
    assert not channel.is_blacklisted(workspace.id, target.mobile)


def test_an_unknown_number_opting_out_is_blacklisted_too(workspace):
    account = make_account(workspace)
    (message,) = inbound_store(account=account, messages=[received("لغو", "09350000001")])
    assert message.target_id is None and message.outcome == InboundOutcome.OPT_OUT
    assert channel.is_blacklisted(workspace.id, "+989350000001")


def test_an_opt_in_word_lifts_a_reply_opt_out_never_a_staff_entry(workspace, actor):
    account = make_account(workspace)
    replied, listed = make_target(workspace), make_target(workspace)
    inbound_store(account=account, messages=[received("لغو", replied.mobile)])
    blacklist_add(actor=actor, number=listed.mobile)
    (lifted,) = inbound_store(account=account, messages=[received("شروع", replied.mobile)])
    (refused,) = inbound_store(account=account, messages=[received(" شروع ", listed.mobile)])
    assert (lifted.outcome, refused.outcome) == (InboundOutcome.OPT_IN, InboundOutcome.OPT_IN_REFUSED)
    assert not channel.is_blacklisted(workspace.id, replied.mobile)
    assert channel.is_blacklisted(workspace.id, listed.mobile)
    (again,) = inbound_store(account=account, messages=[received("لغو", replied.mobile)])
    assert again.outcome == InboundOutcome.OPT_OUT and channel.is_blacklisted(workspace.id, replied.mobile)


def test_the_words_are_the_workspaces_own_and_editable(workspace, actor):
    account = make_account(workspace)
    target = make_target(workspace)
    settings = inbound_words_update(actor=actor, data={"opt_out_words": ["انصراف", "لغو"], "opt_in_words": ["عضویت"]})
    assert settings.opt_out_words == ["انصراف", "لغو"]
    (message,) = inbound_store(account=account, messages=[received("stop", target.mobile)])
    assert message.outcome == InboundOutcome.NONE  # no longer one of this workspace's words
    (message,) = inbound_store(account=account, messages=[received("انصراف", target.mobile)])
    assert message.outcome == InboundOutcome.OPT_OUT
    with pytest.raises(ValidationFailed):
        inbound_words_update(actor=actor, data={"opt_in_words": ["لغو"]})  # both an opt-out and an opt-in
    with pytest.raises(ValidationFailed):
        inbound_words_update(actor=actor, data={"opt_out_words": ["  "]})
    with pytest.raises(PermissionDenied):
        inbound_words_update(actor=make_actor(workspace, Role.VIEWER), data={"opt_out_words": ["x"]})


def test_a_reply_stamped_in_whole_seconds_links_to_the_send_of_that_same_second(workspace):
    """Kavenegar's ``sms/receive`` dates a reply in unix seconds and Melipayamak's ``SendDate`` has no fraction:
    a reply stamped 10:00:00 may have come at 10:00:00.900, after a send requested at 10:00:00.600, so it links
    to it; a send of the next second does not count. A time the provider gives exactly keeps the exact rule."""
    from datetime import UTC, datetime
    from zoneinfo import ZoneInfo

    from sms.inbound.providers import kavenegar_inbox, melipayamak_inbox

    account = make_account(workspace)
    target = make_target(workspace)
    campaign = make_campaign(workspace)
    second = datetime(2026, 12, 5, 6, 30, 0, tzinfo=UTC)  # 10:00:00 in Tehran
    earlier = sent(target, at=second - timedelta(minutes=10))
    answered = sent(target, campaign=campaign, at=second + timedelta(milliseconds=600))
    sent(target, at=second + timedelta(seconds=1))  # the next second: after the reply whatever its fraction

    body = {"entries": [{"messageid": "k1", "message": "بله", "sender": target.mobile, "receptor": "10004346",
                         "date": int(second.timestamp())}]}  # fmt: skip
    (kavenegar,) = inbound_store(account=account, messages=kavenegar_inbox(body, line="10004346").messages)
    assert kavenegar.received_at == second
    assert (kavenegar.attempt_id, kavenegar.campaign_id) == (answered.id, campaign.id)

    stamp = second.astimezone(ZoneInfo("Asia/Tehran")).strftime("%Y-%m-%dT%H:%M:%S")
    row = f"<MessagesBL><MsgID>7</MsgID><Body>بله</Body><Sender>{target.mobile}</Sender>"
    row += f"<Receiver>10004346</Receiver><SendDate>{stamp}</SendDate></MessagesBL>"
    answer = melipayamak_inbox(f"<ArrayOfMessagesBL>{row}</ArrayOfMessagesBL>", cursor="")
    (melipayamak,) = inbound_store(account=make_account(workspace, provider="melipayamak"), messages=answer.messages)
    assert melipayamak.received_at == second and melipayamak.attempt_id == answered.id

    (exact,) = inbound_store(account=account, messages=[received("بله", target.mobile, at=second)])
    assert exact.attempt_id == earlier.id  # an exact time: the send 0.6 s later came after it
