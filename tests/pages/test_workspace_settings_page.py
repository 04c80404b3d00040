"""The workspace settings page in Chromium: an owner turns on approval and four eyes and picks the Jalali
calendar; each takes effect on the chain pages (the submitter cannot approve, the schedule preview counts
Jalali months); a manager gets 403 and no menu link; another workspace is untouched.
Screenshot: var/screenshots/workspace-settings*.png."""

import datetime as dt

import jdatetime
import pytest
from django.utils import timezone
from playwright.sync_api import expect

from campaigns.approval_selectors import FOUR_EYES_SETTING, WORKSPACE_APPROVAL_SETTING
from campaigns.calendar import CALENDAR_SETTING, JALALI
from campaigns.chains.models import ChainNode
from campaigns.choices import CampaignStatus, Role
from campaigns.models import Workspace

from ..chains.conftest import make_chain
from ..conftest import make_member, make_workspace
from .axe import axe_violations
from .test_chain_pages import login, logout, make_group, post_as_page, shot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

FA = str.maketrans("0123456789", "۰۱۲۳۴۵۶۷۸۹")


def _next_first_day(jalali: bool) -> str:
    """The first row of a monthly-on-day-1 root's preview: the next 1st of a month at 09:00, written in Jalali."""
    today = timezone.localtime(timezone.now()).date()
    if jalali:
        j = jdatetime.date.fromgregorian(date=today)
        year, month = (j.year + 1, 1) if j.month == 12 else (j.year, j.month + 1)
        return f"{year}/{month:02d}/01 09:00".translate(FA)
    first = (today.replace(day=1) + dt.timedelta(days=32)).replace(day=1)
    return jdatetime.date.fromgregorian(date=first).strftime("%Y/%m/%d 09:00").translate(FA)


def _last_day_of_next_jalali_month() -> str:
    j = jdatetime.date.fromgregorian(date=timezone.localtime(timezone.now()).date())
    year, month = (j.year + 1, 1) if j.month == 12 else (j.year, j.month + 1)
    last = 31 if month <= 6 else 30 if month <= 11 else (30 if jdatetime.date(year, 1, 1).isleap() else 29)
    return f"{year}/{month:02d}/{last} 10:00".translate(FA)


def _preview(page, base: str, group_id: int, root_id: int):
    page.goto(f"{base}/chains/groups/{group_id}/campaigns/new/?parent={root_id}")
    page.get_by_test_id("timing-FIXED_DAY_IN_PERIOD").check()
    page.locator("input[name=fixed_day_last]").check()
    page.fill("#f-runtime", "10:00")
    page.locator("#f-runtime").dispatch_event("change")
    return page.get_by_test_id("preview")


def test_an_owner_sets_approval_four_eyes_and_the_calendar_and_each_takes_effect(page, live_server):
    shop = make_workspace("shop", settings={"notifications_email": True})
    other = make_workspace("other", settings={"notifications_email": False})
    mina = make_member(shop, Role.OWNER, username="mina")
    make_member(shop, Role.ADMIN, username="ali")
    make_member(shop, Role.MANAGER, username="reza")
    make_member(other, Role.OWNER, username="omid")
    group = make_group(shop, "اعلان‌ها")
    root = make_chain(shop, group, shape="A")["A"]
    single = ChainNode.objects.create(workspace=shop, name="اعلان تعطیلی", group=group, created_by=mina)
    base = live_server.url

    # before: no approval for single campaigns, Gregorian months in the preview
    login(page, base, "mina")
    page.goto(f"{base}/chains/groups/{group.id}/")
    card = page.locator(f'[data-testid=node][data-name="{single.name}"]')
    expect(card).to_be_visible()
    expect(card.get_by_test_id("submit")).to_have_count(0)
    preview = _preview(page, base, group.id, root.id)
    expect(preview.get_by_test_id("preview-calendar")).to_contain_text("تقویم میلادی")
    expect(preview.locator("tbody tr").first).to_contain_text(_next_first_day(jalali=False))

    # the page, from the menu
    page.get_by_test_id("nav-workspace-settings").click()
    expect(page.locator("h1")).to_have_text("تنظیمات فضای کاری")
    expect(page.locator("html")).to_have_attribute("dir", "rtl")
    approval = page.get_by_label("کمپین‌ها پیش از شروع تأیید می‌خواهند")
    four_eyes = page.get_by_label("تأیید چهارچشمی")
    expect(approval).not_to_be_checked()
    expect(four_eyes).not_to_be_checked()
    expect(page.get_by_label("میلادی")).to_be_checked()
    expect(four_eyes).to_have_accessible_description(
        "کسی که بسته یا کمپین را برای تأیید می‌فرستد نمی‌تواند خودش آن را تأیید کند."
    )
    expect(page.get_by_label("شمسی")).to_have_accessible_description(
        "روزهای ماه در زمان‌بندی زنجیره‌ها با تقویم شمسی شمرده می‌شوند: «هر ماه روز ۱» یعنی ۱ فروردین، ۱ اردیبهشت و …"
    )
    expect(page.get_by_test_id("approver-count")).to_contain_text("۲ نفر")
    approval.check()
    four_eyes.check()
    page.get_by_label("شمسی").check()
    page.get_by_role("button", name="ذخیره تنظیمات").click()
    expect(page.locator(".flash-success")).to_have_text("تنظیمات فضای کاری ذخیره شد.")
    expect(approval).to_be_checked()
    expect(four_eyes).to_be_checked()
    expect(page.get_by_label("شمسی")).to_be_checked()
    expect(page.get_by_test_id("four-eyes-warning")).to_have_count(0)  # two approvers: four eyes works
    for width in (1366, 390):
        page.set_viewport_size({"width": width, "height": 900})
        shot(page, f"workspace-settings-{width}")
        assert axe_violations(page) == [], width
        assert page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth") <= 1
    page.set_viewport_size({"width": 1280, "height": 800})
    shop.refresh_from_db()
    assert shop.settings == {
        "notifications_email": True,
        WORKSPACE_APPROVAL_SETTING: True,
        FOUR_EYES_SETTING: True,
        CALENDAR_SETTING: JALALI,
    }
    other.refresh_from_db()
    assert other.settings == {"notifications_email": False}

    # approval: the single campaign is now submitted for approval; four eyes: its submitter may not approve it
    page.goto(f"{base}/chains/groups/{group.id}/")
    card = page.locator(f'[data-testid=node][data-name="{single.name}"]')
    card.get_by_test_id("submit").click()
    expect(page.locator(".flash-success")).to_contain_text("برای تأیید ارسال شد")
    card = page.locator(f'[data-testid=node][data-name="{single.name}"]')
    expect(card.get_by_test_id("own-submission")).to_contain_text("تأیید آن با تأییدکننده دیگری است")
    expect(card.get_by_test_id("single-approve")).to_have_count(0)
    single.refresh_from_db()
    post_as_page(page, f"{base}/chains/campaigns/{single.id}/approve/", {"expected_revision": single.revision})
    single.refresh_from_db()
    assert single.status == CampaignStatus.SUBMITTED  # refused: the submitter

    # calendar: the schedule preview counts Jalali months now
    preview = _preview(page, base, group.id, root.id)
    expect(preview.get_by_test_id("preview-calendar")).to_contain_text("تقویم شمسی")
    first_row = preview.locator("tbody tr").first
    expect(first_row).to_contain_text(_next_first_day(jalali=True))
    expect(first_row).to_contain_text(_last_day_of_next_jalali_month())  # «روز آخر ماه» of the Jalali month
    shot(page, "workspace-settings-jalali-preview")
    logout(page)

    # a manager: no menu link, 403 on the page and on a write
    login(page, base, "reza")
    expect(page.get_by_test_id("nav-workspace-settings")).to_have_count(0)
    response = page.goto(f"{base}/workspace/settings/")
    assert response.status == 403
    expect(page.locator("body")).to_contain_text("دسترسی ندارید")
    refused = post_as_page(page, f"{base}/workspace/settings/", {"calendar": "gregorian"})
    assert refused.status == 403
    assert Workspace.objects.get(pk=shop.pk).settings[CALENDAR_SETTING] == JALALI
    logout(page)

    # another workspace's owner sees its own settings, unchanged
    login(page, base, "omid")
    page.get_by_test_id("nav-workspace-settings").click()
    expect(page.get_by_label("کمپین‌ها پیش از شروع تأیید می‌خواهند")).not_to_be_checked()
    expect(page.get_by_label("تأیید چهارچشمی")).not_to_be_checked()
    expect(page.get_by_label("میلادی")).to_be_checked()
    assert Workspace.objects.get(pk=other.pk).settings == {"notifications_email": False}
