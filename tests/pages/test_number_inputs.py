"""Numbers typed in Persian digits on the staff pages (docs/ui.md "Numbers": inputs of numbers are left to right,
take Persian or Latin digits and store Latin ones). Chromium's ``type=number`` drops a Persian keyboard's «۱۲۳»
as it is typed, so no page has one: every number input is a text input with the numeric keypad, and what is
typed in Persian (or Arabic-Indic) digits is saved as its number — the journey's daily limit, a wait's amount in
the builder, auto-enroll, the SMS settings, the browser forms and a chain campaign's form; the admin's forms too
(an SMS account's limits).
Screenshots: var/screenshots/number-inputs-*.png."""

from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from playwright.sync_api import expect

from campaigns.choices import Role
from sms.models import SmsProviderAccount

from ..automation.helpers import setup_sms
from ..conftest import make_member, make_workspace
from .axe import axe_violations
from .staff_site import PAGES, PASSWORD, staff_site_create

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SHOTS = Path("var/screenshots")
# every number input of a page, its editors' dialogs too: (name, type, inputmode)
NUMBER_INPUTS = """() => [...document.querySelectorAll('input')]
  .filter(i => i.type === 'number' || i.inputMode === 'numeric' || i.classList.contains('num'))
  .map(i => [i.name, i.type, i.inputMode])"""


def type_in(field, text: str) -> None:
    """Type as a keyboard does, key by key (what ``type=number`` filters), after clearing the field."""
    field.fill("")
    field.press_sequentially(text)


def sign_in(page, base: str, username: str) -> None:
    page.goto(f"{base}/login/")
    page.fill("#id_username", username)
    page.fill("#id_password", PASSWORD)
    page.click("button[type=submit]")
    expect(page.locator("h1")).to_contain_text("پیشخوان")


def test_no_staff_page_has_a_number_input_that_drops_persian_digits(page, live_server, settings, tmp_path):
    settings.VAR_DIR = tmp_path  # demo_data keeps its generated password there
    settings.BROWSER_ALLOWED_PRIVATE_HOSTS = ["127.0.0.1:8766"]
    site = staff_site_create()
    sign_in(page, live_server.url, site.username)
    seen, number_typed = {}, []
    for name in PAGES:
        page.goto(live_server.url + site.url(name))
        inputs = page.evaluate(NUMBER_INPUTS)
        seen[name] = inputs
        number_typed += [(name, field) for field, kind, _ in inputs if kind == "number"]
        for field in page.locator("input[inputmode=numeric]:visible:enabled").all():
            type_in(field, "۱۲۳")
            assert field.input_value() == "۱۲۳", (name, field.get_attribute("name"))
    assert number_typed == [], number_typed
    for name, field in (("workflow-builder", "amount"), ("sms-settings", "global_daily_limit")):
        assert field in [f for f, _, _ in seen[name]], (name, seen[name])  # the walk reached them


def test_numbers_typed_in_persian_digits_are_saved_on_every_form(page, live_server, settings, tmp_path):
    from automation.models import AutoEnrollRule, WorkflowVersion
    from campaigns.models import Campaign, Target
    from campaigns.platform.models import ApiToken
    from workers.models import BrowserAccount, CampaignPlatform

    settings.VAR_DIR = tmp_path
    settings.BROWSER_ALLOWED_PRIVATE_HOSTS = ["127.0.0.1:8766", "127.0.0.1:3128"]
    site = staff_site_create()
    base, rows = live_server.url, site.rows
    sign_in(page, base, site.username)

    # a journey's daily limit
    page.goto(base + site.url("journey-campaign-edit"))
    type_in(page.locator("#id_daily_limit"), "۱۵۰")
    page.get_by_test_id("campaign-save").click()
    expect(page.locator(".flash-success")).to_be_visible()
    assert Campaign.objects.get(pk=rows["draft_journey"].pk).daily_limit == 150
    page.goto(base + site.url("journey-campaign-edit"))
    expect(page.locator("#id_daily_limit")).to_have_value("150")  # shown back in Latin digits, left to right
    expect(page.locator("#id_daily_limit")).to_have_attribute("dir", "ltr")

    # a wait's amount in the builder
    page.goto(base + site.url("workflow-builder"))
    editor = page.locator("dialog:has(input[name=amount])").first
    path = editor.get_attribute("data-testid").removeprefix("editor-")
    page.get_by_test_id(f"edit-{path}").click()
    type_in(editor.locator("input[name=amount]"), "۳")
    page.set_viewport_size({"width": 390, "height": 900})
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "number-inputs-wait-editor-390.png"))
    page.set_viewport_size({"width": 1366, "height": 900})
    editor.get_by_test_id("save-step").click()
    expect(editor).to_be_hidden()
    expect(page.locator(f'[data-testid=step][data-path="{path}"]')).to_contain_text("۳")
    draft = WorkflowVersion.objects.get(workflow=rows["draft_workflow"], status="draft")
    assert 3 in [n.config.get("amount") for n in draft.nodes.filter(type="wait")]

    # auto-enroll: a negative priority and the daily cap
    page.goto(base + site.url("journey-campaign-auto-enroll"))
    type_in(page.locator("#id_priority_min"), "-۲")
    type_in(page.locator("#id_daily_cap"), "٧٥")  # Arabic-Indic digits too
    page.get_by_test_id("auto-enroll-save").click()
    expect(page.locator(".flash-success")).to_be_visible()
    rule = AutoEnrollRule.objects.get(campaign=rows["journey"])
    assert (rule.daily_cap, rule.filters["priority_min"]) == (75, -2)

    # the SMS settings
    page.goto(base + site.url("sms-settings"))
    type_in(page.locator("#id_global_daily_limit"), "۵۰۰")
    type_in(page.locator("#id_frequency_cap_day"), "۳")
    page.click("button:has-text('ذخیره تنظیمات')")
    expect(page.locator(".flash-success")).to_contain_text("ذخیره شد")
    automation_settings = site.workspace.__class__.objects.get(pk=site.workspace.pk).automation_settings
    assert automation_settings.global_daily_limit == 500
    page.set_viewport_size({"width": 390, "height": 900})
    page.locator("#id_global_daily_limit").locator("xpath=ancestor::form").screenshot(
        path=str(SHOTS / "number-inputs-sms-settings-390.png")
    )
    page.set_viewport_size({"width": 1366, "height": 900})

    # the browser forms: an account's screen width, a draft campaign's pacing
    page.goto(base + site.url("browser-account-edit"))
    type_in(page.locator("#id_viewport_width"), "۱۰۲۴")
    page.click("[data-testid=account-form] button[type=submit]")
    expect(page.locator(".flash-success")).to_be_visible()
    assert BrowserAccount.objects.get(pk=rows["browser_account"].pk).viewport_width == 1024
    page.goto(base + site.url("browser-campaign-edit"))
    type_in(page.locator("#id_pacing_seconds"), "۴۵")
    page.get_by_test_id("save").click()
    expect(page.locator(".flash-success")).to_be_visible()
    platform = CampaignPlatform.objects.get(campaign=rows["draft_browser_campaign"])
    assert platform.metadata["pacing_seconds"] == 45

    # a target's priority and an API key's days
    page.goto(base + site.url("target-edit"))
    type_in(page.locator("#id_priority"), "۷")
    page.click("button:has-text('ذخیره')")
    expect(page.locator(".flash-success")).to_be_visible()
    assert Target.objects.get(pk=rows["target"].pk).priority == 7
    page.goto(base + site.url("api-keys"))
    type_in(page.locator("#id_days"), "۳۰")
    page.click("button:has-text('ساخت کلید')")
    expect(page.locator(".flash-success, [data-testid=new-key]").first).to_be_visible()
    token = ApiToken.objects.filter(user__username=site.username).latest("pk")
    assert round((token.expires_at - token.created_at).total_seconds() / 86400) == 30


def test_a_number_typed_in_persian_digits_is_saved_in_the_admin(page, live_server):
    shop = make_workspace("shop")
    make_member(shop, Role.OWNER, username="root")
    get_user_model().objects.filter(username="root").update(is_staff=True, is_superuser=True)
    account = setup_sms(shop).primary_account
    page.goto(f"{live_server.url}/admin/login/?next=/admin/sms/smsprovideraccount/{account.pk}/change/")
    page.fill("#id_username", "root")
    page.fill("#id_password", "pw-123456")
    page.click("input[type=submit]")
    limit = page.locator("#id_max_messages_per_minute")
    expect(limit).to_have_attribute("type", "text")
    expect(limit).to_have_attribute("dir", "ltr")
    expect(limit).to_have_attribute("inputmode", "numeric")
    type_in(limit, "۱۲۰")
    expect(limit).to_have_value("۱۲۰")  # kept as typed (a type=number input posted nothing)
    type_in(page.locator("#id_max_requests_per_second"), "٣")  # Arabic-Indic digits too
    page.click("input[name=_continue]")
    expect(page.locator(".messagelist .success")).to_be_visible()
    account = SmsProviderAccount.objects.get(pk=account.pk)
    assert (account.max_messages_per_minute, account.max_requests_per_second) == (120, 3)
    expect(limit).to_have_value("120")  # shown back as stored, in Latin digits
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "number-inputs-admin-sms-account.png"), full_page=True)
    assert [v for v in axe_violations(page) if v["impact"] == "critical"] == []
