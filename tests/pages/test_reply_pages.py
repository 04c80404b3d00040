"""Replies in a real browser: one read from Kavenegar's inbox by the poll and one pushed by Melipayamak reach the
owner as one notification, the inbox (filters, mark read) and the target's thread. Screenshots at 1366 and 390 px
under var/screenshots/replies-*.png."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

import pytest
from playwright.sync_api import expect

from campaigns.choices import Role
from campaigns.models import Notification
from sms.choices import AttemptStatus
from sms.inbound.models import InboundSms
from sms.inbound.poll import inbox_poll
from sms.models import SmsProviderAccount
from tests.sms.fake_provider import FakeProvider
from tests.sms.inbound_helpers import sent

from ..conftest import make_campaign, make_member, make_target, make_workspace
from .axe import axe_violations

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SHOTS = Path("var/screenshots")
JALALI_TIME = re.compile(r"[۰-۹]{4}/[۰-۹]{2}/[۰-۹]{2} [۰-۹]{2}:[۰-۹]{2}")


@pytest.fixture
def fake(settings):
    server = FakeProvider()  # a free port: runs in parallel never collide
    settings.SMS_PROVIDER_BASE_URLS = {
        "kavenegar": server.url,
        "melipayamak": server.url,
        "melipayamak_receive": server.url,
    }
    yield server
    server.close()


def provider_account(workspace, provider: str, line: str) -> SmsProviderAccount:
    credentials = {"api_key": "K"} if provider == "kavenegar" else {"username": "u", "password": "p"}
    return SmsProviderAccount.objects.create(
        workspace=workspace, name=provider, provider=provider, senders=[line], credentials=json.dumps(credentials)
    )


def shots(page, name: str) -> None:
    """axe-clean at both widths, never scrolling sideways; a screenshot of each."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    for width in (1366, 390):
        page.set_viewport_size({"width": width, "height": 900})
        assert axe_violations(page) == [], (name, width)
        overflow = page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")
        assert overflow <= 1, (name, width, overflow)
        page.screenshot(path=str(SHOTS / f"replies-{name}-{width}.png"), full_page=True)
    page.set_viewport_size({"width": 1366, "height": 900})


def test_replies_by_poll_and_push_reach_the_owner_the_inbox_and_the_thread(page, live_server, fake):
    shop = make_workspace("shop")
    owner = make_member(shop, Role.OWNER, username="owner-replies")
    campaign = make_campaign(shop, name="جشنواره پاییز", created_by=owner)
    kave = provider_account(shop, "kavenegar", "10004346")
    meli = provider_account(shop, "melipayamak", "50001000")
    SmsProviderAccount.objects.filter(pk=meli.pk).update(inbound_push=True)  # it pushes: the poll leaves it
    maryam = make_target(shop, name="مریم احمدی", mobile="+989121234567")
    reza = make_target(shop, name="رضا کریمی", mobile="+989121234568")
    sent(maryam, line="10004346", campaign=campaign, status=AttemptStatus.DELIVERED)
    sent(reza, line="50001000", campaign=campaign)

    fake.reply("09121234567", "ممنون، کی تماس می‌گیرید؟", line="10004346", at=int(time.time()))
    assert inbox_poll()["stored"] == 1  # the beat job's poll reads Kavenegar's inbox
    push = f"{live_server.url}/api/webhooks/sms/inbound/{meli.id}/{meli.inbound_token}"
    answered = page.request.get(push, params={"from": "09121234568", "to": "50001000", "body": "لغو ۱۱"})
    assert (answered.status, answered.text()) == (200, "OK")
    stranger = page.request.get(push, params={"from": "09350000001", "to": "50001000", "body": "شما؟"})
    assert stranger.text() == "OK"
    assert InboundSms.objects.filter(workspace=shop).count() == 3 and kave.id

    # One notification for both replies to the campaign (batched), with its link to the campaign's replies.
    page.goto(f"{live_server.url}/login/")
    page.fill("#id_username", "owner-replies")
    page.fill("#id_password", "pw-123456")
    page.click("button[type=submit]")
    expect(page.get_by_test_id("bell-count")).to_have_text("۱")
    assert Notification.objects.filter(recipient=owner, kind="sms_reply").count() == 1
    page.get_by_test_id("bell").click()
    page.get_by_role("link", name="پاسخ تازه به «جشنواره پاییز»").click()
    rows = page.get_by_test_id("inbox-row")
    expect(rows).to_have_count(2)  # the campaign's replies; the stranger answered no campaign
    expect(page.locator("#id_campaign")).to_have_value(str(campaign.id))

    # The inbox from the menu: every unread reply, Jalali times, the opt-out marked, the stranger unmatched.
    page.get_by_test_id("nav-sms-inbox").click()
    expect(page.locator("h1")).to_have_text("پیامک")
    expect(rows).to_have_count(3)
    expect(page.get_by_test_id("inbox-unread")).to_contain_text("۳ پاسخ خوانده‌نشده")
    first = rows.filter(has_text="ممنون، کی تماس می‌گیرید؟")
    expect(first.get_by_test_id("inbox-target")).to_have_text("مریم احمدی")
    assert JALALI_TIME.search(first.inner_text())
    expect(first).to_contain_text("۱۰۰۰۴۳۴۶")
    expect(rows.filter(has_text="لغو ۱۱").get_by_test_id("inbox-outcome")).to_have_text("لغو دریافت")
    expect(rows.filter(has_text="شما؟").get_by_test_id("inbox-unmatched")).to_be_visible()
    shots(page, "inbox")

    page.select_option("#id_matched", "no")
    page.click("button:has-text('نمایش')")
    expect(rows).to_have_count(1)
    expect(rows).to_contain_text("شما؟")
    page.select_option("#id_matched", "")
    page.select_option("#id_outcome", "opt_out")
    page.click("button:has-text('نمایش')")
    expect(rows).to_have_count(1)
    expect(rows).to_contain_text("لغو ۱۱")
    page.get_by_role("link", name="پاک کردن").click()

    # Mark read: the reply leaves the unread view, stays under "all".
    first.get_by_test_id("mark-read").click()
    expect(page.locator(".flash-success")).to_contain_text("۱ پاسخ")
    expect(rows).to_have_count(2)
    expect(page.get_by_test_id("inbox-unread")).to_contain_text("۲ پاسخ خوانده‌نشده")
    assert InboundSms.objects.get(target=maryam).is_read
    page.select_option("#id_state", "all")
    page.click("button:has-text('نمایش')")
    expect(rows).to_have_count(3)
    expect(first).to_contain_text("خوانده‌شده")

    # The target's thread: what we sent and what it answered, oldest first, with status and line.
    first.get_by_test_id("inbox-target").click()
    thread = page.get_by_test_id("thread-message")
    expect(thread).to_have_count(2)
    expect(thread.nth(0)).to_have_attribute("data-direction", "out")
    expect(thread.nth(0).get_by_test_id("thread-status")).to_have_text("رسیده")
    expect(thread.nth(0)).to_contain_text("«جشنواره پاییز»")
    expect(thread.nth(1)).to_have_attribute("data-direction", "in")
    expect(thread.nth(1)).to_contain_text("ممنون، کی تماس می‌گیرید؟")
    expect(thread.nth(1)).to_contain_text("۱۰۰۰۴۳۴۶")
    assert JALALI_TIME.search(thread.nth(1).inner_text())
    page.get_by_test_id("panel-sms").scroll_into_view_if_needed()
    shots(page, "thread")


def test_the_account_page_gives_the_reply_push_address_that_the_provider_then_uses(page, live_server, fake):
    shop = make_workspace("shop")
    make_member(shop, Role.OWNER, username="owner-push")
    meli = provider_account(shop, "melipayamak", "50001000")
    kave = provider_account(shop, "kavenegar", "10004346")
    make_target(shop, name="رضا کریمی", mobile="+989121234568")
    page.goto(f"{live_server.url}/login/")
    page.fill("#id_username", "owner-push")
    page.fill("#id_password", "pw-123456")
    page.click("button[type=submit]")

    page.goto(f"{live_server.url}/sms/settings/")
    page.get_by_role("link", name="melipayamak", exact=True).click()
    expect(page.get_by_test_id("reply-push-state")).to_contain_text("هنوز پاسخی با این نشانی نرسیده")
    address = page.get_by_test_id("reply-push-url").inner_text().strip()
    shots(page, "push-address")

    answered = page.request.post(address, form={"from": "09121234568", "to": "50001000", "body": "لغو"})
    assert (answered.status, answered.text()) == (200, "OK")
    assert InboundSms.objects.get(workspace=shop).outcome == "opt_out"
    page.reload()
    expect(page.get_by_test_id("reply-push-state")).to_contain_text("پاسخ‌ها با همین نشانی می‌رسند")

    page.goto(f"{live_server.url}/sms/settings/accounts/{kave.id}/")  # Kavenegar is read from its inbox only
    expect(page.locator("h2").first).to_contain_text("kavenegar")
    expect(page.get_by_test_id("reply-push")).to_have_count(0)
    assert meli.inbound_token not in page.content()


def test_the_thread_steps_back_and_forward_a_page_at_a_time(page, live_server, monkeypatch):
    """«پیامک‌های قدیمی‌تر» and «پیامک‌های جدیدتر» step through the target's thread by position, «تازه‌ترین
    پیامک‌ها» returns to its newest page; axe-clean, never scrolling sideways at 390 px."""
    from datetime import timedelta

    from django.utils import timezone

    from sms.inbound import target_panel
    from sms.inbound.services import inbound_store
    from sms.models import SmsAttempt
    from tests.sms.inbound_helpers import make_account, received

    monkeypatch.setattr(target_panel, "THREAD_PAGE", 3)
    shop = make_workspace("shop")
    make_member(shop, Role.OWNER, username="owner-thread")
    maryam = make_target(shop, name="مریم احمدی", mobile="+989121234567")
    account = make_account(shop)
    start = timezone.now() - timedelta(days=1)
    for i in range(4):  # seven messages, alternately ours and hers: «پیام ۰» … «پاسخ ۲»
        attempt = sent(maryam, at=start + timedelta(hours=2 * i), status=AttemptStatus.DELIVERED)
        SmsAttempt.objects.filter(pk=attempt.pk).update(message=f"پیام {'۰۱۲۳'[i]}")
        if i < 3:
            reply = received(f"پاسخ {'۰۱۲۳'[i]}", maryam.mobile, at=start + timedelta(hours=2 * i + 1))
            inbound_store(account=account, messages=[reply])

    page.goto(f"{live_server.url}/login/")
    page.fill("#id_username", "owner-thread")
    page.fill("#id_password", "pw-123456")
    page.click("button[type=submit]")
    page.goto(f"{live_server.url}/targets/{maryam.id}/edit/#panel-sms")
    texts = page.get_by_test_id("thread-message").locator(".text")
    expect(texts).to_have_text(["پیام ۲", "پاسخ ۲", "پیام ۳"])
    expect(page.get_by_test_id("thread-newer")).to_have_count(0)  # the newest page
    page.get_by_test_id("thread-older").click()
    expect(texts).to_have_text(["پاسخ ۰", "پیام ۱", "پاسخ ۱"])
    page.get_by_test_id("thread-older").click()
    expect(texts).to_have_text(["پیام ۰"])
    expect(page.get_by_test_id("thread-older")).to_have_count(0)  # the thread's beginning
    page.get_by_test_id("thread-newer").click()
    expect(texts).to_have_text(["پاسخ ۰", "پیام ۱", "پاسخ ۱"])
    expect(page.get_by_test_id("thread-newer")).to_have_text("پیامک‌های جدیدتر")
    page.get_by_test_id("panel-sms").scroll_into_view_if_needed()
    shots(page, "thread-pages")
    page.get_by_test_id("thread-newer").click()
    expect(texts).to_have_text(["پیام ۲", "پاسخ ۲", "پیام ۳"])
    expect(page.get_by_test_id("thread-newer")).to_have_count(0)  # nothing after it
    page.get_by_test_id("thread-newest").click()
    expect(texts).to_have_text(["پیام ۲", "پاسخ ۲", "پیام ۳"])
    expect(page.get_by_test_id("thread-newest")).to_have_count(0)
