"""The inbox page (unread replies, filters, mark read), the target page's thread, and the owners' batched
notifications of replies to their campaigns — without a browser (tests/pages/test_reply_pages.py drives them)."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
import time_machine
from django.utils import timezone

from campaigns.choices import Role
from campaigns.models import Notification
from sms.choices import AttemptStatus
from sms.inbound.models import InboundSms
from sms.inbound.services import inbound_store
from tests.conftest import make_campaign, make_member, make_target

from .inbound_helpers import make_account, received, sent

pytestmark = pytest.mark.django_db


@pytest.fixture
def owner_client(client, owner):
    client.force_login(owner)
    return client


def shown(response) -> str:
    assert response.status_code == 200, response.content[:300]
    return response.content.decode()


def test_the_inbox_lists_unread_replies_filtered_and_marks_them_read(owner_client, workspace, other_workspace):
    account = make_account(workspace, senders=["10004346", "20002000"])
    target = make_target(workspace, name="مریم احمدی")
    campaign = make_campaign(workspace, name="جشنواره")
    sent(target, line="10004346", campaign=campaign)
    answer, stranger, opted = inbound_store(
        account=account,
        messages=[
            received("کی تماس می‌گیرید؟", target.mobile, line="10004346"),
            received("شما؟", "09350000001", line="20002000"),
            received("لغو۱۱", make_target(workspace).mobile, line="10004346"),
        ],
    )
    inbound_store(account=make_account(other_workspace), messages=[received("غریبه", "09350000002")])
    page = shown(owner_client.get("/sms/inbox/"))
    assert "کی تماس می‌گیرید؟" in page and "شما؟" in page and "لغو۱۱" in page and "غریبه" not in page
    assert "مریم احمدی" in page and "جشنواره" in page and "ناشناس" in page and "لغو دریافت" in page
    assert "۳ پاسخ خوانده‌نشده" in page
    only = shown(owner_client.get("/sms/inbox/", {"campaign": campaign.id})).split("<tbody>")[1]
    assert "کی تماس می‌گیرید؟" in only and "شما؟" not in only
    strangers = shown(owner_client.get("/sms/inbox/", {"matched": "no"})).split("<tbody>")[1]
    assert "شما؟" in strangers and "کی تماس" not in strangers
    line = shown(owner_client.get("/sms/inbox/", {"line": "20002000"})).split("<tbody>")[1]
    assert "شما؟" in line and "لغو۱۱" not in line
    # the line filter names a line as the rows do, in Persian digits, and filters by the stored number
    assert '<option value="20002000" selected>۲۰۰۰۲۰۰۰</option>' in shown(
        owner_client.get("/sms/inbox/", {"line": "20002000"})
    )
    opt_outs = shown(owner_client.get("/sms/inbox/", {"outcome": "opt_out"})).split("<tbody>")[1]
    assert "لغو۱۱" in opt_outs and "شما؟" not in opt_outs

    back = owner_client.post("/sms/inbox/read/", {"one": answer.id, "matched": "yes"})
    assert back.status_code == 302 and back["Location"] == "/sms/inbox/?matched=yes"
    assert InboundSms.objects.get(pk=answer.id).is_read
    unread = shown(owner_client.get("/sms/inbox/")).split("<tbody>")[1]
    assert "کی تماس می‌گیرید؟" not in unread and "شما؟" in unread  # read replies leave the unread view
    assert "کی تماس می‌گیرید؟" in shown(owner_client.get("/sms/inbox/", {"state": "all"}))
    owner_client.post("/sms/inbox/read/", {"whole_page": "1", "page_ids": [stranger.id, opted.id]})
    assert not InboundSms.objects.filter(workspace=workspace, is_read=False).exists()
    assert "۰ پاسخ خوانده‌نشده" in shown(owner_client.get("/sms/inbox/"))


def test_mark_read_from_the_page_never_touches_another_workspace(owner_client, other_workspace):
    (theirs,) = inbound_store(account=make_account(other_workspace), messages=[received("سلام", "09350000003")])
    owner_client.post("/sms/inbox/read/", {"ids": [theirs.id]})
    assert not InboundSms.objects.get(pk=theirs.id).is_read


def test_an_operator_has_no_inbox_and_no_thread(client, workspace):
    operator = make_member(workspace, Role.OPERATOR)
    client.force_login(operator)
    assert client.get("/sms/inbox/").status_code == 403
    target = make_target(workspace, owner=operator)  # an operator sees its own targets
    assert 'data-testid="thread"' not in shown(client.get(f"/targets/{target.id}/edit/"))


def test_the_target_page_shows_sent_and_received_in_one_thread_paged(owner_client, workspace, monkeypatch):
    from sms.inbound import target_panel

    monkeypatch.setattr(target_panel, "THREAD_PAGE", 3)
    target = make_target(workspace)
    now = timezone.now()
    sent(target, line="10004346", at=now - timedelta(hours=5))
    sent(target, line="10004346", at=now - timedelta(hours=4), status=AttemptStatus.DELIVERED)
    inbound_store(
        account=make_account(workspace),
        messages=[received("پاسخ من", target.mobile, line="10004346", at=now - timedelta(hours=3))],
    )
    sent(target, line="10004346", at=now - timedelta(hours=2), status=AttemptStatus.FAILED)
    page = shown(owner_client.get(f"/targets/{target.id}/edit/"))
    thread = page.split('data-testid="thread"')[1].split("</ol>")[0]
    assert thread.count('data-direction="out"') == 2 and thread.count('data-direction="in"') == 1
    assert thread.index("رسیده") < thread.index("پاسخ من") < thread.index("ناموفق")  # oldest first
    assert "۱۰۰۰۴۳۴۶" in thread
    [older] = re.findall(r'href="(\?thread_before=[^"#]+)#panel-sms" data-testid="thread-older"', page)
    earlier = shown(owner_client.get(f"/targets/{target.id}/edit/{older.replace('&amp;', '&')}"))
    earlier_thread = earlier.split('data-testid="thread"')[1].split("</ol>")[0]
    assert earlier_thread.count('data-direction="out"') == 1 and "پاسخ من" not in earlier_thread


def test_owners_hear_of_replies_once_per_campaign_and_window(workspace, owner):
    assignee = make_member(workspace, Role.OPERATOR)
    campaign = make_campaign(workspace, name="جشنواره", created_by=owner)
    quiet = make_campaign(workspace, name="بی‌پاسخ", created_by=owner)
    account = make_account(workspace)
    targets = [make_target(workspace, owner=assignee if i == 0 else None) for i in range(30)]
    for target in targets:
        sent(target, campaign=campaign)
    start = timezone.now()
    with time_machine.travel(start, tick=False):
        inbound_store(account=account, messages=[received(f"پاسخ {i}", t.mobile) for i, t in enumerate(targets)])
        inbound_store(account=account, messages=[received("باز هم", targets[1].mobile)])  # another poll, same window
        inbound_store(account=account, messages=[received("غریبه", "09350000004")])  # no campaign: nobody
    mine = Notification.objects.filter(recipient=owner, kind="sms_reply")
    assert mine.count() == 1
    note = mine.get()
    assert "جشنواره" in note.title and note.link == f"/sms/inbox/?campaign={campaign.id}"
    assert Notification.objects.filter(recipient=assignee, kind="sms_reply").count() == 1  # the target's assignee
    assert not Notification.objects.filter(link__endswith=f"campaign={quiet.id}").exists()
    with time_machine.travel(start + timedelta(minutes=6), tick=False):
        inbound_store(account=account, messages=[received("پاسخ دیرتر", targets[2].mobile)])
    assert mine.count() == 2  # the next window: a new notification


def test_a_failing_notification_never_costs_the_reply_or_the_push_answer(client, workspace, owner, monkeypatch):
    from sms.inbound import notify

    def broken(**kwargs):
        raise RuntimeError("notifications down")

    monkeypatch.setattr(notify, "notification_send", broken)
    meli = make_account(workspace, provider="melipayamak", senders=["50001000"])
    target = make_target(workspace)
    sent(target, line="50001000", campaign=make_campaign(workspace, created_by=owner))
    url = f"/api/webhooks/sms/inbound/{meli.id}/{meli.inbound_token}"
    response = client.get(url, {"from": target.mobile, "to": "50001000", "body": "سلام"})
    assert (response.status_code, response.content) == (200, b"OK")
    assert InboundSms.objects.get(workspace=workspace).campaign_id is not None


def test_a_campaign_whose_creator_left_notifies_the_workspace_owners(workspace, owner):
    from campaigns.models import Membership

    creator = make_member(workspace, Role.MANAGER)
    campaign = make_campaign(workspace, name="رهاشده", created_by=creator)
    Membership.objects.filter(workspace=workspace, user=creator).delete()  # left the workspace
    target = make_target(workspace)
    sent(target, campaign=campaign)
    inbound_store(account=make_account(workspace), messages=[received("سلام", target.mobile)])
    assert list(Notification.objects.filter(kind="sms_reply").values_list("recipient_id", flat=True)) == [owner.id]
