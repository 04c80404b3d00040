"""The API keys page in Chromium: a member opens it from the menu, makes a read-only key for targets (shown
once), the key reads targets and is refused a write, the member revokes it and it stops working; axe-clean.
Screenshot: var/screenshots/api-keys.png."""

import pytest
from playwright.sync_api import expect
from rest_framework.test import APIClient

from campaigns.choices import Role
from campaigns.models import ApiToken

from ..conftest import make_member, make_workspace
from .axe import axe_violations
from .test_chain_pages import login, shot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_member_makes_a_scoped_read_only_key_sees_it_once_and_revokes_it(page, live_server):
    shop = make_workspace("shop")
    make_member(shop, Role.MANAGER, username="reza")
    base = live_server.url
    login(page, base, "reza")
    page.get_by_test_id("nav-api-keys").click()
    expect(page.locator("h1")).to_have_text("کلیدهای API")
    page.fill("#id_name", "سامانه فروش")
    page.get_by_label("همه بخش‌ها").uncheck()
    page.get_by_label("مخاطبان و فهرست‌ها").check()
    page.get_by_label("فقط خواندنی").check()
    page.get_by_role("button", name="ساخت کلید").click()
    key = page.get_by_test_id("new-key").input_value()
    row = page.get_by_test_id("api-key")
    expect(row).to_have_count(1)
    expect(row).to_contain_text("مخاطبان و فهرست‌ها")
    expect(row).to_contain_text("فقط خواندنی")
    expect(row.get_by_test_id("key-state")).to_have_text("فعال")
    assert axe_violations(page) == []
    shot(page, "api-keys")

    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    assert client.get("/api/v1/targets").status_code == 200
    write = client.post("/api/v1/targets", {"name": "سارا", "mobile": "09121230001"}, format="json")
    assert write.status_code == 403 and write.json()["error"]["code"] == "API_KEY_SCOPE"
    assert client.get("/api/v1/workflows").status_code == 403

    page.goto(f"{base}/api-keys/")  # shown once: a new visit has no key in it
    expect(page.get_by_test_id("new-key")).to_have_count(0)
    assert key not in page.content()
    page.get_by_test_id("revoke").click()
    expect(page.get_by_test_id("key-state")).to_have_text("باطل‌شده")
    assert client.get("/api/v1/targets").status_code == 401
    assert ApiToken.objects.get().revoked_at is not None
