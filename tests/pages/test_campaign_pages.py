"""Journey campaign pages in Chromium: create a campaign on a published workflow, review the enrollment (one
conflict decided on the page), start it, run engine ticks, watch the dashboard and the target timelines
(why-not-sent entries included); viewers and operators get no write buttons and 403 on write pages.

Screenshots of every page land in var/screenshots/ (look at them after a run)."""

import re
import time
import zoneinfo
from datetime import datetime, timedelta
from datetime import time as dt_time
from pathlib import Path

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from automation.choices import ExecutionStatus
from automation.models import Execution
from automation.services.campaigns import journey_campaign_create, journey_campaign_transition
from automation.services.enrollment import enroll_subjects
from campaigns.choices import CampaignStatus, Role
from campaigns.models import Campaign
from sms.services import blacklist_add
from tests.automation.helpers import Driver, end_node, journey, linear_graph, publish, setup_sms, sms_node, wait_node

from ..conftest import make_actor, make_list, make_member, make_target, make_workspace
from .axe import axe_violations

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SHOTS = Path("var/screenshots")
JALALI_DATE = re.compile(r"[۰-۹]{4}/[۰-۹]{2}/[۰-۹]{2}")
LATIN_DIGIT = re.compile(r"[0-9]")
TEHRAN = zoneinfo.ZoneInfo("Asia/Tehran")


def shot(page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)


def inside_the_window(moment: datetime) -> datetime:
    """``moment``, or the next Tehran midnight + 2 minutes when ``moment`` falls in the last minutes of the
    Tehran day: the window typed on the page ends at 23:59, so a tick there defers instead of sending. The
    real clock (the dashboard's "today") is waited for instead of jumped over."""
    local = moment.astimezone(TEHRAN)
    if local.time() < dt_time(23, 56):
        return moment
    midnight = datetime.combine(local.date() + timedelta(days=1), dt_time(0, 2), tzinfo=TEHRAN)
    if moment <= timezone.now():  # the real "now": wait for the new day rather than pretend it came
        time.sleep((midnight - timezone.now()).total_seconds())
    return midnight


def login(page, base: str, username: str) -> None:
    page.goto(f"{base}/login/")
    page.fill("#id_username", username)
    page.fill("#id_password", "pw-123456")
    page.click("button[type=submit]")
    expect(page.locator("h1")).to_contain_text("پیشخوان")


def named_journey(actor, graph: dict, name: str, *, activate=True):
    workflow = publish(actor, graph, name=f"گردش‌کار {name}")
    campaign = journey_campaign_create(actor=actor, name=name, workflow_id=workflow.id)
    if activate:
        campaign = journey_campaign_transition(actor=actor, campaign_id=campaign.id, action="activate")
    return campaign


def rtl(page) -> None:
    expect(page.locator("html")).to_have_attribute("dir", "rtl")


def test_create_enroll_with_a_conflict_start_and_watch_a_journey(page, live_server):
    shop = make_workspace("shop")
    user = make_member(shop, Role.MANAGER, username="mina")
    actor = make_actor(shop, user=user)
    setup_sms(shop)  # console provider: logged, not sent
    workflow = publish(
        actor,
        linear_graph(
            sms_node("a", body="سلام {target.first_name}"), wait_node("w", amount=1), sms_node("b"), end_node()
        ),
        name="خوش‌آمد",
    )
    sara = make_target(shop, name="سارا احمدی", first_name="سارا")
    reza = make_target(shop, name="رضا کریمی", first_name="رضا")
    negar = make_target(shop, name="نگار رحیمی", first_name="نگار")
    customers = make_list(shop, "مشتریان")
    for t in (sara, reza, negar):
        t.lists.add(customers)
    other = named_journey(actor, linear_graph(sms_node("x"), end_node()), "کمپین قدیمی")
    enroll_subjects(actor=actor, campaign_id=other.id, target_ids=[negar.id])  # negar is live elsewhere

    login(page, live_server.url, "mina")
    page.get_by_test_id("nav-journeys").click()
    expect(page.locator("h1")).to_contain_text("کمپین‌های پیامکی")
    expect(page.get_by_test_id("campaign-table")).to_contain_text("کمپین قدیمی")
    rtl(page)
    shot(page, "journey-campaign-list")

    # create: workflow + published version, limit, window, the list to add
    page.get_by_test_id("new-campaign").click()
    page.fill("#id_name", "معرفی محصول")
    page.select_option("#id_workflow", str(workflow.id))
    limit = page.locator("#id_daily_limit")
    assert limit.get_attribute("dir") == "ltr"
    limit.fill("50")
    page.fill("#id_ends_at", "1499/01/01")
    page.fill("#id_win_sat_start", "00:00")
    page.fill("#id_win_sat_end", "23:59")
    for day in ("sun", "mon", "tue", "wed", "thu", "fri"):
        page.fill(f"#id_win_{day}_start", "00:00")
        page.fill(f"#id_win_{day}_end", "23:59")
    page.select_option("#id_source_list", str(customers.id))
    shot(page, "journey-campaign-new")
    page.get_by_role("button", name="ساخت کمپین").click()

    # enrollment review: ready 2, conflict 1 (with the other campaign and its step)
    expect(page.get_by_test_id("class-counts")).to_be_visible()
    expect(page.get_by_test_id("class-ready")).to_contain_text("۲")
    expect(page.get_by_test_id("class-conflict")).to_contain_text("۱")
    row = page.get_by_test_id(f"item-{negar.id}")
    expect(row).to_contain_text("کمپین قدیمی")
    expect(row).to_contain_text("گام x")
    rtl(page)
    shot(page, "journey-enrollment-review")
    expect(page.get_by_test_id("commit")).to_be_disabled()  # "add" waits until every conflict is decided
    expect(page.get_by_test_id("undecided")).to_contain_text("۱ مورد تکراری")
    assert Execution.objects.filter(subject_id__in=[sara.id, reza.id]).count() == 0
    shot(page, "journey-enrollment-unresolved")
    page.get_by_test_id(f"decision-{negar.id}").select_option("skip")
    page.get_by_test_id("save-decisions").click()
    expect(page.locator(".flash-success")).to_contain_text("تصمیم‌ها ذخیره شد")
    page.get_by_test_id("commit").click()
    expect(page.locator(".flash-success")).to_contain_text("۲ مخاطب به کمپین افزوده شد")
    expect(page.get_by_test_id("batch-result")).to_contain_text("رد شد (تصمیم شما): ۱")
    shot(page, "journey-enrollment-committed")

    campaign = Campaign.objects.get(name="معرفی محصول")
    assert campaign.daily_limit == 50 and campaign.ends_at.year == 2120
    assert campaign.send_window["days"]["sat"] == [["00:00", "23:59"]]
    page.get_by_role("link", name="رفتن به داشبورد کمپین").click()
    expect(page.get_by_test_id("stat-total")).to_contain_text("۲")
    expect(page.get_by_test_id("stat-pending")).to_contain_text("۲")
    page.get_by_test_id("control-activate").click()
    expect(page.locator(".flash-success")).to_contain_text("شروع شد")
    expect(page.get_by_test_id("campaign-status")).to_have_text(CampaignStatus.ACTIVE.label)

    # the engine runs (ticks called directly): the first SMS goes to both
    driver = Driver()
    now = inside_the_window(timezone.now())
    driver.tick(now)
    assert Execution.objects.filter(campaign=campaign, status=ExecutionStatus.WAITING).count() == 2
    page.reload()
    expect(page.get_by_test_id("stat-sent-today")).to_contain_text("۲")
    expect(page.get_by_test_id("limits")).to_contain_text("۲ از ۵۰")
    expect(page.get_by_test_id("chart").locator("rect.bar-sent")).to_have_count(1)
    expect(page.get_by_test_id("stat-waiting")).to_contain_text("۲")  # both wait a day before the next SMS
    expect(page.get_by_test_id("no-next-sends")).to_contain_text("در گام انتظارند")  # and say until when
    assert JALALI_DATE.search(page.locator(".wf-meta").inner_text())
    assert not LATIN_DIGIT.search(page.get_by_test_id("stats").inner_text())
    rtl(page)
    shot(page, "journey-campaign-dashboard")

    page.goto(f"{live_server.url}/targets/{sara.id}/edit/")
    timeline = page.get_by_test_id("timeline")
    expect(timeline).to_contain_text("سلام سارا")
    expect(page.get_by_test_id("target-journeys")).to_contain_text("معرفی محصول")
    assert JALALI_DATE.search(timeline.inner_text())
    shot(page, "journey-target-timeline")

    # reza's number is blacklisted; the next SMS is not sent and his timeline says why
    blacklist_add(actor=actor, number=reza.mobile)
    later = inside_the_window(now + timedelta(days=1, minutes=2))
    driver.tick(later)
    driver.tick(later + timedelta(minutes=1))
    assert Execution.objects.get(campaign=campaign, subject_id=reza.id).status == ExecutionStatus.BLACKLISTED
    assert Execution.objects.get(campaign=campaign, subject_id=sara.id).status == ExecutionStatus.COMPLETED
    page.goto(f"{live_server.url}/targets/{reza.id}/edit/")
    expect(page.get_by_test_id("timeline").get_by_test_id("why-not-sent").first).to_contain_text(
        "شماره در لیست سیاه است"
    )
    shot(page, "journey-target-why-not-sent")
    page.goto(f"{live_server.url}/targets/{negar.id}/edit/")
    expect(page.get_by_test_id("panel-automation")).to_contain_text("در کمپین دیگری فعال بود و افزوده نشد")

    # targets of the campaign: status filter, bulk restart with a per-item refusal
    page.goto(f"{live_server.url}/automation/campaigns/{campaign.id}/targets/")
    expect(page.get_by_test_id("executions")).to_contain_text("در لیست سیاه")
    page.locator("thead input[type=checkbox]").check()
    page.select_option("#bulk-action", "restart")
    page.get_by_test_id("bulk-apply").click()
    expect(page.locator(".flash-success")).to_contain_text("۱ انجام شد، ۱ رد شد")
    expect(page.locator(".flash-warning")).to_contain_text("رضا کریمی")
    page.select_option("select[name=status]", "blacklisted")
    page.get_by_role("button", name="نمایش").click()
    expect(page.get_by_test_id("executions").locator("tbody tr")).to_have_count(1)
    rtl(page)
    shot(page, "journey-campaign-targets")

    page.goto(f"{live_server.url}/automation/campaigns/{campaign.id}/logs/")
    logs = page.get_by_test_id("logs")
    expect(logs).to_contain_text("«سلام سارا»")
    expect(logs).to_contain_text("شماره در لیست سیاه است")
    assert JALALI_DATE.search(logs.inner_text())
    shot(page, "journey-campaign-logs")

    # pause / resume through the service; cancel confirms in a bottom sheet on a narrow screen
    page.goto(f"{live_server.url}/automation/campaigns/{campaign.id}/")
    page.get_by_test_id("control-pause").click()
    expect(page.get_by_test_id("campaign-status")).to_have_text(CampaignStatus.PAUSED.label)
    page.get_by_test_id("control-resume").click()
    expect(page.get_by_test_id("campaign-status")).to_have_text(CampaignStatus.ACTIVE.label)
    page.set_viewport_size({"width": 390, "height": 844})
    page.get_by_test_id("control-cancel").click()
    dialog = page.locator("#dlg-cancel")
    expect(dialog).to_be_visible()
    box = dialog.bounding_box()
    assert box["y"] + box["height"] >= 844 - 2 and box["width"] >= 388
    shot(page, "journey-campaign-cancel-sheet")
    page.get_by_test_id("confirm-cancel").click()
    expect(page.get_by_test_id("campaign-status")).to_have_text(CampaignStatus.CANCELLED.label)
    campaign.refresh_from_db()
    assert campaign.status == CampaignStatus.CANCELLED


def test_start_refused_without_sms_and_health_banner(page, live_server):
    shop = make_workspace("shop")
    user = make_member(shop, Role.MANAGER, username="mina")
    actor = make_actor(shop, user=user)
    setup_sms(shop)
    campaign = journey(actor, linear_graph(sms_node("a"), end_node()), activate=False)
    draft = journey(actor, linear_graph(sms_node("b"), end_node()), activate=False)
    from sms.models import SmsSettings

    SmsSettings.objects.filter(workspace=shop).update(primary_account=None)
    login(page, live_server.url, "mina")
    page.goto(f"{live_server.url}/automation/campaigns/{draft.id}/")
    # the launch check disables Start and says why; the server refuses it all the same
    expect(page.get_by_test_id("control-activate")).to_be_disabled()
    expect(page.get_by_test_id("launch-blockers").locator("[data-code=no_account]")).to_be_visible()
    page.get_by_test_id("control-activate").evaluate("button => { button.disabled = false; }")
    page.get_by_test_id("control-activate").click()
    expect(page.locator(".flash-error")).to_contain_text("سرویس پیامک تنظیم نشده است")
    expect(page.get_by_test_id("campaign-status")).to_have_text(CampaignStatus.DRAFT.label)

    # an active campaign, a circuit that is open and a scheduler that never ran: the banner says so
    setup_sms(shop, paused_until=timezone.now() + timedelta(minutes=20), pause_reason="اعتبار تمام شد")
    Campaign.objects.filter(pk=campaign.id).update(status=CampaignStatus.ACTIVE)
    page.goto(f"{live_server.url}/automation/campaigns/")
    banner = page.get_by_test_id("health-banner")
    expect(banner.locator("[data-code=circuit_open]")).to_contain_text("اعتبار تمام شد")
    expect(banner.locator("[data-code=heartbeat_stale]")).to_contain_text("زمان‌بند اجرا نمی‌شود")
    assert not re.search("[A-Za-z]", banner.inner_text())  # said to staff in Persian (no «Celery beat», «tick»)
    shot(page, "journey-campaign-list-health")


@pytest.mark.parametrize("role", [Role.VIEWER, Role.OPERATOR])
def test_viewer_and_operator_get_no_write_buttons_and_403(page, live_server, role):
    shop = make_workspace("shop")
    owner = make_actor(shop, Role.OWNER)
    setup_sms(shop)
    campaign = journey(owner, linear_graph(sms_node("a"), end_node()), activate=False)
    mine = make_target(shop, name="مخاطب من")
    enroll_subjects(actor=owner, campaign_id=campaign.id, target_ids=[mine.id, make_target(shop).id])
    user = make_member(shop, role, username="vida")
    mine.owner = user
    mine.save(update_fields=["owner"])
    login(page, live_server.url, "vida")
    page.get_by_test_id("nav-journeys").click()
    expect(page.get_by_test_id("new-campaign")).to_have_count(0)
    row = page.get_by_test_id(f"campaign-{campaign.id}")
    expect(row).to_be_visible()
    rtl(page)
    page.goto(f"{live_server.url}/automation/campaigns/{campaign.id}/")
    expect(page.get_by_test_id("controls")).to_have_count(0)
    expect(page.get_by_test_id("tab-enroll")).to_have_count(0)
    expect(page.get_by_test_id("stat-total")).to_contain_text("۱" if role == Role.OPERATOR else "۲")
    page.goto(f"{live_server.url}/automation/campaigns/{campaign.id}/targets/")
    expect(page.get_by_test_id("bulk-apply")).to_have_count(0)
    expect(page.locator("input[name=execution]")).to_have_count(0)
    shot(page, f"journey-campaign-targets-{role}")
    for path in ("new/", f"{campaign.id}/enroll/"):
        response = page.goto(f"{live_server.url}/automation/campaigns/{path}")
        assert response.status == 403, path
    rtl(page)
    for path in (f"{campaign.id}/control/activate/", f"{campaign.id}/targets/"):
        status = page.evaluate(
            """async (url) => {
                const token = JSON.parse(document.body.getAttribute('hx-headers'))['X-CSRFToken'];
                const r = await fetch(url, {method: 'POST', headers: {'X-CSRFToken': token},
                                             body: new URLSearchParams({action: 'pause'})});
                return r.status;
            }""",
            f"{live_server.url}/automation/campaigns/{path}",
        )
        assert status == 403, path
    campaign.refresh_from_db()
    assert campaign.status == CampaignStatus.DRAFT


def test_steps_held_after_an_unknown_outcome_are_resent_or_skipped_from_the_targets_page(
    page, live_server, monkeypatch
):
    """A send whose outcome is unknown (a provider that cannot be asked) holds the execution; on the page a
    person sees which targets wait for a decision and resumes each with "resend" or "skip"."""
    from sms.models import SmsAttempt
    from sms.providers import SendResponse
    from sms.providers.console import ConsoleProvider
    from tests.automation.helpers import CountingConsole

    shop = make_workspace("shop")
    user = make_member(shop, Role.MANAGER, username="mina")
    actor = make_actor(shop, user=user)
    setup_sms(shop)
    monkeypatch.setattr(ConsoleProvider, "status_by_local_id", False)
    outcome = {"unknown": True}
    provider = CountingConsole(
        monkeypatch, lambda r: SendResponse("unknown", error_code="connection_dropped") if outcome["unknown"] else None
    )
    campaign = named_journey(actor, linear_graph(sms_node("a", on_unknown_outcome="hold"), end_node()), "یادآوری")
    sara = make_target(shop, name="سارا احمدی")
    reza = make_target(shop, name="رضا کریمی")
    ali = make_target(shop, name="علی نوری")
    enroll_subjects(actor=actor, campaign_id=campaign.id, target_ids=[sara.id, reza.id, ali.id])
    now = timezone.now()
    driver = Driver()
    driver.tick(now + timedelta(minutes=1))
    held = {e.subject_id: e for e in Execution.objects.filter(campaign=campaign)}
    assert {e.status for e in held.values()} == {ExecutionStatus.PAUSED}
    outcome["unknown"] = False
    # ali is paused by hand after nothing unknown: not held, so "resend" is refused for him
    Execution.objects.filter(pk=held[ali.id].pk).update(metadata={})

    login(page, live_server.url, "mina")
    page.goto(f"{live_server.url}/automation/campaigns/{campaign.id}/")
    notice = page.get_by_test_id("held-notice")
    expect(notice).to_contain_text("۲ مخاطب")
    notice.get_by_role("link").click()  # the dashboard leads to the held ones
    expect(page.get_by_test_id("executions").locator("tbody tr")).to_have_count(2)
    page.goto(f"{live_server.url}/automation/campaigns/{campaign.id}/targets/")
    rtl(page)
    expect(page.get_by_test_id("held-help")).to_contain_text("۲ مخاطب")
    expect(page.get_by_test_id(f"execution-{held[sara.id].pk}").get_by_test_id("held-unknown")).to_be_visible()
    expect(page.get_by_test_id(f"execution-{held[ali.id].pk}").get_by_test_id("held-unknown")).to_have_count(0)
    shot(page, "journey-campaign-targets-held")

    # sara: send again; ali too (refused: nothing of his is held)
    page.get_by_test_id(f"execution-{held[sara.id].pk}").locator("input[name=execution]").check()
    page.get_by_test_id(f"execution-{held[ali.id].pk}").locator("input[name=execution]").check()
    page.select_option("#bulk-action", "resume_resend")
    page.get_by_test_id("bulk-apply").click()
    expect(page.locator(".flash-success")).to_contain_text("ادامه و ارسال دوباره: ۱ انجام شد، ۱ رد شد")
    expect(page.locator(".flash-warning")).to_contain_text("علی نوری")
    # reza: only the held ones are listed; resume skips his step
    page.select_option("select[name=status]", "held_unknown")
    page.get_by_role("button", name="نمایش").click()
    rows = page.get_by_test_id("executions").locator("tbody tr")
    expect(rows).to_have_count(1)
    expect(rows).to_contain_text("رضا کریمی")
    rows.locator("input[name=execution]").check()
    page.select_option("#bulk-action", "resume")
    page.get_by_test_id("bulk-apply").click()
    expect(page.locator(".flash-success")).to_contain_text("ادامه: ۱ انجام شد، ۰ رد شد")

    calls_before = len(provider.calls)
    driver.tick(now + timedelta(minutes=3))
    states = {e.subject_id: e.status for e in Execution.objects.filter(campaign=campaign)}
    assert states[sara.id] == states[reza.id] == ExecutionStatus.COMPLETED
    assert states[ali.id] == ExecutionStatus.PAUSED
    assert len(provider.calls) == calls_before + 1  # sara's message again, reza's step skipped
    sara_attempts = SmsAttempt.objects.filter(campaign=campaign, subject_id=sara.id).order_by("id")
    assert len({a.local_id for a in sara_attempts}) == 1 and sara_attempts.count() == 2  # same local id
    assert SmsAttempt.objects.filter(campaign=campaign, subject_id=reza.id).count() == 1


def test_a_manager_edits_a_campaign_on_its_page(page, live_server):
    """Name, limit, Jalali dates and the week's send window, filled from the campaign; the workflow stays."""
    from datetime import datetime
    from zoneinfo import ZoneInfo

    shop = make_workspace("shop")
    user = make_member(shop, Role.MANAGER, username="mina")
    actor = make_actor(shop, user=user)
    setup_sms(shop)
    tehran = ZoneInfo(shop.time_zone)
    window = {"timezone": shop.time_zone, "days": {"sat": [["09:00", "17:00"]], "fri": None}}
    campaign = named_journey(actor, linear_graph(sms_node("a"), end_node()), "یادآوری قسط")
    Campaign.objects.filter(pk=campaign.pk).update(
        daily_limit=50, send_window=window, starts_at=datetime(2026, 12, 1, 9, 30, tzinfo=tehran)
    )
    login(page, live_server.url, "mina")
    page.goto(f"{live_server.url}/automation/campaigns/{campaign.id}/")
    page.get_by_test_id("tab-edit").click()
    rtl(page)
    form = page.get_by_test_id("campaign-edit-form")
    expect(form.locator("#id_name")).to_have_value("یادآوری قسط")
    expect(form.locator("#id_daily_limit")).to_have_value("50")
    expect(form.locator("#id_starts_at")).to_have_value("1405/09/10 09:30")  # 1 Dec 2026 in Tehran
    expect(form.locator("#id_win_sat_start")).to_have_value("09:00")
    expect(form.locator("#id_workflow")).to_have_count(0)  # pinned
    shot(page, "journey-campaign-edit")

    form.locator("#id_name").fill("یادآوری قسط آذر")
    form.locator("#id_daily_limit").fill("120")
    form.locator("#id_ends_at").fill("۱۴۰۵/۰۹/۰۵")  # before the start: refused by the service
    page.get_by_test_id("campaign-save").click()
    expect(page.locator(".field-error, .flash-error").first).to_contain_text("پایان باید بعد از شروع باشد")
    page.locator("#id_ends_at").fill("۱۴۰۵/۱۰/۳۰ ۱۸:۰۰")
    page.locator("#id_win_sat_end").fill("")  # half an interval: refused by the form
    page.get_by_test_id("campaign-save").click()
    expect(page.locator(".field-error").first).to_contain_text("هر دو ساعت")
    page.locator("#id_win_sat_end").fill("16:00")
    page.locator("#id_win_sun_start").fill("10:00")
    page.locator("#id_win_sun_end").fill("14:00")
    expect(form.get_by_label("اولویت در سقف پیامک تبلیغاتی")).to_have_value("normal")
    form.get_by_label("اولویت در سقف پیامک تبلیغاتی").select_option(label="پایین")
    assert axe_violations(page) == []
    page.get_by_test_id("campaign-save").click()
    expect(page.locator(".flash-success")).to_contain_text("یادآوری قسط آذر")
    campaign.refresh_from_db()
    assert campaign.name == "یادآوری قسط آذر" and campaign.daily_limit == 120
    assert campaign.journey_settings["frequency_cap_priority"] == "low"
    assert campaign.ends_at == datetime(2027, 1, 20, 18, 0, tzinfo=tehran)
    assert campaign.send_window["days"]["sat"] == [["09:00", "16:00"]]
    assert campaign.send_window["days"]["sun"] == [["10:00", "14:00"]]
    assert campaign.send_window["days"]["fri"] is None


def test_a_phone_number_never_breaks_across_lines_on_a_phone(page, live_server):
    """At 390 px the enrollment review's table is narrow: each mobile («0912 123 4501») stays on one line."""
    from automation.services.enrollment_batches import enrollment_batch_preview

    shop = make_workspace("shop")
    user = make_member(shop, Role.MANAGER, username="mina")
    actor = make_actor(shop, user=user)
    setup_sms(shop)
    campaign = named_journey(actor, linear_graph(sms_node("a"), end_node()), "خوشامد مشتریان تازه", activate=False)
    people = [make_target(shop, name=f"حسین کریمی‌نژاد {i}", mobile=f"+98912123450{i}") for i in range(3)]
    batch = enrollment_batch_preview(actor=actor, campaign_id=campaign.id, target_ids=[p.id for p in people])
    login(page, live_server.url, "mina")
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(f"{live_server.url}/automation/campaigns/{campaign.id}/enroll/{batch.id}/")
    phones = page.locator("main .phone")
    expect(phones.first).to_be_visible()
    lines = phones.evaluate_all("els => els.map(e => e.getClientRects().length)")
    assert len(lines) == 3 and set(lines) == {1}, lines
    shot(page, "enrollment-review-390")
