"""The staff menu (``campaigns.platform.navigation``, contributed by each app's ``navigation.py``): what each
role sees, in order, that it never links to a page the role may not open, and how it looks in Chromium at
1366 px and 390 px (axe-clean). Screenshots: var/screenshots/menu-*.png."""

from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import resolve, reverse
from playwright.sync_api import expect

from campaigns.choices import Role
from campaigns.platform.navigation import MENU, menu_for
from campaigns.platform.pages import page_permissions
from campaigns.platform.permissions import ROLE_PERMISSIONS

from ..conftest import make_actor, make_member, make_workspace
from .axe import axe_violations

SHOTS = Path("var/screenshots")
BROWSER = ["کارهای مرورگر", ["کمپین‌های مرورگر", "حساب‌ها", "پراکسی‌ها"]]
EVERYONE_FIRST = ["پیشخوان", "مخاطبان", "ورود از اکسل"]
LAST = ["کلیدهای API", "مستندات API"]  # every member makes their own API keys
MANAGER_MENU = [*EVERYONE_FIRST, BROWSER, "اتوماسیون", "کمپین‌های پیامکی", "زنجیره‌ها", "پیامک", "پاسخ‌ها", *LAST]
# owners and admins also set the workspace's approval and calendar and its webhooks (manage_workspace)
OWNER_MENU = [*MANAGER_MENU[:-2], "تنظیمات فضای کاری", "وب‌هوک‌ها", *LAST]
VIEWER_MENU = [*EVERYONE_FIRST, ["کارهای مرورگر", ["کمپین‌های مرورگر"]], "کمپین‌های پیامکی", *LAST]
EXPECTED = {
    Role.OWNER: OWNER_MENU,
    Role.ADMIN: OWNER_MENU,
    Role.MANAGER: MANAGER_MENU,
    Role.OPERATOR: VIEWER_MENU,
    Role.VIEWER: VIEWER_MENU,
}


def _labels(menu) -> list:
    out = []
    for group in menu:
        items = [item.label for item in group.items]
        out += [[group.label, items]] if group.label else items
    return out


@pytest.mark.django_db
@pytest.mark.parametrize("role", list(EXPECTED))
def test_each_role_sees_its_menu_in_order(role):
    actor = make_actor(make_workspace("shop"), role=role)
    assert _labels(menu_for(user=actor.user, actor=actor)) == EXPECTED[role]
    actor.user.is_staff = True
    staff_menu = _labels(menu_for(user=actor.user, actor=actor))
    assert staff_menu[-2:] == ["مدیریت", "مستندات API"]


@pytest.mark.django_db
def test_outside_any_workspace_only_the_links_that_need_none_are_shown():
    user = get_user_model().objects.create_user("lonely")
    assert _labels(menu_for(user=user, actor=None)) == ["پیشخوان", "مستندات API"]


@pytest.mark.django_db
@pytest.mark.parametrize("role", list(EXPECTED))
def test_the_menu_links_only_to_pages_the_role_may_open(role, client: Client):
    actor = make_actor(make_workspace("shop"), role=role)
    client.force_login(actor.user)
    for group in menu_for(user=actor.user, actor=actor):
        for item in group.items:
            declared = page_permissions(resolve(item.url).func)
            assert declared is None or declared.read is None or declared.read in ROLE_PERMISSIONS[role], item.url
            assert client.get(item.url, follow=True).status_code == 200, item.url


def test_every_item_names_a_page_and_a_persian_label():
    for _, group in MENU:
        for item in group.items:
            assert not item.label.isascii(), item
            assert resolve(reverse(item.url_name)), item


def _shot(page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_the_menu_in_chromium_at_desktop_and_phone_width(page, live_server):
    shop = make_workspace("shop")
    make_member(shop, Role.OWNER, username="owner1")
    make_member(shop, Role.VIEWER, username="viewer1")
    for username, links in (("owner1", 15), ("viewer1", 7)):
        page.goto(f"{live_server.url}/login/")
        page.fill("#id_username", username)
        page.fill("#id_password", "pw-123456")
        page.click("button[type=submit]")
        expect(page.locator("h1")).to_contain_text("پیشخوان")
        nav = page.get_by_role("navigation", name="بخش‌ها")
        expect(nav.locator("a")).to_have_count(links)
        page.get_by_test_id("nav-browser").locator("summary").click()
        expect(page.get_by_role("link", name="کمپین‌های مرورگر")).to_be_visible()
        toggle = page.get_by_test_id("menu-toggle")
        for width in (1366, 390):
            page.set_viewport_size({"width": width, "height": 700})
            if width == 390:  # a phone: the menu folds behind «منو», the first screen is the page's own
                expect(nav).to_be_hidden()
                assert page.locator(".topbar").bounding_box()["height"] <= 80
                _shot(page, f"menu-{username}-{width}-folded")
                toggle.click()
                expect(toggle).to_have_attribute("aria-expanded", "true")
                expect(page.get_by_role("link", name="کمپین‌های مرورگر")).to_be_visible()
            else:
                expect(toggle).to_be_hidden()
            _shot(page, f"menu-{username}-{width}")
            assert axe_violations(page) == [], (username, width)
            overflow = page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")
            assert overflow <= 1, (username, width, overflow)
        page.get_by_role("link", name="کمپین‌های مرورگر").click()
        expect(page.locator("h1")).to_contain_text("کمپین")
        page.set_viewport_size({"width": 1280, "height": 800})
        page.get_by_role("button", name="خروج").click()
