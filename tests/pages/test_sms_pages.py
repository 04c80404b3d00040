"""The SMS pages and the Persian admin in a real browser (system Chromium against live_server).

Each page is saved under var/screenshots/ (sms-*.png, admin-*.png) so a person can look at them.
"""

import datetime as dt
import re
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.utils import timezone
from playwright.sync_api import expect

from automation.models import Workflow
from automation.services.enrollment import enroll_subjects
from automation.services.workflows import workflow_create, workflow_graph_save
from campaigns.choices import Role
from campaigns.services.workspaces import membership_set
from sms.models import BlacklistEntry, SmsAttempt, SmsChannelEvent, SmsProviderAccount, SmsSettings

from ..automation.helpers import Driver, end_node, journey, linear_graph, setup_sms, sms_node
from ..conftest import make_actor, make_member, make_target, make_workspace

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SCREENSHOTS = Path("var/screenshots")
PERSIAN_DIGITS = re.compile(r"[۰-۹]")
JALALI = re.compile(r"[۰-۹]{4}/[۰-۹]{2}/[۰-۹]{2}")


def shot(page, name: str) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"{name}.png"), full_page=True)


def login(page, base: str, username: str) -> None:
    page.goto(f"{base}/login/")
    page.fill("#id_username", username)
    page.fill("#id_password", "pw-123456")
    page.click("button[type=submit]")
    expect(page.locator("h1")).to_contain_text("پیشخوان")


def assert_persian_page(page) -> None:
    expect(page.locator("html")).to_have_attribute("dir", "rtl")
    expect(page.locator("html")).to_have_attribute("lang", "fa")


def test_settings_page_adds_a_console_account_makes_it_primary_and_sends_a_test_message(page, live_server):
    shop = make_workspace("shop")
    make_member(shop, Role.OWNER, username="owner1")
    login(page, live_server.url, "owner1")
    page.get_by_test_id("nav-sms").click()
    page.locator(".subnav a", has_text="تنظیمات").click()
    assert_persian_page(page)
    expect(page.get_by_test_id("channel-state")).to_contain_text("ارسال ممکن نیست")

    page.click("button:has-text('افزودن حساب')")
    dialog = page.locator("#dlg-account-new")
    expect(dialog).to_be_visible()
    dialog.locator("#id_name").fill("کنسول آزمایشی")
    dialog.locator("#id_provider").select_option("console")
    expect(dialog.locator("#id_cred_kavenegar__api_key")).to_be_hidden()  # console needs no credentials
    dialog.locator("#id_provider").select_option("melipayamak")  # its inputs come from its credential schema
    expect(dialog.locator("#id_cred_melipayamak__username")).to_be_visible()
    expect(dialog.locator("#id_cred_melipayamak__password")).to_have_attribute("type", "password")
    expect(dialog.locator("#id_cred_kavenegar__api_key")).to_be_hidden()
    shot(page, "sms-settings-account-dialog")
    dialog.locator("#id_provider").select_option("console")
    dialog.locator("#id_senders").fill("3000\n3001")
    dialog.locator("button:has-text('ذخیره حساب')").click()
    expect(page.locator(".flash-success")).to_contain_text("کنسول آزمایشی")
    account = SmsProviderAccount.objects.get(workspace=shop)
    assert account.provider == "console" and account.senders == ["3000", "3001"]
    expect(page.get_by_test_id("account-row")).to_contain_text("۳۰۰۰")

    page.select_option("#id_primary_account", str(account.id))
    page.fill("#id_global_daily_limit", "500")
    page.fill("#id_win_sat_start", "09:00")
    page.fill("#id_win_sat_end", "18:00")
    page.fill("#id_sms_retention_days", "90")
    page.check("#id_notifications_email")
    page.click("button:has-text('ذخیره تنظیمات')")
    expect(page.locator(".flash-success")).to_contain_text("ذخیره شد")
    shop.refresh_from_db()
    assert shop.settings == {"notifications_email": True, "sms_retention_days": 90}
    assert page.input_value("#id_sms_retention_days") == "90" and page.is_checked("#id_notifications_email")
    settings = SmsSettings.objects.get(workspace=shop)
    assert settings.primary_account_id == account.id
    expect(page.get_by_test_id("channel-state")).to_contain_text("باز")
    expect(page.get_by_test_id("account-row")).to_contain_text("اصلی")
    assert page.input_value("#id_global_daily_limit") == "500"  # Latin digits in numeric inputs
    assert shop.automation_settings.global_daily_limit == 500
    assert shop.automation_settings.default_send_window["days"]["sat"] == [["09:00", "18:00"]]
    expect(page.get_by_test_id("webhook-url")).to_contain_text(settings.webhook_token)

    page.fill("#id_opt_out_words", "لغو\nانصراف")  # the reply words, one per line
    page.click("button:has-text('ذخیره کلمه‌ها')")
    expect(page.locator(".flash-success")).to_contain_text("کلمه‌های لغو")
    assert SmsSettings.objects.get(workspace=shop).opt_out_words == ["لغو", "انصراف"]
    assert page.input_value("#id_opt_out_words") == "لغو\nانصراف"

    page.click("button:has-text('ارسال آزمایشی')")
    test_dialog = page.locator(f"#dlg-test-{account.id}")
    test_dialog.locator("input[name=number]").fill("۰۹۱۲۱۲۳۴۵۶۷")
    test_dialog.locator("button:has-text('ارسال')").click()
    expect(test_dialog.get_by_test_id("test-result")).to_contain_text("تحویل شد")
    assert SmsChannelEvent.objects.filter(workspace=shop, type="test_message", data__status="submitted").exists()
    shot(page, "sms-settings-test-message")
    page.keyboard.press("Escape")

    old_token = settings.webhook_token
    page.once("dialog", lambda d: d.accept())
    page.click("button:has-text('ساخت نشانی تازه')")
    expect(page.locator(".flash-success")).to_contain_text("وب‌هوک")
    settings.refresh_from_db()
    assert settings.webhook_token != old_token
    shot(page, "sms-settings")


def test_credentials_are_write_only_and_the_circuit_can_be_resumed(page, live_server):
    shop = make_workspace("shop")
    make_member(shop, Role.OWNER, username="owner2")
    settings = setup_sms(shop, provider="kavenegar", credentials={"api_key": "SECRET-KEY-123"})
    SmsSettings.objects.filter(pk=settings.pk).update(
        paused_until=timezone.now() + dt.timedelta(minutes=20), pause_reason="اعتبار پنل تمام شد"
    )
    SmsProviderAccount.objects.filter(pk=settings.primary_account_id).update(
        credit=12_000, credit_checked_at=timezone.now()
    )
    login(page, live_server.url, "owner2")
    page.goto(f"{live_server.url}/sms/settings/")
    expect(page.get_by_test_id("channel-state")).to_contain_text("اعتبار پنل تمام شد")
    assert JALALI.search(page.get_by_test_id("channel-state").inner_text())
    shot(page, "sms-settings-circuit-open")
    assert "SECRET-KEY-123" not in page.content()
    page.get_by_test_id("account-row").locator("a").click()
    assert "SECRET-KEY-123" not in page.content()
    expect(page.locator("#id_cred_kavenegar__api_key")).to_have_value("")
    page.fill("#id_name", "کاوه‌نگار اصلی")
    page.click("button:has-text('ذخیره')")
    expect(page.locator(".flash-success")).to_contain_text("کاوه‌نگار اصلی")
    account = SmsProviderAccount.objects.get(workspace=shop)
    assert '"SECRET-KEY-123"' in account.credentials  # an empty field keeps the stored key
    page.click("button:has-text('مشکل رفع شد، ادامه')")
    expect(page.locator(".flash-success")).to_contain_text("دوباره باز شد")
    assert SmsSettings.objects.get(pk=settings.pk).paused_until is None
    assert SmsChannelEvent.objects.filter(workspace=shop, type="manual_resume").exists()
    # each account's credit in its unit: Kavenegar's in rials (below the threshold: red), Melipayamak's in messages
    SmsProviderAccount.objects.create(
        workspace=shop, name="ملی", provider="melipayamak", credit=3_500, credit_checked_at=timezone.now()
    )
    page.goto(f"{live_server.url}/sms/settings/")
    expect(page.locator("li", has_text="ادامه به دست کاربر (owner2)")).to_be_visible()  # the type's Persian label
    assert "manual_resume" not in page.content()
    rows = page.get_by_test_id("account-row")
    kave_credit = rows.filter(has_text="کاوه‌نگار").get_by_test_id("credit")
    meli_credit = rows.filter(has_text="ملی‌پیامک").get_by_test_id("credit")
    expect(kave_credit).to_contain_text("۱۲٬۰۰۰ ریال")
    expect(kave_credit.get_by_test_id("credit-low")).to_be_visible()
    expect(meli_credit).to_contain_text("۳٬۵۰۰ پیامک")
    expect(meli_credit.get_by_test_id("credit-low")).to_have_count(0)
    shot(page, "sms-settings-events")


def test_blacklist_add_search_deactivate_reactivate_import_export(page, live_server, tmp_path):
    shop = make_workspace("shop")
    make_member(shop, Role.MANAGER, username="manager1")
    login(page, live_server.url, "manager1")
    page.get_by_test_id("nav-sms").click()
    page.locator(".subnav a", has_text="لیست سیاه").click()
    assert_persian_page(page)

    page.click("button:has-text('افزودن شماره')")
    page.fill("#id_number", "۰۹۱۲ ۱۱۱ ۲۲۳۳")
    page.fill("#id_description", "درخواست تلفنی")
    page.click("#dlg-bl-add button:has-text('افزودن')")
    expect(page.locator(".flash-success")).to_contain_text("0912 111 2233")
    row = page.get_by_test_id("blacklist-row").first
    expect(row).to_contain_text("0912 111 2233")
    assert JALALI.search(row.inner_text())

    page.click("button:has-text('افزودن شماره')")
    page.fill("#id_number", "09121112233")
    page.click("#dlg-bl-add button:has-text('افزودن')")
    expect(page.locator("#dlg-bl-add")).to_contain_text("از قبل در لیست سیاه")  # the service's conflict, on the form
    page.keyboard.press("Escape")

    page.click("button:has-text('ورود از فایل')")
    csv_file = tmp_path / "numbers.csv"
    csv_file.write_text("number\n09125550001\n+989125550002\nخراب\n", encoding="utf-8")
    page.set_input_files("#id_file", str(csv_file))
    page.click("#dlg-bl-import button:has-text('ورود')")
    expect(page.locator(".flash-success")).to_contain_text("افزوده: ۲")
    expect(page.get_by_test_id("blacklist-count")).to_have_text("۳ شماره")

    page.fill("#bl-q", "5550002")  # htmx search as you type
    expect(page.get_by_test_id("blacklist-count")).to_have_text("۱ شماره")
    expect(page.get_by_test_id("blacklist-row")).to_contain_text("0912 555 0002")
    shot(page, "sms-blacklist-search")

    page.fill("#bl-q", "1112233")
    expect(page.get_by_test_id("blacklist-row")).to_contain_text("0912 111 2233")
    expect(page.get_by_test_id("blacklist-count")).to_have_text("۱ شماره")
    page.click("button:has-text('غیرفعال کردن')")
    expect(page.get_by_test_id("blacklist-row").locator(".badge-inactive")).to_be_visible()
    assert not BlacklistEntry.objects.get(workspace=shop, value="+989121112233").is_active
    page.click("button:has-text('فعال کردن دوباره')")
    expect(page.get_by_test_id("blacklist-row").locator(".badge-active")).to_be_visible()
    assert BlacklistEntry.objects.get(workspace=shop, value="+989121112233").is_active

    with page.expect_download() as download:
        page.click("text=خروجی CSV")
    exported = Path(download.value.path()).read_text(encoding="utf-8")
    assert "+989121112233" in exported
    page.fill("#bl-q", "")
    expect(page.get_by_test_id("blacklist-count")).to_have_text("۳ شماره")
    shot(page, "sms-blacklist")


def test_attempt_log_filters_by_status_campaign_number_and_jalali_date(page, live_server):
    shop = make_workspace("shop")
    user = make_member(shop, Role.OWNER, username="owner3")
    actor = make_actor(shop, user=user)
    setup_sms(shop)
    first = journey(actor, linear_graph(sms_node(), end_node()))
    a, b = make_target(shop, mobile="+989120000101"), make_target(shop, mobile="+989120000102")
    enroll_subjects(actor=actor, campaign_id=first.id, target_ids=[a.id, b.id])
    Driver().tick(timezone.now())
    attempts = list(SmsAttempt.objects.filter(workspace=shop))
    assert len(attempts) == 2
    SmsAttempt.objects.filter(phone="+989120000102").update(status="failed")

    login(page, live_server.url, "owner3")
    page.get_by_test_id("nav-sms").click()
    expect(page).to_have_url(re.compile(r"/sms/log/"))
    assert_persian_page(page)
    expect(page.get_by_test_id("attempt-row")).to_have_count(2)
    expect(page.get_by_test_id("attempt-count")).to_have_text("۲ ردیف در گزارش")
    assert JALALI.search(page.get_by_test_id("attempt-row").first.inner_text())
    shot(page, "sms-attempt-log")

    page.select_option("#id_status", "failed")
    page.click("button:has-text('نمایش')")
    expect(page.get_by_test_id("attempt-row")).to_have_count(1)
    expect(page.get_by_test_id("attempt-row")).to_contain_text("0912 000 0102")
    expect(page).to_have_url(re.compile(r"status=failed"))

    page.select_option("#id_status", "")
    page.fill("#id_number", "09120000101")
    page.select_option("#id_campaign", str(first.id))
    page.click("button:has-text('نمایش')")
    expect(page.get_by_test_id("attempt-row")).to_have_count(1)
    expect(page.get_by_test_id("attempt-row")).to_contain_text("0912 000 0101")

    page.fill("#id_number", "")
    page.fill("#id_since", "1390/01/01")
    page.fill("#id_until", "1390/12/29")  # a Jalali year long past: nothing
    page.click("button:has-text('نمایش')")
    expect(page.get_by_test_id("attempt-row")).to_have_count(0)
    page.fill("#id_until", "")
    page.click("button:has-text('نمایش')")
    expect(page.get_by_test_id("attempt-row")).to_have_count(2)
    shot(page, "sms-attempt-log-filtered")


def test_operator_sees_no_sms_menu_and_the_pages_answer_403(page, live_server, client):
    shop = make_workspace("shop")
    make_member(shop, Role.OPERATOR, username="operator1")
    login(page, live_server.url, "operator1")
    expect(page.get_by_test_id("nav-sms")).to_have_count(0)
    for path in ("/sms/", "/sms/log/", "/sms/blacklist/", "/sms/templates/", "/sms/settings/"):
        response = page.goto(f"{live_server.url}{path}")
        assert response.status == 403, path
        expect(page.locator("h1")).to_have_text("دسترسی ندارید")
    manager = make_member(shop, Role.MANAGER)
    client.force_login(manager)
    assert client.get("/sms/log/").status_code == 200
    assert client.get("/sms/settings/").status_code == 403  # settings: owners and admins only


def test_sms_templates_create_edit_delete(page, live_server):
    shop = make_workspace("shop")
    make_member(shop, Role.MANAGER, username="manager2")
    login(page, live_server.url, "manager2")
    page.goto(f"{live_server.url}/sms/templates/")
    assert_persian_page(page)
    page.click("text=قالب جدید")
    page.fill("#id_name", "خوشامد")
    page.fill("#id_body", "سلام {name}، به باشگاه خوش آمدید.")
    page.click("button:has-text('ذخیره')")
    expect(page.get_by_test_id("template-row")).to_contain_text("خوشامد")
    assert PERSIAN_DIGITS.search(page.get_by_test_id("template-row").inner_text())
    page.get_by_test_id("template-row").locator("a").click()
    page.fill("#id_name", "خوشامد ۲")
    page.click("button:has-text('ذخیره')")
    expect(page.get_by_test_id("template-row")).to_contain_text("خوشامد ۲")
    shot(page, "sms-templates")
    page.get_by_test_id("template-row").locator("a").click()
    page.once("dialog", lambda d: d.accept())
    page.click("button:has-text('حذف قالب')")
    expect(page.locator(".flash-success")).to_contain_text("حذف شد")
    expect(page.get_by_test_id("template-row")).to_have_count(0)


def test_bottom_sheet_dialog_on_a_narrow_screen(chromium, live_server):
    shop = make_workspace("shop")
    make_member(shop, Role.MANAGER, username="phone1")
    context = chromium.new_context(locale="fa-IR", viewport={"width": 390, "height": 800})
    page = context.new_page()
    try:
        login(page, live_server.url, "phone1")
        page.goto(f"{live_server.url}/sms/blacklist/")
        page.click("button:has-text('افزودن شماره')")
        box = page.locator("#dlg-bl-add").bounding_box()
        assert box["width"] >= 385 and abs(box["y"] + box["height"] - 800) <= 2  # full width, on the bottom
        shot(page, "sms-blacklist-sheet-narrow")
    finally:
        context.close()


# --- the admin -------------------------------------------------------------------------------------------
@pytest.fixture
def english_page(chromium):
    context = chromium.new_context(
        locale="en-US",
        extra_http_headers={"Accept-Language": "en-US,en;q=0.9"},
        viewport={"width": 1280, "height": 800},
    )
    page = context.new_page()
    page.set_default_timeout(15000)
    try:
        yield page
    finally:
        context.close()


def admin_login(page, base: str, username: str) -> None:
    page.goto(f"{base}/admin/login/")
    page.fill("#id_username", username)
    page.fill("#id_password", "pw-123456")
    page.click("input[type=submit]")
    expect(page.locator("#user-tools")).to_be_visible()


def _staff(workspace, username: str):
    user = get_user_model().objects.create_user(username, password="pw-123456", is_staff=True, is_superuser=True)
    membership_set(workspace=workspace, user=user, role=Role.OWNER)
    return user


def test_admin_and_pages_stay_persian_for_an_english_browser(english_page, live_server):
    page = english_page
    shop = make_workspace("shop")
    _staff(shop, "staff1")
    admin_login(page, live_server.url, "staff1")
    assert_persian_page(page)
    expect(page.locator("#user-tools")).to_contain_text("خروج")
    expect(page.locator("body")).not_to_contain_text("Log out")
    shot(page, "admin-index-english-browser")
    page.goto(f"{live_server.url}/")  # the staff pages too
    expect(page.locator("h1")).to_contain_text("پیشخوان")
    assert_persian_page(page)
    page.goto(f"{live_server.url}/sms/log/")
    assert_persian_page(page)

    page.goto(f"{live_server.url}/admin/")
    page.select_option("#language-switch select", "en")  # the switch may offer English, on purpose only
    expect(page.locator("html")).to_have_attribute("lang", "en")
    expect(page.locator("#user-tools")).to_contain_text("Log out")
    page.select_option("#language-switch select", "fa")
    expect(page.locator("html")).to_have_attribute("dir", "rtl")


def test_admin_publish_action_publishes_a_draft_and_reports_a_failing_one(english_page, live_server):
    page = english_page
    shop = make_workspace("shop")
    user = _staff(shop, "staff2")
    actor = make_actor(shop, user=user)
    good = workflow_create(actor=actor, name="سفر کامل")
    _, errors = workflow_graph_save(actor=actor, workflow_id=good.id, graph_data=linear_graph(sms_node(), end_node()))
    assert not errors
    broken = workflow_create(actor=actor, name="سفر ناقص")
    workflow_graph_save(actor=actor, workflow_id=broken.id, graph_data=linear_graph(sms_node(body=""), end_node()))
    admin_login(page, live_server.url, "staff2")
    page.goto(f"{live_server.url}/admin/automation/workflow/")
    page.check(f"input[name=_selected_action][value='{good.id}']")
    page.select_option("select[name=action]", "publish_draft")
    page.click("button[name=index]")
    expect(page.locator(".messagelist .success")).to_contain_text("منتشر شد")
    assert Workflow.objects.get(pk=good.pk).published_version_id is not None

    page.check(f"input[name=_selected_action][value='{broken.id}']")
    page.select_option("select[name=action]", "publish_draft")
    page.click("button[name=index]")
    expect(page.locator(".messagelist .error")).to_contain_text("سفر ناقص")
    assert Workflow.objects.get(pk=broken.pk).published_version_id is None
    shot(page, "admin-workflow-publish")


def test_admin_start_and_pause_a_journey_campaign_through_its_service(english_page, live_server):
    page = english_page
    shop = make_workspace("shop")
    user = _staff(shop, "staff3")
    actor = make_actor(shop, user=user)
    campaign = journey(actor, linear_graph(sms_node(), end_node()), activate=False)
    admin_login(page, live_server.url, "staff3")
    page.goto(f"{live_server.url}/admin/campaigns/campaign/")

    def run(action: str) -> None:
        page.check(f"input[name=_selected_action][value='{campaign.id}']")
        page.select_option("select[name=action]", action)
        page.click("button[name=index]")

    run("start_campaigns")  # no SMS account yet: the journey service refuses, shown as a message
    expect(page.locator(".messagelist .error")).to_be_visible()
    campaign.refresh_from_db()
    assert campaign.status == "draft"
    setup_sms(shop)
    run("start_campaigns")
    expect(page.locator(".messagelist .success")).to_contain_text("شروع شد")
    campaign.refresh_from_db()
    assert campaign.status == "active"
    run("pause_campaigns")
    expect(page.locator(".messagelist .success")).to_contain_text("متوقف شد")
    campaign.refresh_from_db()
    assert campaign.status == "paused"
    shot(page, "admin-campaign-actions")
