"""The common flow as a first-time user does it, in Chromium: a three-step journey from a built-in template, a
spreadsheet of 20 leads imported into a new list, "enroll these targets" straight from the import report, the
review, Start — and the sends appear on the dashboard without a reload. Every click is counted, and the pages that
wait (the import report, the dashboard) are watched for a second load of the document."""

import re
import time

import pytest
from celery.contrib.testing.worker import start_worker
from django.conf import settings
from openpyxl import Workbook
from playwright.sync_api import expect

from campaigns.choices import Role
from config.celery import app
from sms.models import SmsAttempt
from tests.automation.helpers import setup_sms

from ..conftest import make_member, make_workspace
from .test_campaign_pages import login, rtl, shot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
MAX_CLICKS = 20
FIRST_SENDS_WITHIN = 15  # seconds from «شروع» to the sends on the dashboard
QUEUES = [queue.name for queue in settings.CELERY_TASK_QUEUES]  # every queue, as `make run`'s one worker


class Clicks:
    """Counts what a person does: a click, choosing from a list, typing into a field, picking a file."""

    def __init__(self, page):
        self.page, self.count = page, 0

    def click(self, locator):
        self.count += 1
        locator.click()

    def fill(self, locator, text: str):
        self.count += 1
        locator.fill(text)

    def choose(self, locator, **option):
        self.count += 1
        locator.select_option(**option)

    def upload(self, locator, path: str):
        self.count += 1
        locator.set_input_files(path)


class NoReload:
    """Within the block the page loads no document: what it shows changes by itself (htmx), never by F5."""

    def __init__(self, page):
        self.page, self.loads = page, []

    def _seen(self, request):
        if request.resource_type == "document" and request.frame == self.page.main_frame:
            self.loads.append(request.url)

    def __enter__(self):
        self.page.on("request", self._seen)
        return self

    def __exit__(self, exc_type, *_):
        self.page.remove_listener("request", self._seen)
        if exc_type is None:
            assert not self.loads, f"the page was loaded again: {self.loads}"


def _spreadsheet(path):
    book = Workbook()
    sheet = book.active
    sheet.append(["نام", "موبایل", "شهر"])
    for i in range(20):
        sheet.append([f"سرنخ {i + 1}", f"0912{5550000 + i}", "تهران"])
    book.save(path)


def test_twenty_leads_from_a_spreadsheet_to_a_running_three_step_journey_in_20_clicks_sending_within_15_s(
    page, live_server, tmp_path
):
    shop = make_workspace("shop")
    make_member(shop, Role.MANAGER, username="mina")
    setup_sms(shop)
    sheet = tmp_path / "leads.xlsx"
    _spreadsheet(sheet)
    login(page, live_server.url, "mina")
    user = Clicks(page)

    # 1. the journey: a built-in three-step template, published
    user.click(page.get_by_test_id("nav-automation"))
    user.click(page.get_by_role("link", name="گردش‌کار تازه"))
    user.fill(page.locator("#id_name"), "معرفی محصول")
    user.click(page.get_by_text("معرفی سه‌مرحله‌ای"))
    user.click(page.get_by_role("button", name="ساخت و باز کردن ویرایشگر"))
    expect(page.get_by_test_id("problems")).to_contain_text("ایرادی نیست")
    user.click(page.get_by_test_id("publish"))
    expect(page.locator(".flash-success")).to_contain_text("منتشر شد")
    expect(page.get_by_test_id("new-campaign-on-workflow")).to_be_visible()

    # 2. the spreadsheet, into a new list made on the import page; the report updates itself
    user.click(page.get_by_role("link", name="ورود از اکسل"))
    user.upload(page.locator("input[type=file]"), str(sheet))
    user.fill(page.locator("#id_new_list"), "سرنخ‌های آذر")
    with start_worker(app, pool="solo", perform_ping_check=False, queues=["default"], shutdown_timeout=30):
        user.click(page.get_by_role("button", name="بارگذاری"))
        page.wait_for_url(re.compile(r"/targets/import/\d+/"))
        with NoReload(page):  # the report updates itself until the import is done
            expect(page.get_by_test_id("import-status")).to_have_text("انجام شد", timeout=30000)
    expect(page.locator("#import-progress")).to_contain_text("ایجاد شد: ۲۰")
    expect(page.get_by_test_id("import-see")).to_be_visible()
    rtl(page)
    shot(page, "journey-flow-import-done")

    # 3. "enroll these 20 targets": the campaign form opens with the list chosen
    user.click(page.get_by_test_id("import-enroll"))
    user.fill(page.locator("#id_name"), "کمپین آذر")
    user.choose(page.locator("#id_workflow"), label="معرفی محصول — نسخه ۱")
    user.click(page.get_by_role("button", name="ساخت کمپین"))
    expect(page.get_by_test_id("class-ready")).to_contain_text("۲۰")
    user.click(page.get_by_test_id("commit"))
    expect(page.locator(".flash-success")).to_contain_text("۲۰ مخاطب به کمپین افزوده شد")
    user.click(page.get_by_role("link", name="رفتن به داشبورد کمپین"))

    # 4. «شروع»: the scheduler runs at once (not at the next minute's beat); the dashboard shows the sends by itself
    with start_worker(app, pool="solo", perform_ping_check=False, queues=QUEUES, shutdown_timeout=30):
        started = time.monotonic()
        user.click(page.get_by_test_id("control-activate"))
        expect(page.locator(".flash-success")).to_contain_text("شروع شد")
        with NoReload(page):
            expect(page.get_by_test_id("stat-sent-today")).to_contain_text("۲۰", timeout=FIRST_SENDS_WITHIN * 1000)
            first_sends = time.monotonic() - started
            assert SmsAttempt.objects.filter(workspace=shop).count() == 20
            expect(page.get_by_test_id("stat-waiting")).to_contain_text("۲۰")
            chart = page.get_by_test_id("chart")  # the chart keeps up with the numbers
            expect(chart.locator("rect.bar-sent")).to_have_count(1)
            expect(chart.locator("g", has=page.locator("rect.bar-sent"))).to_contain_text("۲۰ ارسال")
    shot(page, "journey-flow-dashboard")
    assert user.count <= MAX_CLICKS, user.count
    assert first_sends <= FIRST_SENDS_WITHIN, first_sends
    print(f"first-time flow: {user.count} clicks, first sends {first_sends:.1f} s after «شروع»")
