"""Journey options that used to be API-only, set on their page in Chromium and seen to take effect in the engine:
the auto-enroll rule (count shown before saving), the dashboard's cards that refresh themselves."""

import re
import zoneinfo
from datetime import datetime, timedelta

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from automation.engine.context import workspace_tz
from automation.models import AutoEnrollRule, AutomationSettings, Execution, Workflow
from automation.services.auto_enroll import auto_enroll_check
from automation.services.campaigns import journey_campaign_create, journey_campaign_transition
from automation.services.enrollment import enroll_subjects
from campaigns.choices import Role, TargetStatus
from campaigns.models import Campaign, Target
from campaigns.notifications.models import Activity, Notification
from sms.models import SmsAttempt, SmsTemplate
from sms.providers import SendResponse
from sms.providers.console import ConsoleProvider
from tests.automation.helpers import (
    CountingConsole,
    Driver,
    end_node,
    journey,
    linear_graph,
    publish,
    setup_sms,
    sms_node,
    wait_node,
)

from ..conftest import make_actor, make_list, make_member, make_target, make_workspace
from .axe import axe_violations
from .test_campaign_pages import LATIN_DIGIT, login, named_journey, rtl, shot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def close_editor(page, path: str) -> None:
    """A step just added opens its editor; close it."""
    dialog = page.get_by_test_id(f"editor-{path}")
    expect(dialog).to_be_visible()
    dialog.get_by_role("button", name="بستن").click()
    expect(dialog).to_be_hidden()


def _shop():
    shop = make_workspace("shop")
    user = make_member(shop, Role.MANAGER, username="mina")
    setup_sms(shop)
    return shop, make_actor(shop, user=user)


def test_auto_enroll_rule_set_on_the_page_with_the_count_first_enrolls_on_the_next_check(page, live_server):
    shop, actor = _shop()
    campaign = named_journey(actor, linear_graph(sms_node("a"), wait_node("w", amount=2), end_node()), "خودکار")
    leads, others = make_list(shop, "سرنخ‌ها"), make_list(shop, "دیگران")
    high = make_target(shop, name="اولویت بالا", status=TargetStatus.INTERESTED, priority=5)
    low = make_target(shop, name="اولویت پایین", status=TargetStatus.INTERESTED, priority=1)
    cold = make_target(shop, name="سرد", status=TargetStatus.NEW, priority=9)
    elsewhere = make_target(shop, name="فهرست دیگر", status=TargetStatus.INTERESTED, priority=9)
    for t in (high, low, cold):
        t.lists.add(leads)
    elsewhere.lists.add(others)
    first = make_target(shop, name="از پیش")
    enroll_subjects(actor=actor, campaign_id=campaign.id, target_ids=[first.id])

    login(page, live_server.url, "mina")
    page.goto(f"{live_server.url}/automation/campaigns/{campaign.id}/")
    page.get_by_test_id("tab-auto-enroll").click()
    rtl(page)
    count = page.get_by_test_id("existing-count")
    expect(count).to_contain_text("دست‌کم یک شرط")
    page.select_option("#id_list", str(leads.id))
    expect(count).to_contain_text("۳ مخاطب موجود")
    page.get_by_test_id("auto-status").get_by_label("علاقه‌مند").check()
    expect(count).to_contain_text("۲ مخاطب موجود")
    page.fill("#id_priority_min", "3")
    page.locator("#id_priority_min").dispatch_event("change")
    expect(count).to_contain_text("۱ مخاطب موجود")  # the count is seen before saving
    page.check("#id_include_existing")
    page.fill("#id_daily_cap", "50")
    shot(page, "journey-auto-enroll")
    assert not LATIN_DIGIT.search(count.inner_text())
    page.get_by_test_id("auto-enroll-save").click()
    expect(page.locator(".flash-success")).to_contain_text("قاعده افزودن خودکار ذخیره شد")

    rule = AutoEnrollRule.objects.get(campaign=campaign)
    assert rule.filters == {"list": leads.id, "status": ["interested"], "priority_min": 3}
    assert (rule.include_existing, rule.daily_cap, rule.enabled) == (True, 50, True)
    expect(page.get_by_test_id("auto-enroll-last")).to_contain_text("هنوز بررسی نشده")
    expect(page.get_by_test_id("stat-total")).to_contain_text("۱")

    stats = auto_enroll_check(rule_id=rule.id)  # the beat's check: only the matching existing target comes in
    assert stats["enrolled"] == 1
    assert set(Execution.objects.filter(campaign=campaign).values_list("subject_id", flat=True)) == {first.id, high.id}
    # the dashboard keeps up by itself (no reload): the new target and the check's numbers
    expect(page.get_by_test_id("stat-total")).to_contain_text("۲", timeout=15000)
    expect(page.get_by_test_id("auto-enroll-last")).to_contain_text("۱ افزوده")
    shot(page, "journey-dashboard-auto-enroll")

    assert auto_enroll_check(rule_id=rule.id)["examined"] == 0  # the next check finds nobody new…
    latest = page.get_by_test_id("auto-enroll-latest")
    expect(latest).to_contain_text("مخاطب تازه‌ای نبود", timeout=15000)
    last = page.get_by_test_id("auto-enroll-last")  # …and the last useful check's numbers stay on the dashboard
    expect(last).to_contain_text("آخرین بررسی با مخاطب تازه")
    expect(last).to_contain_text("۱ افزوده")
    page.set_viewport_size({"width": 390, "height": 844})
    shot(page, "journey-dashboard-auto-enroll-nobody-new-390")


def test_dashboard_cards_count_each_status_and_link_to_the_filtered_targets(page, live_server, monkeypatch):
    shop, actor = _shop()
    monkeypatch.setattr(ConsoleProvider, "status_by_local_id", False)  # a provider that cannot be asked
    unknown = CountingConsole(monkeypatch, lambda r: SendResponse("unknown", error_code="connection_dropped"))
    campaign = named_journey(actor, linear_graph(sms_node("a"), wait_node("w", amount=2), end_node()), "کارت‌ها")
    targets = [make_target(shop, name=f"مخاطب {i}") for i in range(4)]
    enroll_subjects(actor=actor, campaign_id=campaign.id, target_ids=[targets[0].id])
    Driver().tick(timezone.now())  # the provider took the message and never answered: counted, journey goes on
    assert len(unknown.calls) == 1
    enroll_subjects(actor=actor, campaign_id=campaign.id, target_ids=[t.id for t in targets[1:]])
    execs = list(Execution.objects.filter(campaign=campaign).order_by("id"))
    assert execs[0].status == "waiting"
    Execution.objects.filter(pk=execs[1].pk).update(status="blacklisted")
    Execution.objects.filter(pk=execs[2].pk).update(status="completed")

    login(page, live_server.url, "mina")
    page.goto(f"{live_server.url}/automation/campaigns/{campaign.id}/")
    for name, n in (
        ("total", "۴"),
        ("active", "۱"),
        ("waiting", "۱"),
        ("completed", "۱"),
        ("failed", "۰"),
        ("blacklisted", "۱"),
        ("unknown", "۱"),
    ):
        expect(page.get_by_test_id(f"stat-{name}").locator(".num")).to_have_text(n)
    expect(page.get_by_test_id("stat-unknown")).to_contain_text("نتیجه نامعلوم")
    shot(page, "journey-dashboard-cards")
    page.get_by_test_id("stat-blacklisted").click()
    expect(page.locator("tbody tr")).to_have_count(1)
    expect(page.locator("tbody")).to_contain_text(targets[1].name)
    page.go_back()
    page.get_by_test_id("stat-completed").click()
    expect(page.locator("tbody tr")).to_have_count(1)
    expect(page.locator("tbody")).to_contain_text(targets[2].name)
    page.go_back()
    page.get_by_test_id("stat-unknown").click()  # the unknown outcomes: the event log, filtered
    expect(page).to_have_url(re.compile(r"type=unknown_outcome"))
    rows = page.get_by_test_id("logs").locator("tbody tr")
    expect(rows).to_have_count(1)
    expect(rows.first).to_have_attribute("data-type", "unknown_outcome")
    expect(rows.first).to_contain_text(targets[0].name)


def test_stop_statuses_set_on_the_campaign_form_stop_a_journey_and_the_enroll_filter_picks_a_list(page, live_server):
    shop, actor = _shop()
    workflow = publish(actor, linear_graph(sms_node("a"), end_node()), name="توقف")
    leads = make_list(shop, "سرنخ‌ها")
    keen = make_target(shop, name="مشتاق")
    plain = make_target(shop, name="معمولی")
    for t in (keen, plain):
        t.lists.add(leads)

    login(page, live_server.url, "mina")
    page.goto(f"{live_server.url}/automation/campaigns/new/?workflow={workflow.id}")
    page.fill("#id_name", "با توقف")
    stop = page.get_by_test_id("stop-statuses")
    stop.get_by_label("علاقه‌مند").check()
    stop.get_by_label("تبدیل‌شده").check()
    shot(page, "journey-campaign-new-stop")
    page.get_by_role("button", name="ساخت کمپین").click()
    campaign = Campaign.objects.get(name="با توقف")
    assert campaign.journey_settings == {"stop_when_target_status_in": ["interested", "converted"]}

    # the enroll page: the filter's list is picked by name
    filter_form = page.locator("form.filter-pick")
    filter_form.locator("select[name=list]").select_option(label="سرنخ‌ها")
    page.get_by_test_id("pick-filter").click()
    expect(page.get_by_test_id("class-ready")).to_contain_text("۲")
    page.get_by_test_id("commit").click()
    expect(page.locator(".flash-success")).to_contain_text("۲ مخاطب")

    page.get_by_test_id("tab-edit").click()  # the edit form shows what was chosen and keeps it
    expect(page.get_by_test_id("stop-statuses").get_by_label("علاقه‌مند")).to_be_checked()
    page.get_by_test_id("stop-statuses").get_by_label("تبدیل‌شده").uncheck()
    page.get_by_test_id("campaign-save").click()
    expect(page.locator(".flash-success")).to_contain_text("ذخیره شد")
    campaign.refresh_from_db()
    assert campaign.journey_settings == {"stop_when_target_status_in": ["interested"]}

    journey_campaign_transition(actor=actor, campaign_id=campaign.id, action="activate")
    Target.objects.filter(pk=keen.pk).update(status=TargetStatus.INTERESTED)
    Driver().tick(timezone.now())
    keen_run = Execution.objects.get(campaign=campaign, subject_id=keen.id)
    assert (keen_run.status, keen_run.end_reason) == ("cancelled", "target_status_changed")
    assert Execution.objects.get(campaign=campaign, subject_id=plain.id).status == "completed"


def _next_saturday_at_ten(zone) -> datetime:
    """A Saturday 10:00 after today: the execution enrolled now is due by then, whatever day the suite runs."""
    day = (timezone.now() + timedelta(days=1)).astimezone(zone).date()
    day += timedelta(days=(5 - day.weekday()) % 7)
    return datetime(day.year, day.month, day.day, 10, 0, tzinfo=zone)


def test_automation_switch_and_time_zone_on_the_sms_settings_page_drive_the_engine(page, live_server):
    shop, actor = _shop()
    make_member(shop, Role.OWNER, username="owner")
    campaign = named_journey(actor, linear_graph(sms_node("a"), end_node()), "کلید")
    target = make_target(shop, name="یک مخاطب")
    enroll_subjects(actor=actor, campaign_id=campaign.id, target_ids=[target.id])

    login(page, live_server.url, "owner")
    page.goto(f"{live_server.url}/sms/settings/")
    expect(page.locator("#id_automation_enabled")).to_be_checked()
    assert page.input_value("#id_time_zone") == "Asia/Tehran"
    page.uncheck("#id_automation_enabled")
    page.select_option("#id_time_zone", "Asia/Dubai")
    page.fill("#id_win_sat_start", "09:00")
    page.fill("#id_win_sat_end", "18:00")
    shot(page, "sms-settings-automation")
    page.click("button:has-text('ذخیره تنظیمات')")
    expect(page.locator(".flash-success")).to_contain_text("ذخیره شد")
    expect(page.locator("#id_automation_enabled")).not_to_be_checked()
    assert page.input_value("#id_time_zone") == "Asia/Dubai"

    shop.refresh_from_db()
    engine = AutomationSettings.objects.get(workspace=shop)
    assert (shop.time_zone, workspace_tz(shop, engine), engine.enabled) == ("Asia/Dubai", "Asia/Dubai", False)
    assert engine.default_send_window["timezone"] == "Asia/Dubai"
    Driver().tick(timezone.now())  # off: the journey does not move
    assert Execution.objects.get(campaign=campaign).status == "active"
    assert not SmsAttempt.objects.filter(workspace=shop).exists()
    page.goto(f"{live_server.url}/targets/{target.id}/edit/")
    expect(page.get_by_test_id("panel-automation")).to_have_count(0)  # no journey timeline while off
    page.goto(f"{live_server.url}/sms/settings/")

    page.check("#id_automation_enabled")
    page.click("button:has-text('ذخیره تنظیمات')")
    expect(page.locator(".flash-success")).to_contain_text("ذخیره شد")
    open_at = _next_saturday_at_ten(zoneinfo.ZoneInfo("Asia/Dubai"))  # inside 09–18, after the enrollment
    Driver().tick(open_at)
    assert Execution.objects.get(campaign=campaign).status == "completed"
    assert SmsAttempt.objects.filter(workspace=shop).count() == 1
    page.goto(f"{live_server.url}/targets/{target.id}/edit/")
    expect(page.get_by_test_id("panel-automation")).to_contain_text("کلید")


def test_follow_up_step_edited_in_the_builder_creates_the_activity_it_describes(page, live_server):
    shop, actor = _shop()
    sales = make_member(shop, Role.MANAGER, username="sales")
    lead = make_target(shop, name="سارا احمدی", first_name="سارا")  # no owner: the fallback gets the follow-up
    login(page, live_server.url, "mina")
    page.goto(f"{live_server.url}/automation/workflows/new/")
    page.fill("#id_name", "پیگیری تلفنی")
    page.get_by_role("button", name="ساخت و باز کردن ویرایشگر").click()
    expect(page.get_by_test_id("entry-delay-help")).to_contain_text("اولین گام را «انتظار» بگذارید")
    menu = page.get_by_test_id("add-0")
    menu.locator("summary").click()
    menu.get_by_role("button", name="پیگیری برای مسئول", exact=True).click()
    expect(page.locator('[data-testid=step][data-path="0"]')).to_have_attribute("data-kind", "action")
    dialog = page.get_by_test_id("editor-0")
    expect(dialog).to_be_visible()  # a step just added opens its editor at once
    expect(dialog).not_to_contain_text("API")
    dialog.get_by_test_id("followup-title").fill("تماس با {target.first_name}")
    dialog.get_by_test_id("followup-description").fill("پیگیری پس از پیامک ")
    dialog.get_by_role("button", name="نام کوچک (یا نام کامل)").click()
    dialog.get_by_test_id("followup-kind").select_option("meeting")
    dialog.get_by_test_id("followup-due").fill("2")
    dialog.locator("select[name=cfg_due_in__unit]").select_option("days")
    dialog.get_by_test_id("followup-fallback").select_option(str(sales.id))
    dialog.get_by_test_id("followup-notify").uncheck()
    shot(page, "workflow-builder-followup-editor")
    dialog.get_by_test_id("save-step").click()
    expect(dialog).to_be_hidden()
    step = page.locator('[data-testid=step][data-path="0"]')
    expect(step).to_contain_text("تماس با {target.first_name}")
    expect(step).not_to_have_class(re.compile("has-problem"))
    page.get_by_test_id("publish").click()
    expect(page.locator(".flash-success")).to_be_visible()

    workflow = Workflow.objects.get(name="پیگیری تلفنی")
    config = workflow.published_version.nodes.get(subtype="create_followup").config
    assert config["due_in"] == {"value": 2, "unit": "days"}
    assert (config["assignee"], config["fallback_assignee"], config["notify"]) == ("owner", sales.id, False)
    campaign = journey_campaign_create(actor=actor, name="پیگیری", workflow_id=workflow.id)
    journey_campaign_transition(actor=actor, campaign_id=campaign.id, action="activate")
    enroll_subjects(actor=actor, campaign_id=campaign.id, target_ids=[lead.id])
    now = timezone.now()
    Driver().tick(now)
    activity = Activity.objects.get(target=lead)
    assert (activity.title, activity.kind, activity.assignee_id) == ("تماس با سارا", "meeting", sales.id)
    assert activity.description == "پیگیری پس از پیامک سارا"
    assert activity.due_at == now + timedelta(days=2)
    assert not Notification.objects.filter(kind="activity_assigned").exists()  # notify was switched off
    page.goto(f"{live_server.url}/targets/{lead.id}/edit/")
    timeline = page.get_by_test_id("timeline")
    expect(timeline).to_contain_text("پیگیری برای مسئول ساخته شد.")  # the engine's reason, in Persian
    expect(timeline).not_to_contain_text("activity created")


def test_sms_step_inserts_a_template_holds_on_unknown_outcome_and_conditions_read_the_last_result(
    page, live_server, monkeypatch
):
    shop, actor = _shop()
    SmsTemplate.objects.create(workspace=shop, name="خوش‌آمد", body="سلام {target.first_name}، خوش آمدید")
    monkeypatch.setattr(ConsoleProvider, "status_by_local_id", False)  # a provider that cannot be asked
    CountingConsole(monkeypatch, lambda r: SendResponse("unknown", error_code="connection_dropped"))
    login(page, live_server.url, "mina")
    page.goto(f"{live_server.url}/automation/workflows/new/")
    page.fill("#id_name", "با قالب")
    page.get_by_role("button", name="ساخت و باز کردن ویرایشگر").click()
    for at, label, kind in (("0", "ارسال پیامک", "action"), ("1", "شرط", "condition")):
        menu = page.get_by_test_id(f"add-{at}")
        menu.locator("summary").click()
        menu.get_by_role("button", name=label, exact=True).click()
        expect(page.locator(f'[data-testid=step][data-path="{at}"]')).to_have_attribute("data-kind", kind)
        close_editor(page, at)

    page.get_by_test_id("edit-0").click()
    dialog = page.get_by_test_id("editor-0")
    dialog.get_by_test_id("insert-template").select_option(label="خوش‌آمد")
    expect(dialog.get_by_test_id("sms-body")).to_have_value("سلام {target.first_name}، خوش آمدید")
    expect(dialog.get_by_test_id("on-unknown-outcome")).to_have_value("")  # the workflow's default
    dialog.get_by_test_id("on-unknown-outcome").select_option("hold")
    expect(dialog).to_contain_text("هرگز خودکار دوباره فرستاده نمی‌شود")
    shot(page, "workflow-builder-sms-template-unknown")
    dialog.get_by_test_id("save-step").click()
    expect(dialog).to_be_hidden()

    page.get_by_test_id("edit-1").click()
    dialog = page.get_by_test_id("editor-1")
    dialog.locator("select[name=rule_field_0]").select_option("last_action.status")
    dialog.locator("select[name=rule_op_0]").select_option("in")
    dialog.locator("input[name=rule_value_0]").fill("success")
    shot(page, "workflow-builder-condition-last-action")
    dialog.get_by_test_id("save-step").click()
    expect(dialog).to_be_hidden()
    expect(page.locator('[data-testid=step][data-path="1"]')).to_contain_text("نتیجه آخرین اقدام")
    menu = page.get_by_test_id("add-1.no.0")
    menu.locator("summary").click()
    menu.get_by_role("button", name="پایان", exact=True).click()
    close_editor(page, "1.no.0")
    expect(page.get_by_test_id("problems")).to_contain_text("ایرادی نیست")
    page.get_by_test_id("publish").click()
    expect(page.locator(".flash-success")).to_be_visible()

    workflow = Workflow.objects.get(name="با قالب")
    nodes = {n.type: n for n in workflow.published_version.nodes.all()}
    assert nodes["action"].config["on_unknown_outcome"] == "hold"
    assert nodes["condition"].config["rules"][0]["field"] == "last_action.status"
    campaign = journey_campaign_create(actor=actor, name="قالب", workflow_id=workflow.id)
    journey_campaign_transition(actor=actor, campaign_id=campaign.id, action="activate")
    enroll_subjects(actor=actor, campaign_id=campaign.id, target_ids=[make_target(shop, first_name="سارا").id])
    Driver().tick(timezone.now())
    execution = Execution.objects.get(campaign=campaign)
    assert execution.status == "paused"  # held for a person's decision, not resent and not moved on
    assert SmsAttempt.objects.get(campaign=campaign).message == "سلام سارا، خوش آمدید"


def test_deleting_a_target_warns_how_many_journeys_it_is_in_then_cancels_them(page, live_server):
    shop, actor = _shop()
    first = named_journey(actor, linear_graph(sms_node("a"), end_node()), "بهار")
    second = named_journey(actor, linear_graph(sms_node("b"), end_node()), "تابستان")
    lead = make_target(shop, name="سارا احمدی")
    for campaign in (first, second):
        enroll_subjects(actor=actor, campaign_id=campaign.id, target_ids=[lead.id], on_conflict="add")
    login(page, live_server.url, "mina")
    page.goto(f"{live_server.url}/targets/{lead.id}/edit/")
    warning = page.get_by_test_id("delete-warning")
    expect(warning).to_contain_text("در ۲ سفر در جریان است")
    expect(warning).to_contain_text("«بهار»")
    shot(page, "target-delete-warning")
    asked = []
    page.once("dialog", lambda d: (asked.append(d.message), d.accept()))
    page.get_by_role("button", name="حذف مخاطب").click()
    expect(page.locator(".flash-success")).to_contain_text("حذف شد")
    assert "۲ سفر" in asked[0]
    assert set(Execution.objects.filter(subject_id=lead.id).values_list("status", "end_reason")) == {
        ("cancelled", "target_removed")
    }


def test_sms_log_shows_the_provider_message_id_its_response_and_a_pending_retry(page, live_server):
    shop, actor = _shop()
    make_member(shop, Role.OWNER, username="owner")
    campaign = named_journey(actor, linear_graph(sms_node("a"), end_node()), "گزارش")
    enroll_subjects(actor=actor, campaign_id=campaign.id, target_ids=[make_target(shop).id])
    Driver().tick(timezone.now())
    attempt = SmsAttempt.objects.get(campaign=campaign)
    retry_at = timezone.now() + timedelta(minutes=15)
    SmsAttempt.objects.filter(pk=attempt.pk).update(
        status="failed",
        provider_message_id="PM-778",
        provider_response={"status": 5, "messageid": "PM-778"},
        retry_scheduled_at=retry_at,
    )
    login(page, live_server.url, "owner")
    page.goto(f"{live_server.url}/sms/log/")
    row = page.get_by_test_id("attempt-row")
    expect(row.get_by_test_id("row-status")).to_have_text("در انتظار تلاش مجدد")  # failed + a retry still to come
    expect(row.get_by_test_id("retry-at")).to_contain_text("تلاش بعدی")
    row.locator("summary").click()
    expect(row.get_by_test_id("provider-message-id")).to_have_text("PM-778")
    expect(row.get_by_test_id("provider-response")).to_contain_text("messageid")
    shot(page, "sms-attempt-log-details")
    page.set_viewport_size({"width": 390, "height": 800})  # a phone: the row is a card, its message on screen
    message = row.locator("td.msg")
    expect(message).to_be_visible()
    box = message.bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= 390 and box["width"] > 200
    assert page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth") <= 1
    assert axe_violations(page) == []
    shot(page, "sms-attempt-log-390")


def test_sends_held_by_a_spent_daily_limit_are_said_queued_not_a_lagging_scheduler(page, live_server):
    """A campaign's daily limit spent: the tick leaves its other due sends due. The dashboard counts them
    «در نوبت ارسال (سقف امروز پر شد)» and the health banner does not say the scheduler is behind."""
    from automation.choices import ExecutionStatus
    from campaigns.models import PlatformHeartbeat

    shop = make_workspace("shop")
    actor = make_actor(shop, user=make_member(shop, Role.MANAGER, username="mina"))
    setup_sms(shop)
    campaign = journey(actor, linear_graph(sms_node("a", body="سلام"), end_node()), daily_limit=1)
    enroll_subjects(actor=actor, campaign_id=campaign.id, target_ids=[make_target(shop).id for _ in range(3)])
    now = timezone.now()
    Driver().tick(now + timedelta(seconds=5))  # one sent: today's limit of 1 is spent
    held = Execution.objects.filter(campaign=campaign, status__in=[ExecutionStatus.ACTIVE, ExecutionStatus.WAITING])
    assert held.count() == 2
    held.update(next_run_at=now - timedelta(minutes=10))  # due for ten minutes, the tick beating
    PlatformHeartbeat.objects.update_or_create(name="automation_tick", defaults={"beat_at": timezone.now()})

    login(page, live_server.url, "mina")
    page.goto(f"{live_server.url}/automation/campaigns/{campaign.id}/")
    limits = page.get_by_test_id("limits")
    expect(limits.get_by_test_id("queued-for-sending")).to_have_text("۲")
    expect(page.locator("[data-code=due_unclaimed]")).to_have_count(0)
    assert axe_violations(page) == []
