"""The API keys page in Chromium: a member opens it from the menu, makes a read-only key for targets (shown
once), the key reads targets and is refused a write, the member revokes it (after a confirmation sheet that says
the keys made with it are revoked too) and it stops working; axe-clean. Screenshots: var/screenshots/api-keys.png,
api-key-revoke-sheet.png (390 px)."""

import pytest
from playwright.sync_api import expect
from rest_framework.test import APIClient

from campaigns.choices import Role
from campaigns.models import ApiToken
from campaigns.platform.tokens import api_token_create

from ..conftest import make_member, make_workspace
from .axe import axe_violations
from .test_chain_pages import SHOTS, login, shot

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
    page.get_by_test_id("confirm-revoke").click()
    expect(page.get_by_test_id("key-state")).to_have_text("باطل‌شده")
    assert client.get("/api/v1/targets").status_code == 401
    assert ApiToken.objects.get().revoked_at is not None


def test_revoking_a_key_asks_first_naming_the_keys_made_with_it_and_dismissing_keeps_it_live(page, live_server):
    shop = make_workspace("shop")
    reza = make_member(shop, Role.MANAGER, username="reza")
    parent, key = api_token_create(user=reza, workspace=shop, name="سامانه فروش")
    child, child_key = api_token_create(user=reza, workspace=shop, name="انبار", granter=parent)
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {child_key}")
    assert api.get("/api/v1/targets").status_code == 200
    base = live_server.url
    page.set_viewport_size({"width": 390, "height": 844})
    login(page, base, "reza")
    page.goto(f"{base}/api-keys/")
    row = page.locator(f'[data-testid="api-key"][data-prefix="{parent.prefix}"]')
    dialog = page.locator(f"#dlg-revoke-{parent.id}")

    # the first click asks: the sheet names the key and says the keys made with it are revoked too
    row.get_by_test_id("revoke").click()
    expect(dialog).to_be_visible()
    expect(dialog.get_by_role("heading")).to_contain_text("سامانه فروش")
    warning = dialog.get_by_test_id("revoke-warning")
    expect(warning).to_contain_text("برگشت‌پذیر نیست")
    expect(warning).to_contain_text("همهٔ کلیدهایی که با آن ساخته شده‌اند")
    expect(warning).to_contain_text("۱ کلید فعال با آن ساخته شده است")
    box = dialog.bounding_box()
    assert box["width"] >= 388 and box["y"] + box["height"] >= 844 - 2  # a bottom sheet on a phone
    assert axe_violations(page) == []
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "api-key-revoke-sheet.png"))  # the phone's screen, the sheet over the row

    # dismissing (انصراف, then Escape) revokes nothing
    dialog.get_by_test_id("cancel-revoke").click()
    expect(dialog).to_be_hidden()
    row.get_by_test_id("revoke").click()
    expect(dialog).to_be_visible()
    page.keyboard.press("Escape")
    expect(dialog).to_be_hidden()
    page.reload()
    expect(page.get_by_test_id("key-state")).to_have_text(["فعال", "فعال"])
    assert ApiToken.objects.filter(revoked_at__isnull=False).count() == 0
    assert api.get("/api/v1/targets").status_code == 200

    # confirming revokes it and the key made with it
    row.get_by_test_id("revoke").click()
    dialog.get_by_test_id("confirm-revoke").click()
    expect(page.get_by_text("کلید " + parent.prefix + " و ۱ کلیدی که با آن ساخته شده بود نیز باطل شد.")).to_be_visible()
    expect(page.get_by_test_id("key-state")).to_have_count(2)
    for state in page.get_by_test_id("key-state").all():
        expect(state).to_contain_text("باطل‌شده")
    assert ApiToken.objects.filter(revoked_at__isnull=True).count() == 0
    assert api.get("/api/v1/targets").status_code == 401
    assert key and child.granted_by_id == parent.id
