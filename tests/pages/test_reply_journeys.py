"""Replies that change what a journey or a chain does, end to end in Chromium: the messages go out through the
fake Kavenegar (the engine's tick, as the other flow tests run it), the recipients answer through the provider
(Kavenegar's inbox read by the beat job's poll, Melipayamak's push to our URL) and the staff see the result on
the pages. Screenshots at 1366 and 390 px under var/screenshots/reply-*.png."""

from __future__ import annotations

import json
import time
from datetime import timedelta
from pathlib import Path

import pytest
import time_machine
from django.utils import timezone
from playwright.sync_api import expect

from automation.choices import ExecutionStatus
from automation.models import Execution
from automation.services.enrollment import enroll_subjects
from automation.services.workflows import workflow_create, workflow_graph_save
from campaigns.chains.node_models import ChainNode
from campaigns.chains.run_models import CampaignRun, RunExecution
from campaigns.chains.runs.choices import RunStatus, RunType
from campaigns.choices import Role
from campaigns.models import Campaign, Notification
from sms.choices import ACCEPTED
from sms.models import SmsAttempt, SmsProviderAccount
from sms.tasks import inbox_poll
from tests.automation.helpers import Driver, end_node, linear_graph, setup_sms, sms_node, wait_node
from tests.chains.runs_helpers import tick as chain_tick
from tests.sms.fake_provider import FakeProvider

from ..conftest import make_actor, make_list, make_member, make_target, make_workspace
from .axe import axe_violations
from .test_campaign_pages import inside_the_window, named_journey
from .test_chain_pages import node as chain_node
from .test_workflow_pages import add_step, edit, save
from .test_workflow_pages import step as builder_step

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SHOTS = Path("var/screenshots")
KAVENEGAR_LINE = "10004346"
MELIPAYAMAK_LINE = "50001000"


@pytest.fixture
def fake(settings):
    server = FakeProvider()
    settings.SMS_PROVIDER_BASE_URLS = {
        "kavenegar": server.url,
        "melipayamak": server.url,
        "melipayamak_receive": server.url,
    }
    yield server
    server.close()


def sms_through_providers(workspace) -> SmsProviderAccount:
    """Kavenegar sends (and its inbox is polled); a Melipayamak line pushes its replies to us."""
    setup_sms(workspace, provider="kavenegar", credentials={"api_key": "K"}, senders=(KAVENEGAR_LINE,))
    return SmsProviderAccount.objects.create(
        workspace=workspace,
        name="ملی پیامک",
        provider="melipayamak",
        senders=[MELIPAYAMAK_LINE],
        credentials=json.dumps({"username": "u", "password": "p"}),
        inbound_push=True,  # it pushes: the poll leaves it
    )


def local(number: str) -> str:
    return "0" + number.removeprefix("+98")


def push(page, base: str, account: SmsProviderAccount, sender: str, text: str) -> None:
    """Melipayamak's panel calls our URL: from a context of its own (no staff session cookie goes with it)."""
    url = f"{base}/api/webhooks/sms/inbound/{account.id}/{account.inbound_token}"
    provider = page.context.browser.new_context()
    try:
        answered = provider.request.get(url, params={"from": local(sender), "to": MELIPAYAMAK_LINE, "body": text})
        assert (answered.status, answered.text()) == (200, "OK")
    finally:
        provider.close()


def poll_reply(fake: FakeProvider, sender: str, text: str) -> None:
    # Kavenegar dates a message in whole seconds: the next one, so the reply is not older than the send it answers.
    fake.reply(local(sender), text, line=KAVENEGAR_LINE, at=int(time.time()) + 1)
    assert inbox_poll()["stored"] == 1  # the beat job's task reads Kavenegar's inbox


def login(page, base: str, username: str) -> None:
    page.goto(f"{base}/login/")
    page.fill("#id_username", username)
    page.fill("#id_password", "pw-123456")
    page.click("button[type=submit]")
    expect(page.locator("h1")).to_contain_text("پیشخوان")


def shots(page, name: str) -> None:
    """axe-clean at both widths, never scrolling sideways; a screenshot of each."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    for width in (1366, 390):
        page.set_viewport_size({"width": width, "height": 900})
        assert axe_violations(page) == [], (name, width)
        overflow = page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")
        assert overflow <= 1, (name, width, overflow)
        page.screenshot(path=str(SHOTS / f"reply-{name}-{width}.png"), full_page=True)
    page.set_viewport_size({"width": 1366, "height": 900})


def sent_to(campaign, text: str) -> list[str]:
    """The numbers the provider accepted ``text`` for in ``campaign``."""
    attempts = SmsAttempt.objects.filter(campaign=campaign, message=text, status__in=ACCEPTED)
    return sorted(attempts.values_list("phone", flat=True))


def test_a_lagv_reply_stops_that_persons_next_send_and_the_staff_see_it(page, live_server, fake):
    shop = make_workspace("shop")
    mina = make_member(shop, Role.OWNER, username="mina")
    actor = make_actor(shop, user=mina)
    meli = sms_through_providers(shop)
    first, second = "سلام {target.first_name}، جشنواره پاییز شروع شد", "فقط امروز: بیست درصد تخفیف"
    graph = linear_graph(sms_node("a", body=first), wait_node("w", amount=1), sms_node("b", body=second), end_node())
    campaign = named_journey(actor, graph, "جشنواره پاییز")
    sara = make_target(shop, name="سارا احمدی", first_name="سارا")
    reza = make_target(shop, name="رضا کریمی", first_name="رضا")
    negar = make_target(shop, name="نگار رحیمی", first_name="نگار")
    enroll_subjects(actor=actor, campaign_id=campaign.id, target_ids=[sara.id, reza.id, negar.id])

    driver = Driver()
    now = inside_the_window(timezone.now())
    driver.tick(now)
    assert len(fake.log) == 3  # the first message reached all three through the provider
    # Sara answers «لغو۱۱» on the line that wrote to her (read by the poll), Reza «لغو 11» to our other line (pushed).
    poll_reply(fake, sara.mobile, "لغو۱۱")
    push(page, live_server.url, meli, reza.mobile, "لغو 11")

    later = inside_the_window(now + timedelta(days=1, minutes=2))
    driver.tick(later)
    driver.tick(later + timedelta(minutes=1))
    assert sent_to(campaign, second) == [negar.mobile] and len(fake.log) == 4  # nothing more left for the provider
    statuses = dict(Execution.objects.filter(campaign=campaign).values_list("subject_id", "status"))
    assert statuses == {
        sara.id: ExecutionStatus.BLACKLISTED,
        reza.id: ExecutionStatus.BLACKLISTED,
        negar.id: ExecutionStatus.COMPLETED,
    }

    # The owner hears of the reply to her journey, and the inbox shows both opt-outs.
    login(page, live_server.url, "mina")
    assert Notification.objects.filter(recipient=mina, kind="sms_reply").count() == 1
    page.get_by_test_id("bell").click()
    expect(page.get_by_role("link", name="پاسخ تازه به «جشنواره پاییز»")).to_be_visible()
    page.get_by_test_id("nav-sms-inbox").click()
    page.select_option("#id_outcome", "opt_out")
    page.click("button:has-text('نمایش')")
    rows = page.get_by_test_id("inbox-row")
    expect(rows).to_have_count(2)
    saras = rows.filter(has_text="لغو۱۱")
    expect(saras.get_by_test_id("inbox-target")).to_have_text("سارا احمدی")
    expect(saras).to_contain_text("جشنواره پاییز")  # linked to the campaign whose message she answered
    expect(rows.filter(has_text="لغو 11").get_by_test_id("inbox-target")).to_have_text("رضا کریمی")
    expect(rows.get_by_test_id("inbox-outcome")).to_have_text(["لغو دریافت", "لغو دریافت"])
    shots(page, "optout-inbox")

    # Sara's page: the thread shows what was sent and her opt-out, the timeline why the next message did not go.
    saras.get_by_test_id("inbox-target").click()
    thread = page.get_by_test_id("thread-message")
    expect(thread).to_have_count(2)
    expect(thread.nth(0)).to_have_attribute("data-direction", "out")
    expect(thread.nth(0)).to_contain_text("سلام سارا، جشنواره پاییز شروع شد")
    expect(thread.nth(1)).to_contain_text("لغو۱۱")
    expect(thread.nth(1).get_by_test_id("thread-outcome")).to_have_text("لغو دریافت")
    expect(page.get_by_test_id("timeline").get_by_test_id("why-not-sent").first).to_contain_text(
        "شماره در لیست سیاه است"
    )
    page.get_by_test_id("panel-sms").scroll_into_view_if_needed()
    shots(page, "optout-target")

    # The blacklist says where the entry came from.
    page.goto(f"{live_server.url}/sms/blacklist/")
    expect(page.locator("body")).to_contain_text("پاسخ گیرنده: لغو۱۱")
    expect(page.locator("body")).to_contain_text("پاسخ گیرنده: لغو 11")


def test_wait_until_reply_takes_both_branches_of_a_journey_built_and_started_on_the_pages(page, live_server, fake):
    shop = make_workspace("shop")
    mina = make_member(shop, Role.MANAGER, username="mina")
    actor = make_actor(shop, user=mina)
    meli = sms_through_providers(shop)
    sara = make_target(shop, name="سارا احمدی", first_name="سارا")
    reza = make_target(shop, name="رضا کریمی", first_name="رضا")
    guests = make_list(shop, "مهمانان")
    for person in (sara, reza):
        person.lists.add(guests)
    workflow = workflow_create(actor=actor, name="دعوت جشن")
    ask = sms_node("ask", body="{target.first_name} عزیز، فردا به جشن می‌آیید؟")
    wait = wait_node("w", amount=2, unit="days")
    workflow_graph_save(actor=actor, workflow_id=workflow.id, graph_data=linear_graph(ask, wait, end_node()))
    base = live_server.url

    # The builder: the wait ends early on a reply; replied → thanks quoting the reply, silent → a reminder.
    login(page, base, "mina")
    page.goto(f"{base}/automation/workflows/{workflow.id}/builder/")
    dialog = edit(page, "1")
    dialog.get_by_test_id("wait-until-fact").select_option("reply.received")
    save(dialog)
    add_step(page, "2", "شرط")
    dialog = edit(page, "2")
    dialog.locator("select[name=rule_field_0]").select_option("reply.received")
    dialog.locator("select[name=rule_op_0]").select_option("is_true")
    save(dialog)
    expect(builder_step(page, "2")).to_contain_text("پاسخ پیامکی از آخرین ارسال")
    add_step(page, "2.yes.0", "ارسال پیامک")
    dialog = edit(page, "2.yes.0")
    dialog.locator("textarea").fill("ممنون {target.first_name}، پاسخ شما: «{reply.text}»")
    # The preview of a step in a branch: the newest target with a sample reply.
    expect(dialog.get_by_test_id("preview-text")).to_have_text("ممنون رضا، پاسخ شما: «بله»")
    shots(page, "wait-builder-preview")
    save(dialog)
    add_step(page, "2.no.0", "ارسال پیامک")
    dialog = edit(page, "2.no.0")
    dialog.locator("textarea").fill("یادآوری: فردا جشن است، منتظرتان هستیم")
    save(dialog)
    add_step(page, "2.no.1", "پایان")
    expect(page.get_by_test_id("problems")).to_contain_text("ایرادی نیست")
    page.get_by_test_id("publish").click()
    expect(page.locator(".flash-success")).to_contain_text("نسخه ۱ منتشر شد")

    # A campaign on it for the guest list, reviewed, added and started on the pages.
    page.get_by_test_id("nav-journeys").click()
    page.get_by_test_id("new-campaign").click()
    page.fill("#id_name", "دعوت جشن پاییز")
    page.select_option("#id_workflow", str(workflow.id))
    for day in ("sat", "sun", "mon", "tue", "wed", "thu", "fri"):
        page.fill(f"#id_win_{day}_start", "00:00")
        page.fill(f"#id_win_{day}_end", "23:59")
    page.select_option("#id_source_list", str(guests.id))
    page.get_by_role("button", name="ساخت کمپین").click()
    expect(page.get_by_test_id("class-ready")).to_contain_text("۲")
    page.get_by_test_id("commit").click()
    expect(page.locator(".flash-success")).to_contain_text("۲ مخاطب به کمپین افزوده شد")
    page.get_by_role("link", name="رفتن به داشبورد کمپین").click()
    page.get_by_test_id("control-activate").click()
    expect(page.locator(".flash-success")).to_contain_text("شروع شد")
    campaign = Campaign.objects.get(workspace=shop, name="دعوت جشن پاییز")

    driver = Driver()
    now = inside_the_window(timezone.now())
    driver.tick(now)
    assert sent_to(campaign, "سارا عزیز، فردا به جشن می‌آیید؟") == [sara.mobile]
    # Sara answers through the provider's push; her wait ends at the next tick, two days early.
    push(page, base, meli, sara.mobile, "بله، حتما می‌آیم")
    driver.tick(inside_the_window(timezone.now() + timedelta(minutes=1)))
    driver.tick(inside_the_window(timezone.now() + timedelta(minutes=2)))
    assert sent_to(campaign, "ممنون سارا، پاسخ شما: «بله، حتما می‌آیم»") == [sara.mobile]
    assert Execution.objects.get(campaign=campaign, subject_id=reza.id).status == ExecutionStatus.WAITING
    # Reza never answers: the reminder when the two days are over.
    later = inside_the_window(now + timedelta(days=2, minutes=2))
    driver.tick(later)
    driver.tick(later + timedelta(minutes=1))
    assert sent_to(campaign, "یادآوری: فردا جشن است، منتظرتان هستیم") == [reza.mobile]
    assert len(fake.log) == 4  # two questions, one thanks, one reminder: nothing else reached the provider
    assert set(Execution.objects.filter(campaign=campaign).values_list("status", flat=True)) == {
        ExecutionStatus.COMPLETED
    }

    # Each person's page shows the branch taken.
    page.goto(f"{base}/targets/{sara.id}/edit/")
    thread = page.get_by_test_id("thread-message")
    expect(thread).to_have_count(3)
    expect(thread.nth(1)).to_have_attribute("data-direction", "in")
    expect(thread.nth(2)).to_contain_text("ممنون سارا، پاسخ شما: «بله، حتما می‌آیم»")
    expect(page.get_by_test_id("timeline")).to_contain_text("ممنون سارا")
    page.get_by_test_id("panel-sms").scroll_into_view_if_needed()
    shots(page, "wait-replied")
    page.goto(f"{base}/targets/{reza.id}/edit/")
    thread = page.get_by_test_id("thread-message")
    expect(thread).to_have_count(2)
    expect(thread.nth(1)).to_contain_text("یادآوری: فردا جشن است")
    expect(page.get_by_test_id("timeline")).not_to_contain_text("ممنون")
    page.get_by_test_id("panel-sms").scroll_into_view_if_needed()
    shots(page, "wait-silent")


def test_a_chain_follow_up_reaches_exactly_those_who_did_not_reply(page, live_server, fake):
    """A root whose goal is «پاسخ مخاطب به پیامک» and a "not converted" follow-up two days later, built, submitted
    and approved on the pages; the root sends (the engine's tick under simulated time), two of six answer through
    the providers (poll and push), one answered the day before the run (to nothing of it): the follow-up's
    audience and its sends are the four others."""
    shop = make_workspace("shop")
    make_member(shop, Role.ADMIN, username="mina")
    setup_sms(shop)  # the chain's messages go out through the console account
    kavenegar = SmsProviderAccount.objects.create(
        workspace=shop,
        name="کاوه‌نگار",
        provider="kavenegar",
        senders=[KAVENEGAR_LINE],
        credentials=json.dumps({"api_key": "K"}),
    )
    meli = SmsProviderAccount.objects.create(
        workspace=shop,
        name="ملی پیامک",
        provider="melipayamak",
        senders=[MELIPAYAMAK_LINE],
        credentials=json.dumps({"username": "u", "password": "p"}),
        inbound_push=True,
    )
    customers = make_list(shop, "مشتریان")
    people = [make_target(shop, name=f"مشتری {i + 1}") for i in range(6)]
    for person in people:
        person.lists.add(customers)
    base = live_server.url

    login(page, base, "mina")
    page.goto(f"{base}/chains/groups/")
    page.get_by_test_id("group-new").click()
    page.fill("#group-name", "نظرسنجی مشتریان")
    page.get_by_role("button", name="ساخت گروه").click()
    page.get_by_test_id("campaign-new").click()
    page.fill("#f-name", "پرسش رضایت")
    page.fill("#f-content", "از خرید راضی بودید؟ پاسخ دهید")
    page.get_by_test_id("audience-list").select_option(label="مشتریان (۶ نفر)")
    page.select_option("#f-goal", "REPLIED")
    page.get_by_test_id("save").click()
    expect(page.locator(".flash-success")).to_contain_text("کمپین «پرسش رضایت» ساخته شد")
    chain_node(page, "پرسش رضایت").get_by_test_id("add-child").click()
    page.get_by_test_id("inherit-NOT_CONVERTED").check()
    page.get_by_test_id("timing-AFTER_INTERVAL").check()
    page.fill("#f-offset", "2")
    page.fill("#f-name", "یادآوری پرسش")
    page.fill("#f-content", "هنوز منتظر نظر شما هستیم")
    page.get_by_test_id("save").click()
    expect(page.locator(".flash-success")).to_contain_text("کمپین «یادآوری پرسش» ساخته شد")
    chain_node(page, "پرسش رضایت").get_by_test_id("submit").click()
    page.get_by_test_id("approve").click()
    expect(page.get_by_test_id("package-status")).to_have_text("تأییدشده")
    root = ChainNode.objects.get(workspace=shop, name="پرسش رضایت")
    child = ChainNode.objects.get(workspace=shop, name="یادآوری پرسش")
    assert root.goal == {"type": "REPLIED"}
    first = CampaignRun.objects.get(campaign=root, run_type=RunType.SCHEDULED, status=RunStatus.SCHEDULED)
    starts = first.planned_at

    # The day before the run someone answers an older message: nothing of this run.
    with time_machine.travel(starts - timedelta(days=1), tick=False):
        push(page, base, meli, people[5].mobile, "سلام")
    chain_tick(starts)
    with time_machine.travel(starts + timedelta(minutes=1), tick=False):
        Driver().tick(starts + timedelta(minutes=1))
    chain_tick(starts + timedelta(minutes=10))
    first.refresh_from_db()
    assert first.status == RunStatus.COMPLETED and SmsAttempt.objects.filter(campaign=root).count() == 6
    # Two answer during the run: one read from Kavenegar's inbox by the poll, one pushed by Melipayamak.
    with time_machine.travel(starts + timedelta(hours=3), tick=False):
        fake.reply(local(people[0].mobile), "بله، خیلی راضی", line=KAVENEGAR_LINE, at=int(time.time()))
        assert inbox_poll()["stored"] == 1 and kavenegar.id
        push(page, base, meli, people[1].mobile, "نه زیاد")

    follow_up = CampaignRun.objects.get(campaign=child, period_key=first.id)
    chain_tick(follow_up.planned_at)
    with time_machine.travel(follow_up.planned_at + timedelta(minutes=1), tick=False):
        Driver().tick(follow_up.planned_at + timedelta(minutes=1))
    chain_tick(follow_up.planned_at + timedelta(minutes=10))
    follow_up.refresh_from_db()
    silent = {p.id for p in people[2:]}
    assert set(RunExecution.objects.filter(run=follow_up).values_list("target_id", flat=True)) == silent
    reminded = SmsAttempt.objects.filter(campaign=child).values_list("subject_id", flat=True)
    assert sorted(reminded) == sorted(silent) and follow_up.audience_count == 4

    page.goto(f"{base}/chains/campaigns/{child.id}/runs/")
    expect(page.get_by_test_id("latest-count")).to_have_text("۴ مخاطب")
    row = page.locator(f"[data-testid=run-row][data-run-id='{follow_up.id}']")
    expect(row).to_contain_text("ارث‌بری از منبع")
    shots(page, "chain-not-replied-runs")
