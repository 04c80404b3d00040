"""The Persian staff UI in a real browser: login, RTL shell, workspace switcher, import with progress."""

import re
from pathlib import Path

import pytest
from celery.contrib.testing.worker import start_worker
from django.contrib.auth import get_user_model
from playwright.sync_api import expect

from campaigns.choices import Role
from campaigns.models import Target
from campaigns.services.workspaces import membership_set
from config.celery import app

from ..conftest import make_member, make_target, make_workspace
from .axe import axe_violations

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
SHOTS = Path("var/screenshots")


def login(page, base: str, username: str) -> None:
    page.goto(f"{base}/")
    expect(page).to_have_url(re.compile(r"/login/"))
    page.fill("#id_username", username)
    page.fill("#id_password", "pw-123456")
    page.click("button[type=submit]")
    expect(page.locator("h1")).to_contain_text("پیشخوان")


def test_login_home_is_rtl_persian_with_vendored_font(page, live_server):
    shop = make_workspace("shop")
    user = make_member(shop, Role.MANAGER, username="maryam")
    for _ in range(3):
        make_target(shop)
    login(page, live_server.url, "maryam")
    html = page.locator("html")
    expect(html).to_have_attribute("dir", "rtl")
    expect(html).to_have_attribute("lang", "fa")
    expect(page.get_by_test_id("count-targets")).to_have_text("۳")
    page.evaluate("document.fonts.ready")
    assert page.evaluate("document.fonts.check('16px Vazirmatn')")
    assert "Vazirmatn" in page.evaluate("getComputedStyle(document.body).fontFamily")
    # the nav sits on the right in RTL
    brand = page.locator(".brand").bounding_box()
    assert brand["x"] > 640
    assert re.fullmatch(r"[۰-۹]{4}/[۰-۹]{2}/[۰-۹]{2}", page.get_by_test_id("today").inner_text())
    page.screenshot(path="var/screenshot-home.png", full_page=True)
    # the shell names who is signed in and their role in this workspace
    expect(page.locator(".user")).to_have_text(f"{user.get_username()} ({Role.MANAGER.label})")


def test_workspace_switcher_changes_what_is_shown(page, live_server):
    first, second = make_workspace("first"), make_workspace("second")
    user = make_member(first, Role.OWNER, username="ali")
    membership_set(workspace=second, user=user, role=Role.VIEWER)
    make_target(first, name="مشتری اول")
    make_target(second, name="مشتری دوم")
    login(page, live_server.url, "ali")
    page.click("text=مخاطبان")
    expect(page.locator("table")).to_contain_text("مشتری اول")
    page.select_option("#ws-switch", str(second.id))
    expect(page.locator(".flash")).to_contain_text(second.name)
    expect(page.locator("table")).to_contain_text("مشتری دوم")
    expect(page.locator("table")).not_to_contain_text("مشتری اول")


def test_import_page_uploads_and_shows_live_progress(page, live_server, tmp_path):
    shop = make_workspace("shop")
    make_member(shop, Role.OWNER, username="reza")
    csv_file = tmp_path / "targets.csv"
    csv_file.write_text("نام,تلفن\nعلی,09121234567\nدفتر,02188776655\nخراب,12\n", encoding="utf-8")
    login(page, live_server.url, "reza")
    page.click("text=ورود از اکسل")
    with start_worker(app, pool="solo", perform_ping_check=False, queues=["default"], shutdown_timeout=30):
        page.set_input_files("input[type=file]", str(csv_file))
        page.click("button:has-text('بارگذاری')")
        expect(page.get_by_test_id("import-status")).to_have_text("انجام شد", timeout=30000)
    expect(page.locator("#import-progress")).to_contain_text("ایجاد شد: ۲")
    expect(page.locator("#import-progress")).to_contain_text("نامعتبر: ۱")
    page.click("a:has-text('نامعتبر')")
    expect(page.get_by_test_id("import-rows")).to_contain_text("«12»")
    assert Target.objects.filter(workspace=shop).count() == 2


def test_admin_login_page_is_persian(page, live_server):
    page.goto(f"{live_server.url}/admin/login/")
    expect(page.locator("html")).to_have_attribute("dir", "rtl")
    expect(page.locator("body")).to_contain_text("مدیریت سامانه کمپین")


def test_admin_lists_workspaces_and_members_in_the_kernel_section(page, live_server):
    """Workspaces, members and API keys are the kernel app's: their own admin section, /admin/platform/…."""
    shop = make_workspace("shop")
    make_member(shop, Role.OWNER, username="root")
    get_user_model().objects.filter(username="root").update(is_staff=True, is_superuser=True)
    page.goto(f"{live_server.url}/admin/login/")
    page.fill("#id_username", "root")
    page.fill("#id_password", "pw-123456")
    page.click("input[type=submit]")
    section = page.locator("#content-main .app-platform")
    expect(section.locator("caption")).to_contain_text("فضاهای کاری و دسترسی")
    expect(section).to_contain_text("عضویت‌ها")
    expect(section).to_contain_text("کلیدهای API")
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "admin-index-platform.png"), full_page=True)
    section.get_by_role("link", name="فضاهای کاری", exact=True).click()
    expect(page).to_have_url(re.compile(r"/admin/platform/workspace/$"))
    expect(page.locator("#result_list")).to_contain_text(shop.name)
    page.screenshot(path=str(SHOTS / "admin-platform-workspaces.png"), full_page=True)
    assert [v for v in axe_violations(page) if v["impact"] == "critical"] == []


def test_an_admin_list_past_the_cap_says_more_than_and_select_all_names_it(page, live_server, monkeypatch):
    """The admin counts like the pages: past the cap the pager, the search line and «select all» read «بیش از …»
    (the action then runs on every matching row, not on the number shown)."""
    from campaigns.platform.pagination import CappedPaginator

    monkeypatch.setattr(CappedPaginator, "cap", 3)
    shop = make_workspace("shop")
    make_member(shop, Role.OWNER, username="root")
    get_user_model().objects.filter(username="root").update(is_staff=True, is_superuser=True)
    for _ in range(5):
        make_target(shop)
    page.goto(f"{live_server.url}/admin/login/?next=/admin/campaigns/target/")
    page.fill("#id_username", "root")
    page.fill("#id_password", "pw-123456")
    page.click("input[type=submit]")
    expect(page.locator("p.paginator")).to_contain_text("بیش از ۳")
    page.locator("#action-toggle").check()  # this page's rows
    question = page.locator(".actions .question")
    expect(question).to_contain_text("انتخاب همه (بیش از ۳)")
    question.locator("a").click()
    expect(page.locator(".actions .all")).to_contain_text("همه (بیش از ۳) انتخاب شدند")
    for width in (1366, 390):
        page.set_viewport_size({"width": width, "height": 800})
        page.screenshot(path=str(SHOTS / f"admin-targets-capped-{width}.png"), full_page=True)
    page.fill("#searchbar", "مخاطب")
    page.locator("#changelist-search input[type=submit]").click()
    expect(page.locator("#changelist-search")).to_contain_text("بیش از ۳ نتیجه")
    assert [v for v in axe_violations(page) if v["impact"] in ("critical", "serious")] == []
