"""The whole chain story on the pages, in Chromium, under time travel: a root that reaches a list, a
"not converted" follow-up with a 20 % control group, submitted by one member and approved by another; the root
sends, the follow-up inherits the people who did not convert, and the lift table compares them with its control.

Pages are used at the real time; the scheduler, the engine and the customers' conversions happen at simulated
times (``time_machine``), the way they would over a month. Screenshots land in var/screenshots/."""

from datetime import timedelta

import pytest
import time_machine
from playwright.sync_api import expect

from campaigns.approval_selectors import FOUR_EYES_SETTING
from campaigns.chains.models import ChainNode
from campaigns.chains.run_models import CampaignRun, ConversionEvent, RunExecution
from campaigns.chains.runs.choices import RunStatus, RunType
from campaigns.choices import Role
from sms.models import SmsAttempt
from tests.automation.helpers import Driver, setup_sms
from tests.chains.runs_helpers import tick

from ..conftest import make_list, make_member, make_target, make_workspace
from .axe import axe_violations
from .test_chain_pages import LATIN_DIGIT, login, logout, node, shot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PEOPLE = 200


def fa(n) -> str:
    return str(n).translate(str.maketrans("0123456789", "۰۱۲۳۴۵۶۷۸۹"))


def send_everything(at):
    """The engine's worker at ``at``: every due step of every execution (the SMS goes to the console provider)."""
    with time_machine.travel(at, tick=False):
        Driver().tick(at)


def convert(workspace, target_ids, at):
    for target_id in target_ids:
        ConversionEvent.objects.create(
            workspace=workspace, target_id=target_id, name="target_status:converted", occurred_at=at
        )


def test_a_chain_from_the_pages_sends_inherits_and_measures_lift(page, live_server):
    shop = make_workspace("shop", settings={FOUR_EYES_SETTING: True, "calendar": "jalali"})
    make_member(shop, Role.ADMIN, username="mina")  # may approve, but not what she submitted herself
    make_member(shop, Role.ADMIN, username="ali")
    setup_sms(shop)
    customers = make_list(shop, "مشتریان")
    for _ in range(PEOPLE):
        make_target(shop).lists.add(customers)
    base = live_server.url

    # mina builds the group, the root (its audience is the list) and a "not converted" follow-up with 20 % control
    login(page, base, "mina")
    page.goto(f"{base}/chains/groups/")
    page.get_by_test_id("group-new").click()
    page.fill("#group-name", "خوش‌آمد مشتریان")
    page.get_by_role("button", name="ساخت گروه").click()
    page.get_by_test_id("campaign-new").click()
    page.fill("#f-name", "خوش‌آمد")
    page.fill("#f-content", "سلام، به فروشگاه خوش آمدید")
    page.get_by_test_id("audience-list").select_option(label=f"مشتریان ({fa(PEOPLE)} نفر)")
    expect(page.get_by_test_id("audience-reach")).to_have_text(f"این کمپین به {fa(PEOPLE)} نفر می‌رسد")
    shot(page, "chains-e2e-root-form")
    page.get_by_test_id("save").click()
    expect(page.locator(".flash-success")).to_contain_text("کمپین «خوش‌آمد» ساخته شد")
    node(page, "خوش‌آمد").get_by_test_id("add-child").click()
    page.get_by_test_id("inherit-NOT_CONVERTED").check()
    page.get_by_test_id("timing-AFTER_INTERVAL").check()
    page.fill("#f-offset", "2")
    page.fill("#f-name", "یادآوری")
    page.fill("#f-content", "هنوز فرصت دارید")
    page.get_by_test_id("control-percent").fill("۲۰")
    page.get_by_test_id("save").click()
    expect(page.locator(".flash-success")).to_contain_text("کمپین «یادآوری» ساخته شد")
    root = ChainNode.objects.get(workspace=shop, name="خوش‌آمد")
    child = ChainNode.objects.get(workspace=shop, name="یادآوری")
    assert child.parent_id == root.id and child.chain_action["control_percent"] == 20

    # mina submits; under four eyes she cannot approve her own package
    node(page, "خوش‌آمد").get_by_test_id("submit").click()
    expect(page.get_by_test_id("package-status")).to_have_text("در انتظار تأیید")
    expect(page.get_by_test_id("own-package")).to_contain_text("تأییدکننده دیگری")
    expect(page.get_by_test_id("row-audience").first).to_have_text("فهرست «مشتریان»")
    expect(page.get_by_test_id("approve")).to_have_count(0)
    logout(page)

    # ali approves
    login(page, base, "ali")
    page.goto(f"{base}/chains/approvals/")
    page.get_by_test_id("package-row").get_by_role("link").first.click()
    expect(page.get_by_test_id("approvers")).to_contain_text("ali")
    page.get_by_test_id("approve").click()
    expect(page.get_by_test_id("package-status")).to_have_text("تأییدشده")
    shot(page, "chains-e2e-approved")
    first = CampaignRun.objects.get(campaign=root, run_type=RunType.SCHEDULED, status=RunStatus.SCHEDULED)
    starts = first.planned_at

    # the month passes: the root runs at its time and the engine sends every message
    tick(starts)
    send_everything(starts + timedelta(minutes=1))
    tick(starts + timedelta(minutes=10))
    first.refresh_from_db()
    assert first.status == RunStatus.COMPLETED and first.audience_count == PEOPLE
    assert SmsAttempt.objects.filter(campaign=root).count() == PEOPLE
    page.goto(f"{base}/chains/campaigns/{root.id}/runs/")
    row = page.locator(f"[data-testid=run-row][data-run-id='{first.id}']")
    expect(row).to_contain_text("کامل")
    expect(row).to_contain_text(fa(PEOPLE))
    shot(page, "chains-e2e-root-runs")
    page.goto(f"{base}/sms/log/")
    # The log pages by time (newer / older, nothing counted): a full first page and a way to the older sends.
    expect(page.locator("body")).to_contain_text("ردیف در این صفحه")
    expect(page.get_by_role("link", name="قدیمی‌تر")).to_be_visible()
    expect(page.locator("body")).to_contain_text("سلام، به فروشگاه خوش آمدید")
    shot(page, "chains-e2e-sms-log")

    # a day later 20 customers have converted; two days after the root started the follow-up takes the rest
    sent = list(RunExecution.objects.filter(run=first).order_by("target_id").values_list("target_id", flat=True))
    convert(shop, sent[:20], starts + timedelta(days=1))
    follow_up = CampaignRun.objects.get(campaign=child, period_key=first.id)
    tick(follow_up.planned_at)
    send_everything(follow_up.planned_at + timedelta(minutes=1))
    tick(follow_up.planned_at + timedelta(minutes=10))
    follow_up.refresh_from_db()
    assert follow_up.audience_count == PEOPLE - 20 and follow_up.status == RunStatus.COMPLETED
    control = set(follow_up.target_snapshot.members.filter(is_control=True).values_list("target_id", flat=True))
    treated = set(
        RunExecution.objects.filter(run=follow_up, execution_id__isnull=False).values_list("target_id", flat=True)
    )
    assert len(control) + len(treated) == PEOPLE - 20 and not control & treated
    # 20 % of 180 by a hash of the campaign's random seed: 36 expected, σ ≈ 5.4 — bounds about 4σ wide
    assert 15 <= len(control) <= 57, len(control)
    assert not set(sent[:20]) & (control | treated)  # who converted is not messaged again

    # in the days after it, 40 % of the reminded and 10 % of the control group convert
    later = follow_up.started_at + timedelta(days=1)
    convert(shop, sorted(treated)[: len(treated) * 4 // 10], later)
    convert(shop, sorted(control)[: len(control) // 10], later)

    page.goto(f"{base}/chains/groups/{root.group_id}/")
    expect(node(page, "یادآوری").get_by_test_id("latest-run")).to_have_text(f"آخرین اجرا: {fa(PEOPLE - 20)} مخاطب")
    expect(node(page, "یادآوری").get_by_test_id("inheritance-label")).to_have_text("ارث‌بری از «خوش‌آمد» – تبدیل‌نشده")
    shot(page, "chains-e2e-tree")
    page.goto(f"{base}/chains/campaigns/{child.id}/runs/")
    expect(page.get_by_test_id("latest-count")).to_have_text(f"{fa(PEOPLE - 20)} مخاطب")
    row = page.locator(f"[data-testid=run-row][data-run-id='{follow_up.id}']")
    expect(row).to_contain_text("ارث‌بری از منبع")
    expect(row).to_contain_text(f"(کنترل {fa(len(control))})")
    lift = page.get_by_test_id("lift-table")
    expect(lift).to_contain_text(f"{fa(len(treated))} نفر، {fa(len(treated) * 4 // 10)} تبدیل")
    expect(lift).to_contain_text(f"{fa(len(control))} نفر، {fa(len(control) // 10)} تبدیل")
    expect(lift).to_contain_text("بازه اطمینان ۹۵٪")
    expect(lift).to_contain_text("اثر مثبت معنادار")
    expect(row.get_by_test_id("run-lift")).to_contain_text("تا")
    assert not LATIN_DIGIT.search(lift.inner_text())
    assert axe_violations(page) == []
    shot(page, "chains-e2e-child-runs")
