"""Workflow pages in Chromium: build a journey in the step-list builder, publish it, read its versions.

Screenshots of every page land in var/screenshots/ (look at them after a run)."""

import re
from pathlib import Path

import pytest
from playwright.sync_api import expect

from automation.builder.sequence import Condition, End, Send, Wait, decompile
from automation.engine.graph import graph_of_version
from automation.models import Workflow
from campaigns.choices import Role

from ..conftest import make_member, make_target, make_workspace
from .axe import axe_violations

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SHOTS = Path("var/screenshots")
JALALI_DATE = re.compile(r"[۰-۹]{4}/[۰-۹]{2}/[۰-۹]{2}")


def shot(page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)


def login(page, base: str, username: str) -> None:
    page.goto(f"{base}/login/")
    page.fill("#id_username", username)
    page.fill("#id_password", "pw-123456")
    page.click("button[type=submit]")
    expect(page.locator("h1")).to_contain_text("پیشخوان")


KINDS = {"ارسال پیامک": "action", "انتظار": "wait", "شرط": "condition", "پایان": "end"}


def add_step(page, at: str, label: str, *, keep_open: bool = False):
    """Add a step from the menu; its editor opens at once (closed again unless ``keep_open``)."""
    menu = page.get_by_test_id(f"add-{at}")
    menu.locator("summary").click()
    menu.get_by_role("button", name=label, exact=True).click()
    expect(step(page, at)).to_have_attribute("data-kind", KINDS[label])  # the list was swapped in
    dialog = page.get_by_test_id(f"editor-{at}")
    expect(dialog).to_be_visible()
    if not keep_open:
        dialog.get_by_role("button", name="بستن").click()
        expect(dialog).to_be_hidden()
    return dialog


def edit(page, path: str):
    page.get_by_test_id(f"edit-{path}").click()
    dialog = page.get_by_test_id(f"editor-{path}")
    expect(dialog).to_be_visible()
    return dialog


def save(dialog) -> None:
    dialog.get_by_test_id("save-step").click()
    expect(dialog).to_be_hidden()


def step(page, path: str):
    return page.locator(f'[data-testid=step][data-path="{path}"]')


def test_build_publish_and_read_a_journey(page, live_server):
    shop = make_workspace("shop")
    make_member(shop, Role.MANAGER, username="mina")
    make_target(shop, name="سارا احمدی", first_name="سارا")
    login(page, live_server.url, "mina")

    page.get_by_test_id("nav-automation").click()
    expect(page.locator("h1")).to_contain_text("گردش‌کارها")
    expect(page.locator("html")).to_have_attribute("dir", "rtl")
    shot(page, "workflow-list-empty")
    page.get_by_role("link", name="گردش‌کار تازه").click()
    page.fill("#id_name", "خوش‌آمد مشتریان")
    shot(page, "workflow-new")
    page.get_by_role("button", name="ساخت و باز کردن ویرایشگر").click()
    expect(page.get_by_test_id("builder-version")).to_contain_text("نسخه ۱")

    # 1. SMS: a draft saves incomplete; the problem links to its step
    add_step(page, "0", "ارسال پیامک")
    expect(step(page, "0")).to_have_class(re.compile("has-problem"))
    problem = page.get_by_test_id("problems").get_by_role("link", name=re.compile("متن پیامک لازم است"))
    expect(page.get_by_test_id("publish")).to_be_disabled()
    problem.click()
    expect(page).to_have_url(re.compile(r"#step-0$"))
    expect(step(page, "0")).to_be_in_viewport()
    dialog = edit(page, "0")
    dialog.locator("textarea").fill("سلام ")
    dialog.get_by_role("button", name="نام کوچک (یا نام کامل)").click()
    expect(dialog.locator("textarea")).to_have_value("سلام {target.first_name}")
    expect(dialog.get_by_test_id("preview-text")).to_have_text("سلام سارا")
    expect(dialog.get_by_test_id("segments")).to_contain_text("۹ نویسه، ۱ پیامک")
    dialog.locator("input[name=retry_max_attempts]").fill("2")
    shot(page, "workflow-builder-sms-editor")
    save(dialog)
    expect(step(page, "0")).to_contain_text("سلام {target.first_name}")
    expect(step(page, "0")).not_to_have_class(re.compile("has-problem"))

    # 2. wait two days
    add_step(page, "1", "انتظار")
    dialog = edit(page, "1")
    amount = dialog.locator("input[name=amount]")
    amount.fill("2")
    assert amount.get_attribute("dir") == "ltr"
    save(dialog)
    expect(step(page, "1")).to_contain_text("۲ روز")

    # 3. condition: interested → yes (the end it took over), else a reminder SMS and an end
    add_step(page, "2", "شرط")
    dialog = edit(page, "2")
    dialog.locator("select[name=rule_field_0]").select_option("target.status")
    dialog.locator("select[name=rule_op_0]").select_option("in")
    dialog.locator("input[name=rule_value_0]").fill("interested")
    save(dialog)
    expect(step(page, "2")).to_contain_text("وضعیت مخاطب یکی از interested")
    add_step(page, "2.no.0", "ارسال پیامک")
    dialog = edit(page, "2.no.0")
    dialog.locator("textarea").fill("یادآوری: هنوز در خدمتیم.")
    save(dialog)
    expect(page.get_by_test_id("problems")).to_contain_text("به جایی وصل نیست")
    add_step(page, "2.no.1", "پایان")
    expect(page.get_by_test_id("problems")).to_contain_text("ایرادی نیست")
    shot(page, "workflow-builder")

    page.fill("#publish-note", "نسخه اول")
    page.get_by_test_id("publish").click()
    expect(page.locator(".flash-success")).to_contain_text("نسخه ۱ منتشر شد")
    row = page.get_by_test_id("version-1")
    expect(row).to_contain_text("منتشرشده")
    expect(row).to_contain_text("نسخه اول")
    assert JALALI_DATE.search(row.get_by_test_id("published-at").inner_text())
    expect(page.locator("html")).to_have_attribute("dir", "rtl")
    shot(page, "workflow-detail")

    workflow = Workflow.objects.get(workspace=shop)
    sequence = decompile(graph_of_version(workflow.published_version))
    sms, wait, condition = sequence.steps
    assert isinstance(sms, Send) and sms.config["body"] == "سلام {target.first_name}" and sms.retry.max_attempts == 2
    assert isinstance(wait, Wait) and wait.config == {"mode": "duration", "amount": 2, "unit": "days"}
    assert isinstance(condition, Condition) and [type(s) for s in condition.yes] == [End]
    assert [type(s) for s in condition.no] == [Send, End]

    # a published version is read-only in the builder; a new draft opens it again, and the diff shows text changes
    page.get_by_role("link", name="ویرایشگر").click()
    expect(page.get_by_test_id("builder")).to_contain_text("منتشر شده و دیگر تغییر نمی‌کند")
    expect(page.get_by_test_id("edit-0")).to_have_count(0)
    shot(page, "workflow-builder-published")
    page.get_by_role("button", name="پیش‌نویس تازه").click()
    expect(page.get_by_test_id("builder-version")).to_contain_text("نسخه ۲")
    dialog = edit(page, "0")
    dialog.locator("textarea").fill("درود {target.first_name}")
    save(dialog)
    page.get_by_role("link", name="جزئیات و نسخه‌ها").click()
    page.get_by_role("button", name="مقایسه").click()
    diff = page.get_by_test_id("diff")
    expect(diff.locator("del")).to_contain_text("سلام")
    expect(diff.locator("ins")).to_contain_text("درود")
    shot(page, "workflow-detail-diff")
    page.get_by_role("link", name="همه گردش‌کارها").click()
    expect(page.get_by_test_id("workflow-table")).to_contain_text("نسخه ۱")
    shot(page, "workflow-list")

    # narrow screen: the step editor is a bottom sheet
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(f"{live_server.url}/automation/workflows/{workflow.id}/builder/")
    dialog = edit(page, "1")
    box = dialog.bounding_box()
    assert box["y"] + box["height"] >= 844 - 2 and box["width"] >= 388
    shot(page, "workflow-builder-narrow-sheet")


def test_viewer_has_no_automation_menu_and_gets_403(page, live_server):
    shop = make_workspace("shop")
    make_member(shop, Role.VIEWER, username="vida")
    login(page, live_server.url, "vida")
    expect(page.get_by_test_id("nav-automation")).to_have_count(0)
    response = page.goto(f"{live_server.url}/automation/workflows/")
    assert response.status == 403
    expect(page.locator("html")).to_have_attribute("dir", "rtl")
    shot(page, "workflow-403")


def test_a_wait_until_a_jalali_moment(page, live_server):
    """The "until" wait is typed as a Jalali date and time in the workspace's zone and shown back the same way;
    what is stored is the local ISO time the engine reads."""
    shop = make_workspace("shop")
    make_member(shop, Role.MANAGER, username="mina")
    login(page, live_server.url, "mina")
    page.goto(f"{live_server.url}/automation/workflows/new/")
    page.fill("#id_name", "جشنواره یلدا")
    page.get_by_role("button", name="ساخت و باز کردن ویرایشگر").click()
    expect(page.get_by_test_id("builder-version")).to_contain_text("نسخه ۱")
    add_step(page, "0", "انتظار")

    dialog = edit(page, "0")
    dialog.locator("input[name=mode][value=until]").check()
    dialog.locator("input[name=at]").fill("۱۴۰۵/۱۳/۰۱ ۰۹:۰۰")  # no 13th month
    save(dialog)
    expect(page.get_by_test_id("problems")).to_contain_text("زمان یا منطقه زمانی انتظار نامعتبر است")

    dialog = edit(page, "0")
    expect(dialog.locator("input[name=at]")).to_have_value("۱۴۰۵/۱۳/۰۱ ۰۹:۰۰")  # kept to be corrected
    dialog.locator("input[name=at]").fill("۱۴۰۵/۰۹/۳۰ ۱۸:۳۰")
    shot(page, "workflow-builder-wait-until")
    save(dialog)
    expect(step(page, "0")).to_contain_text("تا ۱۴۰۵/۰۹/۳۰ ۱۸:۳۰")
    workflow = Workflow.objects.get(workspace=shop)
    (wait,) = [s for s in decompile(graph_of_version(workflow.versions.get())).steps if isinstance(s, Wait)]
    assert wait.config == {"mode": "until", "at": "2026-12-21T18:30", "timezone": shop.time_zone}
    dialog = edit(page, "0")
    expect(dialog.locator("input[name=at]")).to_have_value("1405/09/30 18:30")


def test_a_built_in_templates_waits_are_named_in_persian_digits_each_by_what_it_waits_for(page, live_server):
    """«معرفی سه‌مرحله‌ای» has two 30-day waits: named apart (the migration step's «برود به …» lists both) and in
    Persian digits."""
    shop = make_workspace("shop")
    make_member(shop, Role.MANAGER, username="mina")
    login(page, live_server.url, "mina")
    page.goto(f"{live_server.url}/automation/workflows/new/")
    page.fill("#id_name", "سفر آزمایشی")  # a title whose badge reaches the line end at 390 px
    page.get_by_text("معرفی سه‌مرحله‌ای").click()
    page.get_by_role("button", name="ساخت و باز کردن ویرایشگر").click()
    waits = page.locator("[data-testid=step][data-kind=wait] .step-title")
    expect(waits).to_have_count(2)
    names = [n.strip() for n in waits.all_inner_texts()]
    assert names == ["۳۰ روز تا یادآوری", "۳۰ روز تا پیام پایانی"], names
    assert axe_violations(page) == []
    # at 390 px the title's version badge («نسخه ۱، پیش‌نویس») stays whole, not split across two lines
    page.set_viewport_size({"width": 390, "height": 900})
    assert page.get_by_test_id("builder-version").evaluate("e => e.getClientRects().length") == 1


def test_the_send_window_inputs_hint_their_shape_without_latin_letters_or_digits(page, live_server):
    shop = make_workspace("shop")
    make_member(shop, Role.MANAGER, username="mina")
    login(page, live_server.url, "mina")
    page.goto(f"{live_server.url}/automation/workflows/new/")
    page.fill("#id_name", "بازه")
    page.get_by_role("button", name="ساخت و باز کردن ویرایشگر").click()
    placeholders = page.locator("input[name^=day_]").evaluate_all("els => els.map(e => e.placeholder)")
    assert placeholders and set(placeholders) == {"۰۹:۰۰-۱۸:۰۰"}, placeholders
    page.goto(f"{live_server.url}/automation/campaigns/new/")  # the campaign's own window: 24-hour inputs
    placeholders = page.locator("input.time24").evaluate_all("els => els.map(e => e.placeholder)")
    assert placeholders and not any(re.search("[A-Za-z0-9]", p) for p in placeholders), placeholders
    assert axe_violations(page) == []


def test_the_date_inputs_hint_a_jalali_date_in_persian_digits(page, live_server):
    shop = make_workspace("shop")
    make_member(shop, Role.MANAGER, username="mina")
    login(page, live_server.url, "mina")
    for path in ("/automation/campaigns/new/", "/sms/log/"):  # a campaign's start and end, the SMS log's dates
        page.goto(f"{live_server.url}{path}")
        dates = page.locator("input[data-jalali-picker]")
        expect(dates.first).to_be_visible()
        placeholders = dates.evaluate_all("els => els.map(e => e.placeholder)")
        assert placeholders and not any(re.search("[0-9A-Za-z]", p) for p in placeholders), (path, placeholders)
        assert axe_violations(page) == []


def test_a_wait_in_weeks_is_chosen_in_the_builder(page, live_server):
    shop = make_workspace("shop")
    make_member(shop, Role.MANAGER, username="mina")
    login(page, live_server.url, "mina")
    page.goto(f"{live_server.url}/automation/workflows/new/")
    page.fill("#id_name", "یادآوری دوهفته‌ای")
    page.get_by_role("button", name="ساخت و باز کردن ویرایشگر").click()
    add_step(page, "0", "انتظار")
    dialog = edit(page, "0")
    dialog.locator("input[name=amount]").fill("2")
    units = dialog.locator("select[name=unit] option")
    expect(units).to_have_text(["دقیقه", "ساعت", "روز", "هفته"])
    dialog.locator("select[name=unit]").select_option(label="هفته")
    save(dialog)
    expect(step(page, "0")).to_contain_text("۲ هفته")
    expect(page.get_by_test_id("problems")).to_contain_text("ایرادی نیست")
    workflow = Workflow.objects.get(workspace=shop)
    (wait,) = [s for s in decompile(graph_of_version(workflow.versions.get())).steps if isinstance(s, Wait)]
    assert wait.config == {"mode": "duration", "amount": 2, "unit": "weeks"}
    dialog = edit(page, "0")
    expect(dialog.locator("select[name=unit]")).to_have_value("weeks")  # read back as it was chosen


def test_the_workflow_list_is_filtered_by_category(page, live_server):
    from automation.services import workflows

    from ..conftest import make_actor

    shop = make_workspace("shop")
    mina = make_member(shop, Role.MANAGER, username="mina")
    actor = make_actor(shop, user=mina)
    for name, category in (("یادآوری قسط", "وصول"), ("خوش‌آمد", "فروش"), ("تخفیف یلدا", "فروش"), ("آزمایشی", "")):
        workflows.workflow_create(actor=actor, name=name, category=category)
    login(page, live_server.url, "mina")
    page.goto(f"{live_server.url}/automation/workflows/")
    table = page.get_by_test_id("workflow-table")
    expect(table.locator("tbody tr")).to_have_count(4)
    filters = page.get_by_test_id("workflow-filters")
    expect(filters.get_by_label("دسته").locator("option")).to_have_text(["همه", "فروش", "وصول"])  # a list, not typed
    filters.get_by_label("دسته").select_option("فروش")
    filters.get_by_role("button", name="نمایش").click()
    expect(page).to_have_url(re.compile(r"category="))
    expect(table.locator("tbody tr")).to_have_count(2)
    expect(table).to_contain_text("خوش‌آمد")
    expect(table).to_contain_text("تخفیف یلدا")
    expect(table).not_to_contain_text("یادآوری قسط")
    expect(filters.get_by_label("دسته")).to_have_value("فروش")  # the filter stays chosen
    for width in (1366, 390):
        page.set_viewport_size({"width": width, "height": 800})
        assert axe_violations(page) == [], width
        shot(page, f"workflow-list-category-{width}")
        overflow = page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")
        assert overflow <= 1, (width, overflow)
        editor = table.get_by_role("link", name="ویرایشگر").first  # each row's editor link on screen, no scrolling
        box = editor.bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= width, (width, box)
    page.get_by_role("link", name="همه گردش‌کارها").click()
    expect(table.locator("tbody tr")).to_have_count(4)


def test_the_sms_text_changes_read_as_cards_on_a_phone(page, live_server):
    """At 390 px each text change of a workflow is a card: the old and new texts get the screen's width instead of
    a column a few words wide."""
    from campaigns.choices import Role as R

    from ..automation.helpers import journey, setup_sms
    from ..automation.test_version_migrations import V2_TEXT, publish_v2, v1_graph
    from ..conftest import make_actor

    shop = make_workspace("shop")
    user = make_member(shop, R.MANAGER, username="mina")
    actor = make_actor(shop, user=user)
    setup_sms(shop)
    campaign = journey(actor, v1_graph())
    publish_v2(actor, campaign, v1_graph(second_text=V2_TEXT))
    workflow = Workflow.objects.get(workspace=shop)
    login(page, live_server.url, "mina")
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(f"{live_server.url}/automation/workflows/{workflow.id}/")
    change = page.get_by_test_id("text-changes").locator("tbody tr").first.locator("td").last
    expect(change).to_contain_text("یادآوری تازه")
    assert change.bounding_box()["width"] > 300, change.bounding_box()
    shot(page, "workflow-text-changes-390")
