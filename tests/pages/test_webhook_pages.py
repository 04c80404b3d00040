"""The webhooks pages in Chromium: an owner opens them from the menu, registers an endpoint subscribed to
campaign, SMS and chain events by their Persian labels (the secret shown once), sends a test event that a local
receiver gets signed, sees it in the delivery log, replays it (same event id) and rotates the secret; a manager
has no menu link and gets 403; axe-clean.
Screenshots: var/screenshots/webhooks*.png."""

import hashlib
import hmac
import json

import pytest
from playwright.sync_api import expect

from campaigns.choices import Role
from campaigns.platform.models import WebhookDelivery, WebhookEndpoint
from campaigns.platform.webhooks import webhook_delivery_attempt, webhook_endpoint_create

from ..campaigns.test_webhooks import Receiver
from ..conftest import make_member, make_workspace
from .axe import axe_violations
from .test_chain_pages import login, logout, shot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_an_owner_registers_a_webhook_tests_it_replays_and_rotates(page, live_server, settings):
    receiver = Receiver()
    settings.WEBHOOK_ALLOWED_PRIVATE_HOSTS = [f"127.0.0.1:{receiver.port}"]
    shop = make_workspace("shop")
    make_member(shop, Role.OWNER, username="mina")
    make_member(shop, Role.MANAGER, username="reza")
    base = live_server.url
    try:
        login(page, base, "mina")
        page.get_by_test_id("nav-webhooks").click()
        expect(page.locator("h1")).to_have_text("وب‌هوک‌ها")
        page.fill("#id_url", "http://10.0.0.5/hook")  # a private address: refused by the guard
        page.get_by_label("تغییر وضعیت کمپین").check()
        page.get_by_role("button", name="ساخت وب‌هوک").click()
        expect(page.get_by_test_id("url-error")).to_contain_text("شبکه خصوصی")
        page.fill("#id_url", receiver.url)
        page.get_by_label("تغییر وضعیت کمپین").check()
        for label in ("رسیدن پیامک", "ناموفق شدن پیامک", "دریافت پاسخ پیامکی", "پایان اجرای زنجیره"):
            page.get_by_label(label).check()
        page.get_by_role("button", name="ساخت وب‌هوک").click()
        secret = page.get_by_test_id("new-secret").input_value()
        assert secret.startswith("whsec_")
        assert WebhookEndpoint.objects.get().events == [
            "campaign.status_changed",
            "chain.run_completed",
            "sms.delivered",
            "sms.failed",
            "sms.reply_received",
        ]
        assert axe_violations(page) == []
        shot(page, "webhooks")

        page.get_by_test_id("webhook").get_by_role("link").click()
        page.get_by_test_id("send-test").click()
        delivery = WebhookDelivery.objects.get()
        assert webhook_delivery_attempt(delivery_id=delivery.pk) == "delivered"  # what the worker does
        (got,) = receiver.received
        t = got["headers"]["Webhook-Signature"].split(",")[0].split("=", 1)[1]
        expected = hmac.new(secret.encode(), t.encode() + b"." + got["body"], hashlib.sha256).hexdigest()
        assert f"v1={expected}" in got["headers"]["Webhook-Signature"]
        page.reload()
        expect(page.get_by_test_id("delivery-status")).to_have_text("تحویل‌شده")
        expect(page.get_by_test_id("delivery-event")).to_have_text("آزمایش وب‌هوک (از صفحه وب‌هوک‌ها)")
        page.get_by_test_id("replay").click()
        expect(page.get_by_test_id("delivery")).to_have_count(2)
        replay = WebhookDelivery.objects.exclude(pk=delivery.pk).get()
        assert replay.event_id == delivery.event_id and json.loads(got["body"])["type"] == "webhook.test"
        page.get_by_test_id("rotate").click()
        new_secret = page.get_by_test_id("new-secret").input_value()
        assert new_secret.startswith("whsec_") and new_secret != secret
        assert axe_violations(page) == []
        shot(page, "webhooks-detail")
        logout(page)

        login(page, base, "reza")
        expect(page.get_by_test_id("nav-webhooks")).to_have_count(0)
        assert page.goto(f"{base}/webhooks/").status == 403
    finally:
        receiver.close()


def test_the_delivery_log_is_paged_newest_first(page, live_server, settings):
    import uuid
    from datetime import timedelta

    from django.utils import timezone

    from campaigns.platform.webhooks import webhook_endpoint_create

    settings.WEBHOOK_ALLOWED_PRIVATE_HOSTS = ["127.0.0.1:9"]
    shop = make_workspace("shop")
    make_member(shop, Role.OWNER, username="mina")
    endpoint, _ = webhook_endpoint_create(workspace=shop, url="http://127.0.0.1:9/hook", events=["sms.delivered"])
    now = timezone.now()
    made = WebhookDelivery.objects.bulk_create(
        WebhookDelivery(
            workspace=shop,
            endpoint=endpoint,
            event_id=uuid.uuid4(),
            event_type=f"sms.delivered.{i:03d}",  # which row is which, on the page
            payload={},
            next_attempt_at=now,
        )
        for i in range(120)
    )
    for i, delivery in enumerate(made):  # one a minute, the last made the newest
        WebhookDelivery.objects.filter(pk=delivery.pk).update(created_at=now - timedelta(minutes=120 - i))

    def shown() -> list[str]:
        return [t.strip() for t in page.get_by_test_id("delivery").locator("td:nth-child(2)").all_inner_texts()]

    login(page, live_server.url, "mina")
    page.goto(f"{live_server.url}/webhooks/{endpoint.pk}/")
    first = shown()
    assert first == [f"sms.delivered.{i:03d}" for i in range(119, 69, -1)]  # the newest 50
    expect(page.get_by_test_id("pager-previous")).to_have_count(0)
    assert axe_violations(page) == []
    page.get_by_test_id("pager-next").click()
    assert shown() == [f"sms.delivered.{i:03d}" for i in range(69, 19, -1)]
    page.get_by_test_id("pager-next").click()
    assert shown() == [f"sms.delivered.{i:03d}" for i in range(19, -1, -1)]  # the oldest: no older page
    expect(page.get_by_test_id("pager-next")).to_have_count(0)
    page.get_by_test_id("pager-previous").click()
    page.get_by_test_id("pager-previous").click()
    assert shown() == first
    assert axe_violations(page) == []
    shot(page, "webhooks-deliveries-paged")


def test_the_delivery_log_is_filtered_by_status_and_event_and_each_filter_pages(page, live_server, settings):
    import uuid
    from datetime import timedelta

    from django.utils import timezone

    from campaigns.platform.webhooks import webhook_endpoint_create

    settings.WEBHOOK_ALLOWED_PRIVATE_HOSTS = ["127.0.0.1:9"]
    shop = make_workspace("shop")
    make_member(shop, Role.OWNER, username="mina")
    endpoint, _ = webhook_endpoint_create(
        workspace=shop, url="http://127.0.0.1:9/hook", events=["sms.delivered", "sms.failed"]
    )
    now = timezone.now()
    made = WebhookDelivery.objects.bulk_create(
        WebhookDelivery(
            workspace=shop,
            endpoint=endpoint,
            event_id=uuid.uuid4(),
            event_type="sms.delivered" if i % 2 else "sms.failed",
            status="failed" if i % 5 == 0 else "delivered",
            attempts=1,
            last_error=f"r{i:03d}",  # which row is which, on the page
            payload={},
            next_attempt_at=now,
        )
        for i in range(130)
    )
    for i, delivery in enumerate(made):  # one a minute, the last made the newest
        WebhookDelivery.objects.filter(pk=delivery.pk).update(created_at=now - timedelta(minutes=130 - i))

    def shown() -> list[str]:  # the error as kept (the page says it in Persian)
        cells = page.get_by_test_id("delivery-error")
        return cells.evaluate_all("cells => cells.map(c => c.dataset.error)")

    login(page, live_server.url, "mina")
    page.goto(f"{live_server.url}/webhooks/{endpoint.pk}/")
    page.get_by_test_id("filter-status").select_option(label="ناموفق")
    page.get_by_test_id("filter-apply").click()
    assert shown() == [f"r{i:03d}" for i in range(125, -1, -5)]  # the 26 failed, newest first, one page
    expect(page.get_by_test_id("pager-next")).to_have_count(0)
    expect(page.get_by_test_id("filter-status")).to_have_value("failed")

    # delivered «رسیدن پیامک» events: 52 of them, two pages that keep the filter
    page.get_by_test_id("filter-status").select_option(label="تحویل‌شده")
    page.get_by_test_id("filter-event").select_option(label="رسیدن پیامک")
    page.get_by_test_id("filter-apply").click()
    wanted = [f"r{i:03d}" for i in range(129, -1, -1) if i % 2 and i % 5]
    first = shown()
    assert first == wanted[:50]
    assert axe_violations(page) == []
    shot(page, "webhooks-deliveries-filtered")
    page.get_by_test_id("pager-next").click()  # «قدیمی‌تر»
    assert shown() == wanted[50:]
    expect(page.get_by_test_id("filter-event")).to_have_value("sms.delivered")
    expect(page.get_by_test_id("pager-next")).to_have_count(0)
    page.get_by_test_id("pager-previous").click()
    assert shown() == first

    # nothing matches: said; a value the page never offers: said, a 400, no rows
    page.get_by_test_id("filter-status").select_option(label="در صف")
    page.get_by_test_id("filter-apply").click()
    expect(page.get_by_test_id("no-deliveries")).to_have_text("تحویلی با این وضعیت و رویداد نیست.")
    response = page.goto(f"{live_server.url}/webhooks/{endpoint.pk}/?status=lost")
    assert response.status == 400
    expect(page.get_by_test_id("filter-errors")).to_be_visible()
    expect(page.get_by_test_id("delivery")).to_have_count(0)
    assert axe_violations(page) == []


def test_the_delivery_log_says_what_went_wrong_in_persian(page, live_server, settings):
    import uuid

    from django.utils import timezone

    from campaigns.platform.webhooks import webhook_endpoint_create

    settings.WEBHOOK_ALLOWED_PRIVATE_HOSTS = ["127.0.0.1:9"]
    shop = make_workspace("shop")
    make_member(shop, Role.OWNER, username="mina")
    endpoint, _ = webhook_endpoint_create(workspace=shop, url="http://127.0.0.1:9/hook", events=["sms.failed"])
    for error in ("address not allowed (unresolved)", "TimeoutError", "OSError"):
        WebhookDelivery.objects.create(
            workspace=shop,
            endpoint=endpoint,
            event_id=uuid.uuid4(),
            event_type="sms.failed",
            status="pending",
            attempts=1,
            last_error=error,
            payload={},
            next_attempt_at=timezone.now(),
        )
    login(page, live_server.url, "mina")
    page.goto(f"{live_server.url}/webhooks/{endpoint.pk}/")
    errors = page.get_by_test_id("delivery-error")
    expect(errors).to_have_text(
        ["خطای شبکه در رساندن رویداد", "پاسخی در زمان مقرر نرسید", "نشانی مجاز نیست: نام میزبان پیدا نشد"]
    )
    expect(page.get_by_test_id("delivery-event")).to_have_text(["ناموفق شدن پیامک"] * 3)
    assert axe_violations(page) == []


def test_a_refused_replay_links_back_to_its_endpoints_page(page, live_server, settings):
    from django.core.cache import cache

    cache.clear()
    settings.WEBHOOK_MANUAL_SENDS_PER_MINUTE = 1
    receiver = Receiver()
    settings.WEBHOOK_ALLOWED_PRIVATE_HOSTS = [f"127.0.0.1:{receiver.port}"]
    shop = make_workspace("shop")
    make_member(shop, Role.OWNER, username="mina")
    endpoint, _ = webhook_endpoint_create(workspace=shop, url=receiver.url, events=["webhook.test"])
    webhook_endpoint_create(workspace=shop, url=f"{receiver.url}other", events=["webhook.test"])
    try:
        login(page, live_server.url, "mina")
        page.goto(f"{live_server.url}/webhooks/{endpoint.pk}/")
        page.get_by_test_id("send-test").click()  # the member's one send of the minute
        expect(page.get_by_test_id("delivery")).to_have_count(1)
        page.set_viewport_size({"width": 390, "height": 900})
        page.get_by_test_id("replay").click()
        expect(page.get_by_test_id("rate-limited")).to_contain_text("ثانیه دیگر دوباره تلاش کنید")
        assert WebhookDelivery.objects.count() == 1
        assert axe_violations(page) == []
        shot(page, "webhooks-replay-refused-390")
        page.get_by_role("link", name="بازگشت").click()
        expect(page).to_have_url(f"{live_server.url}/webhooks/{endpoint.pk}/")
        expect(page.get_by_test_id("delivery")).to_have_count(1)
    finally:
        receiver.close()
