"""The Jalali date picker in Chromium: shown in Jalali, driven by the keyboard, posts ISO (docs/ui.md)."""

import re

import pytest
from playwright.sync_api import expect

from campaigns.choices import Role

from ..conftest import make_member, make_workspace
from .test_staff_pages import login

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def pick_day(page, label: str, day: str) -> None:
    """Open the calendar of the field labelled ``label`` and click ``day`` ("۱۵ آذر ۱۴۰۵")."""
    page.get_by_role("button", name=re.compile(f"انتخاب از تقویم: {label}")).click()
    page.get_by_role("dialog", name=re.compile(f"تقویم: {label}")).get_by_role("button", name=day).click()


def test_target_filter_date_is_jalali_keyboard_picked_and_posted_as_iso(page, live_server):
    shop = make_workspace("shop")
    make_member(shop, Role.OWNER, username="sara")
    login(page, live_server.url, "sara")
    page.goto(f"{live_server.url}/targets/?created_after=2026-12-01")
    shown = page.locator("#id_created_after")
    expect(shown).to_have_value("۱۴۰۵/۰۹/۱۰")
    expect(page.locator("input[type=hidden][name=created_after]")).to_have_value("2026-12-01")
    opener = page.get_by_role("button", name="انتخاب از تقویم: ایجاد از")
    opener.focus()
    page.keyboard.press("Enter")
    calendar = page.get_by_role("dialog", name="تقویم: ایجاد از")
    expect(calendar.locator(".jp-title")).to_have_text("آذر ۱۴۰۵")
    expect(calendar.locator("button[data-jdn]:focus")).to_have_text("۱۰")
    page.keyboard.press("ArrowLeft")  # the next day is on the left in RTL
    page.keyboard.press("PageDown")  # a month on: دی
    expect(calendar.locator(".jp-title")).to_have_text("دی ۱۴۰۵")
    page.keyboard.press("PageUp")
    page.keyboard.press("Enter")
    expect(calendar).to_have_count(0)
    expect(opener).to_be_focused()
    expect(shown).to_have_value("۱۴۰۵/۰۹/۱۱")
    shown.fill("۱۴۰۵/۰۱/۰۱")  # typed by hand, Persian digits
    shown.press("Tab")
    page.get_by_role("button", name="جستجو").click()
    expect(page).to_have_url(re.compile(r"created_after=2026-03-21"))


def test_campaign_start_picker_keeps_the_typed_24_hour_time(page, live_server):
    shop = make_workspace("shop")
    make_member(shop, Role.OWNER, username="sara")
    login(page, live_server.url, "sara")
    page.goto(f"{live_server.url}/automation/campaigns/new/")
    starts = page.locator("#id_starts_at")
    starts.fill("1405/09/10 21:30")
    pick_day(page, "شروع", "۱۵ آذر ۱۴۰۵")
    expect(starts).to_have_value("1405/09/15 21:30")
    page.keyboard.press("Escape")
