"""Chain pages in Chromium: a group, a chain A → B, approval, chain control, runs; roles and tenancy.

Screenshots of every page land in var/screenshots/ (look at them after a run)."""

import re
from pathlib import Path

import pytest
from playwright.sync_api import expect

from campaigns.chains.choices import ChainControl, PackageStatus
from campaigns.chains.models import CampaignGroup, ChainApprovalPackage, ChainNode
from campaigns.chains.run_models import CampaignRun
from campaigns.chains.runs.choices import RunStatus, RunType
from campaigns.chains.text import name_key, search_text
from campaigns.choices import CampaignStatus, Role

from ..conftest import make_list, make_member, make_target, make_workspace
from .axe import axe_violations
from .test_jalali_picker import pick_day

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SHOTS = Path("var/screenshots")
JALALI = re.compile(r"۱۴[۰-۹]{2}/[۰-۹]{2}/[۰-۹]{2}")
LATIN_DIGIT = re.compile(r"[0-9]")


def shot(page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)


def login(page, base: str, username: str) -> None:
    page.goto(f"{base}/login/")
    page.fill("#id_username", username)
    page.fill("#id_password", "pw-123456")
    page.click("button[type=submit]")
    expect(page.locator("h1")).to_contain_text("پیشخوان")


def logout(page) -> None:
    page.get_by_role("button", name="خروج").click()


def post_as_page(page, url: str, data: dict):
    """A form POST with the page's session and CSRF cookie (what a hand-made request could send)."""
    token = next(c["value"] for c in page.context.cookies() if c["name"] == "csrftoken")
    return page.request.post(url, form=data, headers={"X-CSRFToken": token, "Referer": url})


def make_group(workspace, name: str) -> CampaignGroup:
    return CampaignGroup.objects.create(
        workspace=workspace, name=name, name_key=name_key(name), name_search=search_text(name)
    )


def node(page, name: str):
    return page.locator(f'[data-testid=node][data-name="{name}"]').first


def test_build_submit_approve_and_control_a_chain(page, live_server):
    from tests.automation.helpers import setup_sms

    shop = make_workspace("shop")
    setup_sms(shop)  # a usable SMS account: without one the launch check disables Approve
    make_member(shop, Role.MANAGER, username="mina")
    make_member(shop, Role.ADMIN, username="ali")
    base = live_server.url
    login(page, base, "mina")

    # groups: create one
    page.get_by_test_id("nav-chains").click()
    expect(page.locator("html")).to_have_attribute("dir", "rtl")
    expect(page.get_by_test_id("group-table")).to_contain_text("هنوز گروهی نساخته‌اید")
    page.get_by_test_id("group-new").click()
    page.fill("#group-name", "پیگیری فروش")
    page.fill("#group-desc", "مشتریان تازه")
    shot(page, "chains-group-new-dialog")
    page.get_by_role("button", name="ساخت گروه").click()
    expect(page.locator(".flash-success")).to_contain_text("گروه «پیگیری فروش» ساخته شد")
    group = CampaignGroup.objects.get(workspace=shop)

    # root A: monthly on the 1st at 09:00, goal "converted", an SMS, to the new customers of Tehran in a list
    customers = make_list(shop, "مشتریان")
    for city, status in [("تهران", "new"), ("تهران", "new"), ("تهران", "converted"), ("شیراز", "new")]:
        make_target(shop, city=city, status=status).lists.add(customers)
    page.get_by_test_id("campaign-new").click()
    page.fill("#f-name", "خوش‌آمد")
    page.fill("#f-content", "سلام، به فروشگاه خوش آمدید")
    audience = page.get_by_test_id("audience")
    expect(audience.get_by_test_id("audience-count-error")).to_contain_text("فهرست مخاطبان را انتخاب کنید")
    page.get_by_test_id("audience-list").select_option(label="مشتریان (۴ نفر)")
    expect(audience.get_by_test_id("audience-reach")).to_have_text("این کمپین به ۴ نفر می‌رسد")
    page.get_by_test_id("audience-city").fill("تهران")
    expect(audience.get_by_test_id("audience-reach")).to_have_text("این کمپین به ۳ نفر می‌رسد")
    page.get_by_test_id("audience-status-new").check()
    expect(audience.get_by_test_id("audience-reach")).to_have_text("این کمپین به ۲ نفر می‌رسد")
    page.get_by_test_id("when-start").fill("۱۴۰۵/۰۱/۰۱")
    page.get_by_test_id("when-end").fill("1406/12/29")
    shot(page, "chains-root-form")
    page.get_by_test_id("save").click()
    expect(page.locator(".flash-success")).to_contain_text("کمپین «خوش‌آمد» ساخته شد")
    made = ChainNode.objects.get(workspace=shop, name="خوش‌آمد")
    assert made.source_target_list_id == customers.id
    assert made.audience_filters == {"status": ["new"], "city": "تهران"}
    assert (made.root_schedule["start_date"], made.root_schedule["end_date"]) == ("2026-03-21", "2028-03-19")
    expect(node(page, "خوش‌آمد").get_by_test_id("node-audience")).to_have_text(
        "مخاطبان: فهرست «مشتریان» — وضعیت: جدید؛ شهر: تهران"
    )
    expect(node(page, "خوش‌آمد")).to_contain_text("هر ماه روز ۱ ساعت ۰۹:۰۰، از ۱۴۰۵/۰۱/۰۱ تا ۱۴۰۶/۱۲/۲۹")

    # child B under A: "not converted", two days after A starts
    node(page, "خوش‌آمد").get_by_test_id("add-child").click()
    expect(page.locator("h1")).to_contain_text("دنباله تازه")
    page.get_by_test_id("inherit-NOT_CONVERTED").check()
    page.get_by_test_id("timing-AFTER_INTERVAL").check()
    offset = page.locator("#f-offset")
    assert offset.get_attribute("dir") == "ltr"
    offset.fill("2")
    offset.dispatch_event("change")
    preview = page.get_by_test_id("preview")
    expect(preview.locator("tbody tr")).to_have_count(4)
    assert JALALI.search(preview.inner_text()) and not LATIN_DIGIT.search(preview.locator("tbody").inner_text())
    page.fill("#f-name", "یادآوری")
    page.fill("#f-content", "هنوز فرصت دارید")
    page.get_by_test_id("control-percent").fill("۲۰")
    page.get_by_test_id("daily-limit").fill("۵۰")
    expect(page.get_by_test_id("cap-priority")).to_have_value("normal")
    page.get_by_label("اولویت در سقف پیامک تبلیغاتی").select_option(label="پایین")
    assert axe_violations(page) == []
    shot(page, "chains-child-form")
    page.get_by_test_id("save").click()
    expect(page.locator(".flash-success")).to_contain_text("کمپین «یادآوری» ساخته شد")
    child = node(page, "یادآوری")
    expect(child.get_by_test_id("inheritance-label")).to_have_text("ارث‌بری از «خوش‌آمد» – تبدیل‌نشده")
    expect(child.get_by_test_id("latest-run")).to_contain_text("هنوز اجرا نشده")
    expect(page.get_by_test_id("tree-count")).to_contain_text("۱ زنجیره")
    shot(page, "chains-group-tree-draft")
    a = ChainNode.objects.get(workspace=shop, name="خوش‌آمد")
    b = ChainNode.objects.get(workspace=shop, name="یادآوری")
    assert b.parent_id == a.id and b.root_id == a.id and a.group_id == group.id
    assert b.chain_action["control_percent"] == 20 and b.daily_limit == 50
    assert b.journey_settings == {"frequency_cap_priority": "low"} and a.journey_settings == {}
    assert b.inheritance == {
        "type": "NOT_CONVERTED",
        "schedule": {"type": "AFTER_INTERVAL", "offset_days": 2, "run_time": "09:00"},
    }

    # submit the chain; the manager sees the package but cannot decide it
    node(page, "خوش‌آمد").get_by_test_id("submit").click()
    expect(page.locator(".flash-success")).to_contain_text("برای تأیید ارسال شد")
    expect(page.get_by_test_id("package-status")).to_have_text("در انتظار تأیید")
    expect(page.get_by_test_id("snapshot")).to_contain_text("یادآوری")
    expect(page.get_by_test_id("row-audience").first).to_have_text("فهرست «مشتریان» — وضعیت: جدید؛ شهر: تهران")
    expect(page.get_by_test_id("problems")).to_have_count(0)
    assert JALALI.search(page.get_by_test_id("submitted-at").inner_text())
    expect(page.get_by_test_id("approve")).to_have_count(0)
    expect(page.get_by_test_id("no-approve")).to_be_visible()
    shot(page, "chains-package-manager")
    package = ChainApprovalPackage.objects.get(workspace=shop)
    refused = post_as_page(
        page,
        f"{base}/chains/approvals/{package.id}/approve/",
        {"expected_submitted_revision": package.submitted_revision},
    )
    assert refused.status == 403
    package.refresh_from_db()
    assert package.status == PackageStatus.SUBMITTED
    logout(page)

    # the admin approves from the package list
    login(page, base, "ali")
    page.get_by_test_id("nav-chains").click()
    page.get_by_test_id("nav-packages").click()
    expect(page.get_by_test_id("package-row")).to_have_count(1)
    shot(page, "chains-package-list")
    page.get_by_role("link", name=re.compile("بسته #")).click()
    shot(page, "chains-package-admin")
    page.get_by_test_id("approve").click()
    expect(page.locator(".flash-success")).to_contain_text("زنجیره تأیید شد")
    expect(page.get_by_test_id("package-status")).to_have_text("تأییدشده")
    expect(page.get_by_test_id("decision")).to_have_count(0)
    shot(page, "chains-package-approved")

    # the tree shows the approved chain: badges, the next run with a Jalali time
    page.get_by_role("link", name="زنجیره در گروه").click()
    root = node(page, "خوش‌آمد")
    expect(root.get_by_test_id("node-status").first).to_have_text("در انتظار شروع")
    expect(node(page, "یادآوری").get_by_test_id("node-status")).to_have_text("در انتظار شروع")
    assert JALALI.search(root.get_by_test_id("latest-run").first.inner_text())
    expect(root.get_by_test_id("edit")).to_have_count(0)
    shot(page, "chains-group-tree-approved")

    # pause, then resume, each after a confirmation
    root.get_by_test_id("pause").first.click()
    dialog = page.get_by_test_id("confirm-dialog")
    expect(dialog).to_be_visible()
    expect(dialog).to_contain_text("توقف موقت «خوش‌آمد»")
    shot(page, "chains-pause-confirm")
    dialog.get_by_test_id("confirm-submit").click()
    expect(page.locator(".flash-success")).to_contain_text("متوقف موقت شد")
    root = node(page, "خوش‌آمد")
    expect(root.get_by_test_id("chain-control")).to_have_text("متوقف موقت")
    a.refresh_from_db()
    assert a.chain_control == ChainControl.PAUSED
    shot(page, "chains-group-tree-paused")
    root.get_by_test_id("resume").first.click()
    page.get_by_test_id("confirm-dialog").get_by_test_id("confirm-submit").click()
    expect(page.locator(".flash-success")).to_contain_text("زنجیره ادامه یافت")
    expect(node(page, "خوش‌آمد").get_by_test_id("chain-control")).to_have_count(0)
    a.refresh_from_db()
    assert a.chain_control == ChainControl.NORMAL and a.status == CampaignStatus.SCHEDULED

    # runs of A: the period's run was skipped by the pause
    node(page, "خوش‌آمد").get_by_role("link", name="اجراها").first.click()
    expect(page.locator("h1")).to_contain_text("اجراهای «خوش‌آمد»")
    expect(page.get_by_test_id("run-row").first.get_by_test_id("skip-reason")).to_have_text("زنجیره متوقف موقت شد")
    expect(page.get_by_test_id("latest-count")).to_contain_text("هنوز اجرا نشده")
    shot(page, "chains-runs-root")

    # run the root now: a MANUAL run, due at once; the page says no child inherits from it
    expect(page.get_by_test_id("run-now-form")).to_contain_text("زیرکمپین‌های زنجیره از آن ارث نمی‌برند")
    page.get_by_test_id("run-now").click()
    expect(page.locator(".flash-success")).to_contain_text(re.compile("اجرای دستی #[۰-۹]+ ساخته شد"))
    newest = page.get_by_test_id("run-row").first
    expect(newest).to_contain_text("دستی")
    expect(page.get_by_test_id("run-row")).to_have_count(2)
    assert CampaignRun.objects.get(campaign=a, run_type=RunType.MANUAL).status == RunStatus.SCHEDULED
    assert not CampaignRun.objects.filter(campaign=b, run_type=RunType.MANUAL).exists()
    shot(page, "chains-runs-root-manual")
    page.goto(f"{base}/chains/campaigns/{b.id}/runs/")
    expect(page.get_by_test_id("inheritance-label")).to_have_text("ارث‌بری از «خوش‌آمد» – تبدیل‌نشده")
    expect(page.get_by_test_id("run-now")).to_have_count(0)
    expect(page.get_by_test_id("child-runs-note")).to_contain_text("جدا اجرا نمی‌شود")
    shot(page, "chains-runs-child")

    # a stale revision is a message on the page, never a 500
    stale = post_as_page(page, f"{base}/chains/campaigns/{a.id}/control/pause/", {"expected_chain_revision": 1})
    assert stale.status == 200 and "تغییر کرده است" in stale.text()

    # narrow screen: the confirmation is a bottom sheet
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(f"{base}/chains/groups/{group.id}/")
    node(page, "خوش‌آمد").get_by_test_id("pause").first.click()
    box = page.get_by_test_id("confirm-dialog").bounding_box()
    assert box["y"] + box["height"] >= 844 - 2 and box["width"] >= 388
    shot(page, "chains-group-tree-narrow-sheet")


def test_viewer_has_no_menu_and_cannot_write(page, live_server):
    shop = make_workspace("shop")
    make_member(shop, Role.VIEWER, username="vida")
    group = make_group(shop, "گروه خواندنی")
    login(page, live_server.url, "vida")
    expect(page.get_by_test_id("nav-chains")).to_have_count(0)
    response = page.goto(f"{live_server.url}/chains/groups/{group.id}/campaigns/new/")
    assert response.status == 403
    expect(page.locator("html")).to_have_attribute("dir", "rtl")
    shot(page, "chains-403")
    refused = post_as_page(page, f"{live_server.url}/chains/groups/new/", {"name": "نباید"})
    assert refused.status == 403
    assert not CampaignGroup.objects.filter(name="نباید").exists()
    # reading is allowed: the tree has no write actions
    page.goto(f"{live_server.url}/chains/groups/{group.id}/")
    expect(page.locator("h1")).to_contain_text("گروه خواندنی")
    expect(page.get_by_test_id("campaign-new")).to_have_count(0)


def test_another_workspace_group_is_404(page, live_server):
    shop, other = make_workspace("shop"), make_workspace("other")
    make_member(shop, Role.MANAGER, username="mina")
    foreign = make_group(other, "گروه دیگران")
    login(page, live_server.url, "mina")
    assert page.goto(f"{live_server.url}/chains/groups/{foreign.id}/").status == 404
    assert page.goto(f"{live_server.url}/chains/groups/{foreign.id}/campaigns/new/").status == 404
    refused = post_as_page(
        page, f"{live_server.url}/chains/groups/{foreign.id}/edit/", {"name": "x", "expected_revision": 1}
    )
    assert refused.status == 404
    foreign.refresh_from_db()
    assert foreign.name == "گروه دیگران"


def test_a_finished_run_is_run_again_with_its_audience_from_the_runs_page(page, live_server):
    import time_machine

    from tests.chains.runs_helpers import approved_chain, at, settle, tick
    from tests.conftest import make_actor

    shop = make_workspace("shop")
    owner = make_member(shop, Role.OWNER, username="sara")
    actor = make_actor(shop, user=owner)
    with time_machine.travel(at(2026, 9, 20), tick=False):
        nodes, _ = approved_chain(actor, shape="A>B")
    root = nodes["A"]
    tick(at(2026, 10, 1, 9, 0))  # the October run is built and sent
    october = CampaignRun.objects.get(campaign=root, run_type=RunType.SCHEDULED, planned_at=at(2026, 10, 1))
    settle(october)
    tick(at(2026, 10, 1, 9, 10))
    october.refresh_from_db()
    assert october.status == RunStatus.COMPLETED

    base = live_server.url
    login(page, base, "sara")
    page.goto(f"{base}/chains/campaigns/{root.id}/runs/")
    label = f"#{october.id}".translate(str.maketrans("0123456789", "۰۱۲۳۴۵۶۷۸۹"))
    row = page.get_by_test_id("run-row").filter(has_text=label)
    row.get_by_test_id("rerun").click()
    expect(page.locator(".flash-success")).to_contain_text("با مخاطبان اجرای")
    newest = page.get_by_test_id("run-row").first
    expect(newest).to_contain_text("اجرای دوباره")
    expect(newest).to_contain_text("منبع:")
    again = CampaignRun.objects.get(campaign=root, run_type=RunType.RERUN)
    assert again.source_run_id == october.id and again.period_key is None
    shot(page, "chains-runs-rerun")


def test_a_chain_that_reaches_nobody_is_blocked_on_submit_and_on_the_package_page(page, live_server):
    from tests.chains.conftest import make_chain

    shop = make_workspace("shop")
    make_member(shop, Role.ADMIN, username="ali")
    group = make_group(shop, "بی‌مخاطب")
    nodes = make_chain(shop, group, source_target_list=None)
    root = nodes["A"]
    base = live_server.url
    login(page, base, "ali")
    page.goto(f"{base}/chains/groups/{group.id}/")
    node(page, root.name).get_by_test_id("submit").click()
    expect(page.locator(".flash-error")).to_contain_text(f"«{root.name}»: ریشه زنجیره مخاطبی ندارد")
    assert not ChainApprovalPackage.objects.exists()
    shot(page, "chains-submit-no-audience")

    # with a list it submits; the list is emptied while the package waits: the page names it, approval is off
    customers = make_list(shop, "مشتریان")
    person = make_target(shop)
    person.lists.add(customers)
    ChainNode.objects.filter(pk=root.pk).update(source_target_list=customers)
    page.goto(f"{base}/chains/groups/{group.id}/")
    node(page, root.name).get_by_test_id("submit").click()
    expect(page.get_by_test_id("package-status")).to_have_text("در انتظار تأیید")
    expect(page.get_by_test_id("problems")).to_have_count(0)
    person.lists.remove(customers)
    page.reload()
    problems = page.get_by_test_id("problems")
    expect(problems).to_contain_text("مانع تأیید")
    expect(problems).to_contain_text("«مشتریان»")
    expect(problems).to_contain_text("۰ نفر")
    expect(page.get_by_test_id("approve")).to_be_disabled()
    shot(page, "chains-package-blocked")
    package = ChainApprovalPackage.objects.get(workspace=shop)
    post_as_page(
        page,
        f"{base}/chains/approvals/{package.id}/approve/",
        {"expected_submitted_revision": package.submitted_revision},
    )
    package.refresh_from_db()
    assert package.status == PackageStatus.SUBMITTED


def test_four_eyes_the_submitter_sees_who_approves_and_another_approver_approves(page, live_server):
    from campaigns.approval_selectors import FOUR_EYES_SETTING
    from campaigns.models import Notification
    from tests.automation.helpers import setup_sms
    from tests.chains.conftest import make_chain

    shop = make_workspace("shop", settings={FOUR_EYES_SETTING: True})
    setup_sms(shop)  # a usable SMS account: without one the launch check disables Approve
    make_member(shop, Role.OWNER, username="mina")
    ali = make_member(shop, Role.ADMIN, username="ali")
    ali.first_name, ali.last_name = "علی", "رضایی"
    ali.save()
    group = make_group(shop, "چهارچشمی")
    root = make_chain(shop, group)["A"]
    base = live_server.url
    login(page, base, "mina")
    page.goto(f"{base}/chains/groups/{group.id}/")
    node(page, root.name).get_by_test_id("submit").click()
    expect(page.get_by_test_id("package-status")).to_have_text("در انتظار تأیید")
    expect(page.get_by_test_id("submitted-at")).to_contain_text("mina")
    expect(page.get_by_test_id("approvers")).to_contain_text("علی رضایی")
    expect(page.get_by_test_id("approvers")).not_to_contain_text("mina")
    expect(page.get_by_test_id("own-package")).to_contain_text("تأیید آن با تأییدکننده دیگری است")
    expect(page.get_by_test_id("approve")).to_have_count(0)
    shot(page, "chains-package-four-eyes-submitter")
    package = ChainApprovalPackage.objects.get(workspace=shop)
    revision = {"expected_submitted_revision": package.submitted_revision}
    post_as_page(page, f"{base}/chains/approvals/{package.id}/approve/", revision)
    package.refresh_from_db()
    assert package.status == PackageStatus.SUBMITTED
    logout(page)

    login(page, base, "ali")
    assert Notification.objects.filter(recipient=ali, kind="chain_package_requested").count() == 1
    page.goto(f"{base}/chains/approvals/{package.id}/")
    page.get_by_test_id("approve").click()
    expect(page.get_by_test_id("package-status")).to_have_text("تأییدشده")
    package.refresh_from_db()
    assert package.decided_by_id == ali.id


def test_a_jalali_workspace_previews_a_fixed_day_on_the_jalali_month(page, live_server):
    import jdatetime
    from django.utils import timezone

    from tests.chains.conftest import make_chain

    shop = make_workspace("shop", settings={"calendar": "jalali"})
    make_member(shop, Role.MANAGER, username="mina")
    group = make_group(shop, "ماه شمسی")
    root = make_chain(shop, group, shape="A")["A"]
    today = jdatetime.date.fromgregorian(date=timezone.localtime(timezone.now()).date())
    year, month = (today.year + 1, 1) if today.month == 12 else (today.year, today.month + 1)
    digits = str.maketrans("0123456789", "۰۱۲۳۴۵۶۷۸۹")
    next_first = f"{year}/{month:02d}/01 09:00".translate(digits)
    last_day = 31 if month <= 6 else 30 if month <= 11 else (30 if jdatetime.date(year, 1, 1).isleap() else 29)
    child_at = f"{year}/{month:02d}/{last_day} 10:00".translate(digits)
    login(page, live_server.url, "mina")
    page.goto(f"{live_server.url}/chains/groups/{group.id}/campaigns/new/?parent={root.id}")
    page.get_by_test_id("timing-FIXED_DAY_IN_PERIOD").check()
    page.locator("input[name=fixed_day_last]").check()
    page.fill("#f-runtime", "10:00")
    page.locator("#f-runtime").dispatch_event("change")
    rows = page.get_by_test_id("preview").locator("tbody tr")
    expect(rows.first).to_contain_text(next_first)  # the first day of the next Jalali month
    expect(rows.first).to_contain_text(child_at)  # its last day (31, 30, or Esfand 29/30)
    shot(page, "chains-child-form-jalali")


def test_the_runs_page_shows_the_lift_against_the_control_group(page, live_server):
    import time_machine

    from campaigns.chains.run_models import ConversionEvent
    from tests.chains.runs_helpers import approved_chain, at, tick
    from tests.conftest import make_actor

    shop = make_workspace("shop")
    owner = make_member(shop, Role.OWNER, username="sara")
    actor = make_actor(shop, user=owner)
    with time_machine.travel(at(2026, 9, 20), tick=False):
        action = {"channel": "sms", "content": "سلام", "control_percent": 40}
        nodes, _ = approved_chain(actor, shape="A>B", targets=120, chain_action=action)
    root = nodes["A"]
    tick(at(2026, 10, 1, 9, 0))
    run = CampaignRun.objects.get(campaign=root, run_type=RunType.SCHEDULED, planned_at=at(2026, 10, 1))
    members = dict(run.target_snapshot.members.values_list("target_id", "is_control"))
    treated = [t for t, c in members.items() if not c][:30]
    for target_id in treated:
        ConversionEvent.objects.create(
            workspace=shop, target_id=target_id, name="target_status:converted", occurred_at=run.started_at
        )
    login(page, live_server.url, "sara")
    page.goto(f"{live_server.url}/chains/campaigns/{root.id}/runs/")
    lift = page.get_by_test_id("lift-table")
    expect(lift).to_contain_text("۳۰ تبدیل")
    expect(lift).to_contain_text("بازه اطمینان ۹۵٪")
    expect(lift).to_contain_text("اثر مثبت معنادار")
    assert not LATIN_DIGIT.search(lift.inner_text())
    label = f"#{run.id}".translate(str.maketrans("0123456789", "۰۱۲۳۴۵۶۷۸۹"))
    row = page.get_by_test_id("run-row").filter(has_text=label)
    expect(row.get_by_test_id("run-lift")).to_contain_text("تا")
    shot(page, "chains-runs-lift")

    # A run under way: its row follows it on the open page (htmx, every 5 s), no reload.
    run.refresh_from_db()
    assert run.status != RunStatus.COMPLETED
    CampaignRun.objects.filter(pk=run.pk).update(status=RunStatus.COMPLETED, completed_at=run.started_at)
    expect(row.locator(".badge")).to_have_text("کامل", timeout=15000)


def test_add_existing_campaigns_to_a_group_and_clone_a_chain_from_the_tree(page, live_server):
    from tests.chains.conftest import make_chain

    shop = make_workspace("shop")
    make_member(shop, Role.MANAGER, username="mina")
    group = make_group(shop, "گروه اصلی")
    chain = make_chain(shop, group, shape="A>B")
    loose = ChainNode.objects.create(workspace=shop, name="کمپین آزاد")
    login(page, live_server.url, "mina")
    page.goto(f"{live_server.url}/chains/groups/{group.id}/")
    page.get_by_test_id("group-add").click()
    page.get_by_test_id(f"add-{loose.id}").check()
    shot(page, "chains-group-add-dialog")
    page.get_by_test_id("group-add-submit").click()
    expect(page.locator(".flash-success")).to_contain_text("۱ کمپین به گروه افزوده شد")
    expect(node(page, "کمپین آزاد")).to_be_visible()
    loose.refresh_from_db()
    assert loose.group_id == group.id

    node(page, chain["A"].name).get_by_test_id("clone").first.click()
    expect(page.locator(".flash-success")).to_contain_text("(کپی)» ساخته شد (۲ کمپین، پیش‌نویس)")
    copy = ChainNode.objects.get(workspace=shop, name=f"{chain['A'].name} (کپی)")
    assert copy.group_id == group.id and ChainNode.objects.filter(root=copy).count() == 2
    expect(node(page, copy.name)).to_be_visible()
    shot(page, "chains-group-tree-cloned")


def test_the_runs_page_names_a_missed_period_and_a_run_whose_dispatch_failed(page, live_server, monkeypatch, settings):
    import time_machine

    from campaigns.chains.runs import dispatch
    from tests.chains.runs_helpers import approved_chain, at, tick
    from tests.chains.test_runs_failures import CrashingWorker, EngineDownAfterFirstChunk
    from tests.conftest import make_actor

    settings.CHAIN_RUN_DISPATCH_MAX_ATTEMPTS = 2
    shop = make_workspace("shop")
    owner = make_member(shop, Role.OWNER, username="sara")
    actor = make_actor(shop, user=owner)
    with time_machine.travel(at(2026, 9, 28), tick=False):  # submitted before 1 October, approved after it
        nodes, _ = approved_chain(actor, shape="A>B", approve_at=at(2026, 10, 3))
    root = nodes["A"]
    monkeypatch.setattr(dispatch, "CHUNK", 2)
    engine = EngineDownAfterFirstChunk(dispatch.run_engine())
    monkeypatch.setattr(dispatch, "run_engine", lambda: engine)
    for minutes in (0, 11, 22):
        tick(at(2026, 11, 1, 9, minutes), send=CrashingWorker())
    november = CampaignRun.objects.get(campaign=root, planned_at=at(2026, 11, 1))
    assert november.status == RunStatus.FAILED

    base = live_server.url
    login(page, base, "sara")
    page.goto(f"{base}/chains/campaigns/{root.id}/runs/")
    expect(page.get_by_test_id("run-row")).to_have_count(3)  # October missed, November failed, December next
    expect(page.get_by_test_id("failure-reason")).to_have_text(
        "ارسال پس از ۲ تلاش ناموفق ماند؛ ۲ نفر ارسال شد و همان‌ها ماندند"
    )
    expect(page.get_by_test_id("skip-reason")).to_have_text("تأیید پس از زمان اجرا")
    shot(page, "chains-runs-missed-and-failed")


def test_chain_form_times_are_24_hour_inputs_and_dates_have_the_jalali_picker(page, live_server):
    from tests.chains.conftest import make_chain

    shop = make_workspace("shop")
    make_member(shop, Role.MANAGER, username="mina")
    group = make_group(shop, "ساعت‌ها")
    root = make_chain(shop, group, shape="A")["A"]
    login(page, live_server.url, "mina")

    def valid(selector: str, text: str) -> bool:
        page.fill(selector, text)
        return page.eval_on_selector(selector, "el => el.checkValidity()")

    for url, selector in (
        (f"/chains/groups/{group.id}/campaigns/new/", "#f-when-time"),
        (f"/chains/groups/{group.id}/campaigns/new/?parent={root.id}", "#f-runtime"),
    ):
        page.goto(live_server.url + url)
        time_input = page.locator(selector)
        expect(time_input).to_have_attribute("type", "text")  # never the browser's AM/PM time field
        expect(time_input).to_have_attribute("inputmode", "numeric")
        assert valid(selector, "21:30") and valid(selector, "۰۹:۰۵"), selector  # Persian digits too
        assert not valid(selector, "25:00") and not valid(selector, "9:30 PM"), selector

    page.goto(f"{live_server.url}/chains/groups/{group.id}/campaigns/new/")
    page.select_option("#f-when", "DAILY")
    start = page.locator("#f-when-start")
    start.fill("1405/09/10")
    pick_day(page, "از تاریخ", "۱۵ آذر ۱۴۰۵")
    expect(start).to_have_value("1405/09/15")
