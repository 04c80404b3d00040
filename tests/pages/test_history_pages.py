"""History lists page by keyset (newer/older links, nothing counted): the SMS log, a campaign's log and a
target's timeline in a real browser, axe-checked; screenshots under var/screenshots/ (history-*.png)."""

import re
from datetime import timedelta
from pathlib import Path

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from automation.models import ExecutionEvent
from campaigns.choices import Role
from sms.models import SmsAttempt

from ..conftest import make_actor, make_member, make_workspace
from ..sms.test_api import _sent_attempt
from .axe import axe_violations

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SCREENSHOTS = Path("var/screenshots")


def shot(page, name: str) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"{name}.png"), full_page=True)


def _copies(model, row, count: int, **vary) -> None:
    fields = {f.attname: getattr(row, f.attname) for f in model._meta.concrete_fields if not f.primary_key}
    model.objects.bulk_create([model(**(fields | {k: v(i) for k, v in vary.items()})) for i in range(count)])


def _walk(page, row_test_id: str, first: int, last: int) -> None:
    """The first page, the older one (the last rows), back to the newer one: the same rows as at first."""
    rows = page.get_by_test_id(row_test_id)
    expect(rows).to_have_count(first)
    shown = rows.all_inner_texts()
    assert axe_violations(page) == []
    page.get_by_test_id("pager-next").click()
    expect(rows).to_have_count(last)
    expect(page.get_by_test_id("pager-next")).to_have_count(0)
    assert axe_violations(page) == []
    page.get_by_test_id("pager-previous").click()
    expect(rows).to_have_count(first)
    assert rows.all_inner_texts() == shown
    expect(page.get_by_test_id("pager-previous")).to_have_count(0)


def test_sms_log_campaign_log_and_timeline_page_newer_and_older(page, live_server):
    shop = make_workspace("shop")
    user = make_member(shop, Role.OWNER, username="history-owner")
    attempt = _sent_attempt(make_actor(shop, user=user), shop)
    now = timezone.now()
    _copies(SmsAttempt, attempt, 59, idempotency_key=lambda i: f"h:{i}", request_at=lambda i: now - timedelta(hours=i))
    event = ExecutionEvent.objects.filter(execution_id=attempt.execution_id).order_by("id").first()
    _copies(ExecutionEvent, event, 60, occurred_at=lambda i: now - timedelta(minutes=i // 3))  # ties: id decides

    page.goto(f"{live_server.url}/login/")
    page.fill("#id_username", "history-owner")
    page.fill("#id_password", "pw-123456")
    page.click("button[type=submit]")

    page.goto(f"{live_server.url}/sms/log/")
    expect(page.get_by_test_id("attempt-count")).to_have_text("۵۰ ردیف در این صفحه")
    shot(page, "history-sms-log")
    _walk(page, "attempt-row", 50, 10)

    events = ExecutionEvent.objects.filter(campaign_id=attempt.campaign_id).count()
    page.goto(f"{live_server.url}/automation/campaigns/{attempt.campaign_id}/logs/")
    shot(page, "history-campaign-log")
    logs = page.get_by_test_id("logs").locator("tbody tr")
    expect(logs).to_have_count(50)
    shown = logs.all_inner_texts()
    page.get_by_test_id("pager-next").click()
    expect(logs).to_have_count(events - 50)
    page.get_by_test_id("pager-previous").click()
    assert logs.all_inner_texts() == shown
    assert axe_violations(page) == []

    page.goto(f"{live_server.url}/targets/{attempt.subject_id}/edit/#panel-automation")
    timeline = page.get_by_test_id("timeline").get_by_test_id("event")
    expect(timeline).to_have_count(30)
    shot(page, "history-target-timeline")
    page.get_by_test_id("pager-next").click()
    expect(page).to_have_url(re.compile(r"timeline_cursor="))
    expect(timeline.first).to_be_visible()
    assert axe_violations(page) == []
