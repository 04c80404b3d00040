"""Journey pages, the last mile, in Chromium: the SMS log's rows without an attempt (skipped, blacklisted,
cancelled) and its pending retries, the conflict review's drawer of the target's live journeys, the builder
opening a new step's editor with the journey's own wait, steps named by title (never by internal key), and the
import report that refreshes its rows and makes its new list only for an accepted file."""

import re
from datetime import timedelta

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from automation.engine.scheduler import HEARTBEAT
from automation.models import Execution, Workflow
from automation.services.campaigns import journey_campaign_transition
from automation.services.enrollment import enroll_subjects
from automation.services.enrollment_batches import enrollment_batch_preview
from automation.services.workflows import workflow_create, workflow_graph_save
from campaigns.choices import Role
from campaigns.models import PlatformHeartbeat, TargetImport, TargetList
from campaigns.services.imports import target_import_process
from sms.models import SmsAttempt
from sms.services import blacklist_add
from tests.automation.helpers import Driver, end_node, linear_graph, setup_sms, sms_node, wait_node

from ..conftest import make_actor, make_member, make_target, make_workspace
from .axe import axe_violations
from .test_campaign_pages import login, named_journey, rtl, shot
from .test_workflow_pages import step

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
NODE_KEY = re.compile(r"\bn_[0-9a-f]{8}\b")


def _shop(role=Role.OWNER):
    shop = make_workspace("shop")
    user = make_member(shop, role, username="mina")
    setup_sms(shop)
    return shop, make_actor(shop, user=user)


def test_sms_log_lists_skipped_blacklisted_and_cancelled_sends_and_pending_retries(page, live_server):
    shop, actor = _shop()
    campaign = named_journey(
        actor, linear_graph(sms_node("a", body="سلام {target.city}", on_missing_variable="skip"), end_node()), "شهرها"
    )
    sent = make_target(shop, name="با شهر", city="تبریز", mobile="+989120000201")
    no_city = make_target(shop, name="بی‌شهر", mobile="+989120000202")
    blocked = make_target(shop, name="مسدود", city="قم", mobile="+989120000203")
    enroll_subjects(actor=actor, campaign_id=campaign.id, target_ids=[sent.id, no_city.id, blocked.id])
    blacklist_add(actor=actor, number="09120000203")
    later = named_journey(actor, linear_graph(sms_node("b"), end_node()), "لغوشده")
    gone = make_target(shop, name="لغو", mobile="+989120000204")
    enroll_subjects(actor=actor, campaign_id=later.id, target_ids=[gone.id])
    journey_campaign_transition(actor=actor, campaign_id=later.id, action="cancel")  # before its send
    Driver().tick(timezone.now())
    attempt = SmsAttempt.objects.get(campaign=campaign)
    SmsAttempt.objects.filter(pk=attempt.pk).update(
        status="failed", retry_scheduled_at=timezone.now() + timedelta(hours=1)
    )
    assert {e.subject_id: e.status for e in Execution.objects.filter(campaign=campaign)}[blocked.id] == "blacklisted"

    login(page, live_server.url, "mina")
    page.goto(f"{live_server.url}/sms/log/")
    rtl(page)
    expect(page.get_by_test_id("attempt-count")).to_have_text("۴ ردیف در گزارش")
    expect(page.get_by_test_id("attempt-row")).to_have_count(1)
    expect(page.get_by_test_id("attempt-row").get_by_test_id("row-status")).to_have_text("در انتظار تلاش مجدد")
    provider = page.get_by_test_id("attempt-row").locator("td[data-label=سرویس‌دهنده]")
    expect(provider).to_contain_text("کنسول (آزمایشی)")  # the provider by its name, not its kind «console»
    expect(provider).not_to_contain_text("console")
    steps = page.get_by_test_id("step-row")
    expect(steps).to_have_count(3)
    expect(page.locator('[data-testid=step-row][data-status="skipped"]')).to_contain_text("متغیری از متن پیام خالی بود")
    expect(page.locator('[data-testid=step-row][data-status="skipped"]')).to_contain_text("0912 000 0202")
    expect(page.locator('[data-testid=step-row][data-status="blacklisted"]')).to_contain_text("لیست سیاه")
    expect(page.locator('[data-testid=step-row][data-status="cancelled"]')).to_contain_text("لغو کمپین")
    shot(page, "sms-log-step-outcomes")
    assert axe_violations(page) == []

    for status, label, number in (
        ("blacklisted", "لیست سیاه", "0912 000 0203"),
        ("cancelled", "لغوشده", "0912 000 0204"),
        ("skipped", "رد شدن از گام", "0912 000 0202"),
    ):
        page.select_option("#id_status", status)
        page.click("button:has-text('نمایش')")
        expect(page).to_have_url(re.compile(f"status={status}"))
        expect(page.get_by_test_id("step-row")).to_have_count(1)
        expect(page.get_by_test_id("step-row")).to_contain_text(label)
        expect(page.get_by_test_id("step-row")).to_contain_text(number)
        expect(page.get_by_test_id("attempt-row")).to_have_count(0)
    page.select_option("#id_status", "retry_pending")
    page.click("button:has-text('نمایش')")
    expect(page.get_by_test_id("attempt-row")).to_have_count(1)
    expect(page.get_by_test_id("step-row")).to_have_count(0)
    SmsAttempt.objects.create(  # the retry happened: nothing is pending any more
        workspace=shop,
        execution_id=attempt.execution_id,
        workflow_id=attempt.workflow_id,
        campaign_id=attempt.campaign_id,
        subject_type_id=attempt.subject_type_id,
        subject_id=attempt.subject_id,
        node_id=attempt.node_id,
        phone=attempt.phone,
        message=attempt.message,
        attempt_number=2,
        idempotency_key=f"{attempt.idempotency_key}-2",
        status="sent",
        request_at=timezone.now(),
    )
    page.reload()
    expect(page.get_by_test_id("attempt-row")).to_have_count(0)
    page.select_option("#id_status", "")
    page.select_option("#id_campaign", str(later.id))  # a campaign with no attempt is still in the filter
    page.click("button:has-text('نمایش')")
    expect(page.get_by_test_id("step-row")).to_have_count(1)
    expect(page.get_by_test_id("step-row")).to_contain_text("لغوشده")


def test_conflict_review_drawer_lists_the_targets_live_journeys(page, live_server):
    shop, actor = _shop(Role.MANAGER)
    first = named_journey(actor, linear_graph(wait_node("w", amount=3, name="سه روز صبر"), end_node()), "بهار")
    second = named_journey(actor, linear_graph(wait_node("w2"), sms_node("x"), end_node()), "پاییز")
    new = named_journey(actor, linear_graph(sms_node("a"), end_node()), "تازه")
    lead = make_target(shop, name="سارا احمدی")
    enroll_subjects(actor=actor, campaign_id=first.id, target_ids=[lead.id])
    enroll_subjects(actor=actor, campaign_id=second.id, target_ids=[lead.id], on_conflict="add")
    Driver().tick(timezone.now())  # the wait starts in «بهار»: a next send three days on
    batch = enrollment_batch_preview(actor=actor, campaign_id=new.id, target_ids=[lead.id])

    login(page, live_server.url, "mina")
    page.goto(f"{live_server.url}/automation/campaigns/{new.id}/enroll/{batch.id}/")
    expect(page.get_by_test_id("commit")).to_be_disabled()
    page.get_by_test_id(f"open-drawer-{lead.id}").click()
    drawer = page.get_by_test_id(f"drawer-{lead.id}")
    expect(drawer).to_be_visible()
    expect(drawer.get_by_role("heading")).to_contain_text("گردش‌کارهای فعال «سارا احمدی»")
    rows = drawer.get_by_test_id("drawer-row")
    expect(rows).to_have_count(2)
    spring = rows.filter(has_text="بهار")
    expect(spring).to_contain_text("گردش‌کار بهار")
    expect(spring).to_contain_text("سه روز صبر")
    expect(spring).to_contain_text("در حال اجرا")  # the other campaign's status
    expect(spring).to_contain_text(re.compile(r"ارسال بعدی[۰-۹/ :]+"))
    assert not re.search(r"[0-9]", spring.inner_text())
    autumn = rows.filter(has_text="پاییز")
    expect(autumn).to_contain_text(
        re.compile(r"گام فعلی\s*انتظار")
    )  # an untitled step is named by its kind, not its key «w2»
    assert "w2" not in drawer.inner_text()
    rtl(page)
    shot(page, "journey-conflict-drawer")
    assert axe_violations(page) == []  # with the drawer open
    drawer.get_by_role("button", name="بستن").click()
    expect(drawer).to_be_hidden()
    page.set_viewport_size({"width": 390, "height": 800})
    page.get_by_test_id(f"open-drawer-{lead.id}").click()
    expect(drawer).to_be_visible()
    shot(page, "journey-conflict-drawer-390")
    assert axe_violations(page) == []


def test_builder_opens_a_new_steps_editor_and_a_new_wait_takes_the_journeys_cadence(page, live_server):
    _, actor = _shop(Role.MANAGER)
    login(page, live_server.url, "mina")
    page.goto(f"{live_server.url}/automation/workflows/new/")
    page.fill("#id_name", "پیگیری هفتگی")
    page.get_by_text("پیگیری تا علاقه‌مندی").click()  # the built-in template waits 7 days
    page.get_by_role("button", name="ساخت و باز کردن ویرایشگر").click()
    expect(page.get_by_test_id("problems")).to_contain_text("ایرادی نیست")

    menu = page.get_by_test_id("add-2.no.1")  # after the second message, before nothing: a new Wait
    menu.locator("summary").click()
    menu.get_by_role("button", name="انتظار", exact=True).click()
    dialog = page.get_by_test_id("editor-2.no.1")
    expect(dialog).to_be_visible()  # opened at once
    expect(dialog.locator("input[name=amount]")).to_have_value("7")
    expect(dialog.locator("select[name=unit]")).to_have_value("days")
    shot(page, "workflow-builder-new-wait-open")
    assert axe_violations(page) == []
    dialog.get_by_role("button", name="بستن").click()
    expect(step(page, "2.no.1")).to_contain_text("۷ روز")

    menu = page.get_by_test_id("add-0")
    menu.locator("summary").click()
    menu.get_by_role("button", name="ارسال پیامک", exact=True).click()
    dialog = page.get_by_test_id("editor-0")
    expect(dialog).to_be_visible()
    dialog.get_by_test_id("sms-body").fill("خوش آمدید")
    dialog.get_by_test_id("save-step").click()
    expect(dialog).to_be_hidden()
    expect(step(page, "0")).to_contain_text("خوش آمدید")

    workflow = Workflow.objects.get(name="پیگیری هفتگی")
    waits = [n.config for n in workflow.versions.get().nodes.filter(type="wait")]
    assert sorted(w["amount"] for w in waits) == [7, 7]

    blank = workflow_create(actor=actor, name="خالی")  # no wait in the journey: one day
    page.goto(f"{live_server.url}/automation/workflows/{blank.id}/builder/")
    menu = page.get_by_test_id("add-0")
    menu.locator("summary").click()
    menu.get_by_role("button", name="انتظار", exact=True).click()
    expect(page.get_by_test_id("editor-0").locator("input[name=amount]")).to_have_value("1")


def test_steps_are_named_by_title_and_kind_never_by_internal_key(page, live_server):
    _, actor = _shop(Role.MANAGER)
    workflow = workflow_create(actor=actor, name="بی‌نام")
    graph = linear_graph(
        {**sms_node("n_1a2b3c4d", body="سلام {target.nickname}"), "name": ""},
        {**wait_node("n_5e6f7a8b"), "name": ""},
        end_node("n_9c0d1e2f"),
    )
    workflow_graph_save(actor=actor, workflow_id=workflow.id, graph_data=graph)
    login(page, live_server.url, "mina")
    page.goto(f"{live_server.url}/automation/workflows/{workflow.id}/builder/")
    problems = page.get_by_test_id("problems")
    expect(problems.get_by_test_id("problem").first).to_contain_text("«ارسال پیامک»")
    expect(problems).to_contain_text("متغیر «target.nickname» ناشناخته است")
    expect(step(page, "0").locator(".step-title")).to_have_text("ارسال پیامک")
    expect(step(page, "1").locator(".step-title")).to_have_text("انتظار")
    assert not NODE_KEY.search(page.locator("main").inner_text())
    shot(page, "workflow-builder-problems-by-title")
    assert axe_violations(page) == []

    merged = workflow_create(actor=actor, name="به‌هم‌پیوسته")  # a graph the list cannot draw: read-only table
    nodes = [
        {"node_key": "start", "type": "start", "subtype": "manual", "name": "", "config": {}},
        {
            "node_key": "n_c0ffee01",
            "type": "condition",
            "subtype": "field_rules",
            "name": "علاقه‌مند؟",
            "config": {"logic": "all", "rules": [{"field": "target.status", "operator": "in", "value": ["new"]}]},
        },
        {**sms_node("n_c0ffee02"), "name": ""},
        {**end_node("n_c0ffee03"), "name": ""},
    ]
    edges = [
        {"from": "start", "to": "n_c0ffee01", "port": "default"},
        {"from": "n_c0ffee01", "to": "n_c0ffee02", "port": "yes"},
        {"from": "n_c0ffee01", "to": "n_c0ffee03", "port": "no"},
        {"from": "n_c0ffee02", "to": "n_c0ffee03", "port": "default"},
    ]
    workflow_graph_save(actor=actor, workflow_id=merged.id, graph_data={"nodes": nodes, "edges": edges})
    page.goto(f"{live_server.url}/automation/workflows/{merged.id}/builder/")
    expect(page.get_by_test_id("undrawable")).to_contain_text("«پایان»")
    table = page.get_by_test_id("graph-table")
    expect(table).to_contain_text("علاقه‌مند؟")
    expect(table).to_contain_text("بله ← ۳. ارسال پیامک")
    expect(table).to_contain_text("خیر ← ۴. پایان")
    assert not NODE_KEY.search(page.locator("main").inner_text())
    assert "c0ffee" not in page.locator("main").inner_text()
    rtl(page)
    shot(page, "workflow-builder-readonly-table")
    assert axe_violations(page) == []


def test_campaign_targets_name_the_current_step_by_kind_never_by_internal_key(page, live_server):
    shop, actor = _shop(Role.MANAGER)
    graph = linear_graph(
        {**sms_node("n_1a2b3c4d"), "name": ""}, wait_node("n_56eb87f2", amount=2), end_node("n_9c0d1e2f")
    )
    campaign = named_journey(actor, graph, "بی‌عنوان")
    lead = make_target(shop, name="سارا احمدی")
    enroll_subjects(actor=actor, campaign_id=campaign.id, target_ids=[lead.id])
    Driver().tick(timezone.now())  # sent, now waiting two days at the untitled wait
    assert Execution.objects.get(campaign=campaign).current_node.node_key == "n_56eb87f2"

    login(page, live_server.url, "mina")
    page.goto(f"{live_server.url}/automation/campaigns/{campaign.id}/targets/")
    row = page.get_by_test_id("executions").locator("tbody tr")
    expect(row).to_have_count(1)
    expect(row.locator("td").nth(4)).to_have_text("انتظار")  # the step column: the kind of an untitled step
    assert not NODE_KEY.search(page.locator("main").inner_text())
    rtl(page)
    shot(page, "journey-targets-step-by-kind")
    for path in (  # the dashboard's next sends, the event log, the target's panel and timeline: kinds too
        f"/automation/campaigns/{campaign.id}/",
        f"/automation/campaigns/{campaign.id}/logs/",
        f"/targets/{lead.id}/edit/",
    ):
        page.goto(f"{live_server.url}{path}")
        expect(page.locator("main")).to_contain_text("انتظار")
        assert not NODE_KEY.search(page.locator("main").inner_text()), path


def test_health_banner_refreshes_itself_every_30_seconds(page, live_server):
    _, actor = _shop(Role.MANAGER)
    campaign = named_journey(actor, linear_graph(sms_node("a"), end_node()), "سالم")  # no target: nothing else polls
    PlatformHeartbeat.objects.update_or_create(name=HEARTBEAT, defaults={"beat_at": timezone.now()})
    page.clock.install()  # the page's timers (htmx "every 30s") run when the test says
    login(page, live_server.url, "mina")
    page.goto(f"{live_server.url}/automation/campaigns/{campaign.id}/")
    expect(page.locator("#journey-health")).to_be_attached()
    expect(page.get_by_test_id("health-banner")).to_have_count(0)
    expect(page.get_by_test_id("dashboard-live")).not_to_have_attribute("hx-trigger", re.compile("every"))

    PlatformHeartbeat.objects.filter(name=HEARTBEAT).update(beat_at=timezone.now() - timedelta(minutes=10))
    asked = []
    page.on("request", lambda r: asked.append(r.url) if "/automation/health/" in r.url else None)
    page.clock.run_for(29_000)
    page.wait_for_timeout(500)
    assert asked == []  # not before its 30 seconds
    expect(page.get_by_test_id("health-banner")).to_have_count(0)
    with page.expect_request(re.compile(rf"/automation/health/\?campaign={campaign.id}$")):
        page.clock.run_for(2_000)
    banner = page.get_by_test_id("health-banner")
    expect(banner.locator("[data-code=heartbeat_stale]")).to_contain_text("زمان‌بند اجرا نمی‌شود")  # no reload
    rtl(page)
    shot(page, "journey-health-banner-refreshed")

    PlatformHeartbeat.objects.filter(name=HEARTBEAT).update(beat_at=timezone.now())  # the beat is back
    page.clock.run_for(31_000)
    expect(page.get_by_test_id("health-banner")).to_have_count(0)


def test_enrollment_progress_of_a_background_batch_keeps_up_by_itself(page, live_server, monkeypatch):
    from automation.services import enrollment_batches

    shop, actor = _shop(Role.MANAGER)
    monkeypatch.setattr(enrollment_batches, "INLINE_MAX", 2)  # three targets run in the background
    campaign = named_journey(actor, linear_graph(sms_node("a"), end_node()), "دسته بزرگ")
    ids = [make_target(shop, name=f"سرنخ {i}").id for i in range(3)]
    batch = enrollment_batch_preview(actor=actor, campaign_id=campaign.id, target_ids=ids)
    queued: list[int] = []
    batch = enrollment_batches.enrollment_batch_commit(actor=actor, batch_id=batch.id, enqueue=queued.append)
    assert (batch.status, queued) == ("committing", [batch.id])

    login(page, live_server.url, "mina")
    page.goto(f"{live_server.url}/automation/campaigns/{campaign.id}/enroll/{batch.id}/")
    progress = page.get_by_test_id("batch-progress")
    expect(progress).to_contain_text("۰ از ۳")
    expect(progress).to_have_attribute("hx-trigger", "every 2s")
    rtl(page)
    shot(page, "journey-enrollment-progress")
    enrollment_batches.enrollment_batch_run(batch_id=batch.id)  # the worker's job
    # the page sees the batch is over and shows its outcome: the person pressed nothing
    expect(page.get_by_test_id("batch-result")).to_contain_text("۳", timeout=15000)
    expect(page.get_by_test_id("batch-progress")).to_have_count(0)
    assert Execution.objects.filter(campaign=campaign).count() == 3


def test_import_report_rows_refresh_while_it_runs_and_a_refused_file_makes_no_list(page, live_server, tmp_path):
    shop, _ = _shop(Role.MANAGER)
    bad = tmp_path / "leads.txt"
    bad.write_text("not a sheet")
    good = tmp_path / "leads.csv"
    good.write_text("نام,موبایل\nسارا,09120000301\nرضا,09120000302\nبی‌شماره,\n", encoding="utf-8")
    login(page, live_server.url, "mina")
    page.goto(f"{live_server.url}/targets/import/")
    page.locator("input[type=file]").set_input_files(str(bad))
    page.fill("#id_new_list", "سرنخ‌های دی")
    page.get_by_role("button", name="بارگذاری").click()
    expect(page.locator(".field-error, .errorlist").first).to_contain_text(".xlsx")
    assert not TargetList.objects.filter(workspace=shop, name="سرنخ‌های دی").exists()  # refused: no empty list

    page.locator("input[type=file]").set_input_files(str(good))
    page.fill("#id_new_list", "سرنخ‌های دی")
    page.get_by_role("button", name="بارگذاری").click()
    expect(page.get_by_test_id("import-status")).to_have_text("در صف")  # no worker in this test: it waits
    target_list = TargetList.objects.get(workspace=shop, name="سرنخ‌های دی")
    imp = TargetImport.objects.get(workspace=shop)
    assert imp.target_list_id == target_list.id
    expect(page.get_by_test_id("import-row")).to_have_count(0)
    shot(page, "target-import-waiting")
    target_import_process(import_id=imp.id)  # the worker's run
    expect(page.get_by_test_id("import-status")).to_have_text("انجام شد", timeout=15000)  # no reload
    expect(page.get_by_test_id("import-row")).to_have_count(3)
    expect(page.get_by_test_id("import-rows")).to_contain_text("نامعتبر")
    expect(page.get_by_test_id("import-report")).not_to_have_attribute("hx-trigger", re.compile("every"))
    rtl(page)
    shot(page, "target-import-done-rows")
    assert axe_violations(page) == []
    page.get_by_role("link", name="نامعتبر", exact=True).click()
    expect(page.get_by_test_id("import-row")).to_have_count(1)
    expect(page.get_by_test_id("import-enroll")).to_contain_text("افزودن این ۲ مخاطب")
    page.get_by_test_id("import-see").click()  # "see them": the targets list, filtered to the new list
    expect(page).to_have_url(re.compile(rf"list={target_list.id}"))
    expect(page.locator("main tbody tr")).to_have_count(2)
    expect(page.locator("main tbody")).to_contain_text("سارا")
    expect(page.locator("main tbody")).to_contain_text("رضا")


def test_a_finished_campaign_reads_finished_on_every_page(page, live_server):
    shop, actor = _shop()
    graph = linear_graph(sms_node("a"), wait_node("w", amount=2, name="دو روز صبر"), sms_node("b"), end_node())
    campaign = named_journey(actor, graph, "زمستان")
    quick = named_journey(actor, linear_graph(sms_node("q"), end_node()), "تمام‌شده زود")
    lead, other = make_target(shop, name="سارا احمدی"), make_target(shop, name="رضا کریمی")
    enroll_subjects(actor=actor, campaign_id=campaign.id, target_ids=[lead.id, other.id])
    enroll_subjects(actor=actor, campaign_id=quick.id, target_ids=[lead.id], on_conflict="add")
    now = timezone.now()
    Driver().tick(now)  # first SMS sent; both wait two days in «زمستان»
    type(campaign).objects.filter(pk=campaign.pk).update(ends_at=now + timedelta(minutes=1))
    Driver().tick(now + timedelta(minutes=2))  # the end time passed: the campaign finishes, its journeys close
    campaign.refresh_from_db()
    assert campaign.status == "completed"
    assert set(Execution.objects.filter(campaign=campaign).values_list("status", "end_reason")) == {
        ("cancelled", "campaign_ended")
    }

    login(page, live_server.url, "mina")
    page.goto(f"{live_server.url}/automation/campaigns/")
    row = page.get_by_test_id(f"campaign-{campaign.id}")
    expect(row).to_contain_text("پایان‌یافته")
    cells = row.locator("td")
    expect(cells.nth(5)).to_have_text("۲")  # finished: closed with the campaign, not "stopped"
    expect(cells.nth(6)).to_have_text("۰")

    page.goto(f"{live_server.url}/automation/campaigns/{campaign.id}/")
    expect(page.get_by_test_id("campaign-status")).to_have_text("پایان‌یافته")
    expect(page.get_by_test_id("campaign-finished")).to_contain_text("این کمپین پایان یافته است")
    expect(page.get_by_test_id("stat-ended-with-campaign")).to_contain_text("۲ با پایان کمپین")
    expect(page.get_by_test_id("stat-paused")).to_contain_text("لغوشده: ۰")
    expect(page.get_by_test_id("controls")).to_have_count(0)
    expect(page.get_by_test_id("dashboard-live")).not_to_have_attribute("hx-trigger", re.compile("every"))
    shot(page, "journey-finished-dashboard")
    assert axe_violations(page) == []

    page.goto(f"{live_server.url}/automation/campaigns/{campaign.id}/targets/")
    statuses = page.get_by_test_id("execution-status")
    expect(statuses).to_have_count(2)
    expect(statuses.first).to_have_text("پایان‌یافته با کمپین")
    expect(page.get_by_test_id("bulk-apply")).to_have_count(0)  # no restart of a finished campaign's journeys
    shot(page, "journey-finished-targets")
    assert axe_violations(page) == []

    page.goto(f"{live_server.url}/targets/{lead.id}/edit/")
    journey = page.get_by_test_id("target-journey").filter(has_text="زمستان")
    expect(journey).to_contain_text("پایان‌یافته با کمپین")
    expect(journey).not_to_contain_text("لغو")
    timeline = page.get_by_test_id("timeline")
    ended = timeline.locator('[data-type="cancelled"]')
    expect(ended).to_have_count(1)
    expect(ended).to_contain_text("پایان کمپین")
    expect(ended).not_to_contain_text("لغو")
    expect(ended).not_to_contain_text("campaign_ended")
    shot(page, "journey-finished-target-panel")
    assert axe_violations(page) == []

    from automation.services.executions import execution_control
    from campaigns.platform.errors import PlatformError

    closed = Execution.objects.filter(campaign=campaign).first()
    with pytest.raises(PlatformError) as refused:
        execution_control(actor=actor, execution_id=closed.id, action="restart")
    assert refused.value.code == "CAMPAIGN_CLOSED"
    closed.refresh_from_db()
    assert closed.status == "cancelled"
