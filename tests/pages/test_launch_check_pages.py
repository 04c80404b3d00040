"""The launch check in Chromium (docs/journeys.md "Launch check"): the campaign dashboard shows, before Start,
who gets nothing and why, the cost against the credit and the finish time; the counts by reason match what the
sends then do; a blocker disables «شروع» with its reason. axe-clean; screenshots at 1366 and 390 px."""

from collections import Counter
from datetime import timedelta
from pathlib import Path

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from automation.choices import ExecutionStatus
from automation.journey_stats import target_timeline_events, timeline_entries
from automation.models import Execution
from automation.services.enrollment import enroll_subjects
from campaigns.choices import CampaignStatus, Role
from campaigns.models import Campaign, Target
from campaigns.platform.jalali import fa_digits, to_jalali
from sms import telecom_blocks
from sms.choices import BlacklistSource, LineKind
from sms.models import SmsAttempt, SmsProviderAccount
from sms.services import blacklist_add, blacklist_opt_out
from tests.automation.helpers import Driver, end_node, journey, linear_graph, setup_sms, sms_node

from ..conftest import make_actor, make_member, make_target, make_workspace
from .axe import axe_violations

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SHOTS = Path("var/screenshots")


def shot(page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    for width in (1366, 390):
        page.set_viewport_size({"width": width, "height": 900})
        page.screenshot(path=str(SHOTS / f"{name}-{width}.png"), full_page=True)
    page.set_viewport_size({"width": 1366, "height": 900})


def login(page, base: str, username: str) -> None:
    page.goto(f"{base}/login/")
    page.fill("#id_username", username)
    page.fill("#id_password", "pw-123456")
    page.click("button[type=submit]")
    expect(page.locator("h1")).to_contain_text("پیشخوان")


def test_the_check_counts_what_the_sends_then_do_and_a_blocker_disables_start(page, live_server, monkeypatch):
    shop = make_workspace("shop")
    user = make_member(shop, Role.MANAGER, username="mina")
    actor = make_actor(shop, user=user)
    settings = setup_sms(shop)  # console provider: logged, not sent
    SmsProviderAccount.objects.filter(pk=settings.primary_account_id).update(
        line_kind=LineKind.ADVERTISING, price_mci=1200, price_irancell=1100, price_rightel=1000, credit=500_000
    )
    people = [make_target(shop) for _ in range(6)] + [make_target(shop, mobile="+989351230000")]
    blacklisted, opted_out, blocked, no_mobile = people[:4]
    campaign = journey(
        actor, linear_graph(sms_node("a", body="تخفیف پاییزه", append_opt_out=True), end_node()), activate=False
    )
    enroll_subjects(actor=actor, campaign_id=campaign.id, target_ids=[p.id for p in people])
    blacklist_add(actor=actor, number=blacklisted.mobile)
    blacklist_opt_out(workspace_id=shop.id, number=opted_out.mobile, source=BlacklistSource.REPLY)
    telecom_blocks.remember(workspace_id=shop.id, phone=blocked.mobile, provider="kavenegar", code="14")
    Target.objects.filter(pk=no_mobile.pk).update(mobile=None, landline="+982188776655")

    login(page, live_server.url, "mina")
    page.goto(f"{live_server.url}/automation/campaigns/{campaign.id}/")
    check = page.get_by_test_id("launch-check")
    expect(check).to_be_visible()
    expect(page.locator("html")).to_have_attribute("dir", "rtl")
    expect(page.get_by_test_id("launch-audience")).to_have_text("۷")
    expect(page.get_by_test_id("launch-receivers")).to_have_text("۳")
    shown = {
        reason: page.get_by_test_id(f"launch-count-{reason}").inner_text()
        for reason in ("no_mobile", "blacklisted", "opt_out", "telecom_blocked")
    }
    assert shown == {"no_mobile": "۱", "blacklisted": "۱", "opt_out": "۱", "telecom_blocked": "۱"}
    expect(page.get_by_test_id("launch-count-frequency_cap")).to_have_text("۰")
    expect(page.get_by_test_id("launch-count-control_group")).to_have_text("هنوز ساخته نشده")
    expect(page.get_by_test_id("launch-cost")).to_have_text("۳٬۵۰۰ ریال")  # 2 × 1,200 (MCI) + 1,100 (Irancell)
    expect(page.get_by_test_id("launch-credit")).to_have_text("۵۰۰٬۰۰۰ ریال")
    expect(page.get_by_test_id("control-activate")).to_be_enabled()
    assert axe_violations(page) == []
    shot(page, "launch-check-journey")

    # Start, then the sends: the same numbers of people get nothing, for the same reasons
    page.get_by_test_id("control-activate").click()
    expect(page.locator(".flash-success")).to_contain_text("شروع شد")
    Driver().tick(timezone.now() + timedelta(seconds=5))
    assert SmsAttempt.objects.filter(campaign=campaign).count() == 3
    statuses = Counter(Execution.objects.filter(campaign=campaign).values_list("status", flat=True))
    assert statuses[ExecutionStatus.BLACKLISTED] == 2  # blacklisted + opted out
    why = [
        e["why_not_sent"]
        for target in (blocked, no_mobile)
        for e in timeline_entries(actor=actor, events=list(target_timeline_events(actor=actor, target_id=target.id)))
        if e["why_not_sent"]
    ]
    assert sorted(why) == ["no_valid_mobile", "telecom_blocked"]

    # an advertising line to several numbers without the opt-out line: Start is disabled, the reason shown
    bare = journey(actor, linear_graph(sms_node("b", body="تخفیف بدون لغو"), end_node()), activate=False)
    enroll_subjects(actor=actor, campaign_id=bare.id, target_ids=[make_target(shop).id for _ in range(2)])
    # and a credit counted in messages (as Melipayamak's) that pays one of the two parts: said in messages
    SmsProviderAccount.objects.filter(pk=settings.primary_account_id).update(credit_unit="message", credit=1)
    page.goto(f"{live_server.url}/automation/campaigns/{bare.id}/")
    start = page.get_by_test_id("control-activate")
    expect(start).to_be_disabled()
    blockers = page.get_by_test_id("launch-blockers")
    expect(blockers.locator("[data-code=opt_out_missing]")).to_contain_text("لغو۱۱")
    expect(blockers.locator("[data-code=credit_below_cost]")).to_contain_text("(۱ پیامک)")
    expect(page.get_by_test_id("launch-parts")).to_have_text("۲ پیامک")
    # the sends (a person, a step) are not called messages beside the message parts the credit pays
    sends = page.locator(".launch-numbers > div").filter(has=page.get_by_test_id("launch-messages"))
    expect(sends.locator("dt")).to_have_text("ارسال‌ها")
    expect(page.get_by_test_id("launch-credit")).to_have_text("۱ پیامک")
    expect(start).to_have_attribute("aria-describedby", f"launch-blockers-{bare.id}")
    assert axe_violations(page) == []
    shot(page, "launch-check-blocked")
    bare.refresh_from_db()
    assert bare.status == CampaignStatus.DRAFT


def test_the_step_editor_lints_the_text_live(page, live_server):
    from .test_workflow_pages import add_step

    shop = make_workspace("shop")
    make_member(shop, Role.MANAGER, username="mina")
    make_target(shop, name="سارا احمدی", first_name="سارا")
    settings = setup_sms(shop)
    SmsProviderAccount.objects.filter(pk=settings.primary_account_id).update(
        line_kind=LineKind.ADVERTISING, links_allowed=False, filtered_words=["جایزه"]
    )
    login(page, live_server.url, "mina")
    page.get_by_test_id("nav-automation").click()
    page.get_by_role("link", name="گردش‌کار تازه").click()
    page.fill("#id_name", "تخفیف‌ها")
    page.get_by_role("button", name="ساخت و باز کردن ویرایشگر").click()
    dialog = add_step(page, "0", "ارسال پیامک", keep_open=True)
    dialog.locator("textarea").fill("تخفیف ویژه در https://shop.example.ir/x")
    expect(dialog.get_by_test_id("lint-opt_out_missing")).to_contain_text("لغو۱۱")
    # the cap's rules are a day's, a week's and a month's: the hint beside «اگر سقف … پر بود» says all three
    expect(dialog.get_by_test_id("frequency-cap-hint")).to_contain_text("در روز، هفته و ماه شمسی")
    expect(dialog.get_by_test_id("lint-link_not_allowed")).to_be_visible()
    expect(dialog.get_by_test_id("lint-parts")).to_contain_text("۱ پیامک")
    assert axe_violations(page) == []
    shot(page, "launch-lint-editor")
    dialog.locator("input[name=cfg_append_opt_out]").check()  # the opt-out line: the lint follows at once
    expect(dialog.get_by_test_id("lint-opt_out_missing")).to_have_count(0)
    expect(dialog.get_by_test_id("lint-parts")).to_contain_text("سطر لغو دارد")
    dialog.locator("textarea").fill("تخفیف ویژه")
    expect(dialog.get_by_test_id("lint-link_not_allowed")).to_have_count(0)
    # a word of the account's list (typed by staff, or named by a refusal): said as the list's, no refusal claimed
    dialog.locator("textarea").fill("تخفیف ویژه با جایزه")
    expect(dialog.get_by_test_id("lint-filtered_word")).to_have_text(
        "متن کلمه‌ای از فهرست کلمه‌های فیلترشدهٔ این حساب دارد و سرویس‌دهنده آن را رد می‌کند: جایزه"
    )


def test_a_reason_links_to_its_people_and_blockers_disable_approve(page, live_server):
    from campaigns.chains import schedule as sched
    from campaigns.chains.services.approval import campaign_submit
    from tests.chains.conftest import MONTHLY_1, make_chain

    from ..conftest import make_list

    shop = make_workspace("shop")
    mina = make_member(shop, Role.MANAGER, username="mina")
    make_member(shop, Role.ADMIN, username="ali")
    actor = make_actor(shop, user=mina)
    settings = setup_sms(shop, frequency_cap_rules=[{"period": "day", "limit": 1}])
    SmsProviderAccount.objects.filter(pk=settings.primary_account_id).update(
        line_kind=LineKind.ADVERTISING, credit=10**7
    )
    people = [make_target(shop, name=f"مخاطب {i}") for i in range(4)]
    first = journey(actor, linear_graph(sms_node("a", body="تخفیف", append_opt_out=True), end_node()))
    enroll_subjects(actor=actor, campaign_id=first.id, target_ids=[people[0].id])
    Driver().tick(timezone.now() + timedelta(seconds=5))  # people[0] got today's one promotional message
    second = journey(
        actor,
        linear_graph(sms_node("b", body="تخفیف دوم", append_opt_out=True), end_node()),
        activate=False,
        settings={"frequency_cap_priority": "low"},
    )
    enroll_subjects(actor=actor, campaign_id=second.id, target_ids=[p.id for p in people], on_conflict="add")
    blacklist_add(actor=actor, number=people[1].mobile)

    login(page, live_server.url, "mina")
    page.goto(f"{live_server.url}/automation/campaigns/{second.id}/")
    expect(page.get_by_test_id("launch-count-frequency_cap")).to_have_text("۱")
    expect(page.get_by_test_id("launch-reason-frequency_cap")).to_contain_text("در دورهٔ بعد پیام می‌گیرند")
    expect(page.get_by_test_id("launch-warnings").locator("[data-code=frequency_cap_high]")).to_be_visible()
    # a cap rule is on: the campaign's priority in it is said, in the check and on the dashboard
    expect(page.get_by_test_id("launch-cap-priority")).to_have_text("پایین")
    expect(page.get_by_test_id("cap-priority-said")).to_have_text("پایین")
    expect(page.get_by_test_id("limits")).to_contain_text("اولویت در سقف پیامک تبلیغاتی")
    assert axe_violations(page) == []
    shot(page, "launch-check-cap-priority")
    page.get_by_test_id("launch-count-blacklisted").click()
    expect(page.get_by_test_id("excluded-filter")).to_contain_text("در لیست سیاه")
    rows = page.get_by_test_id("executions").locator("tbody tr")
    expect(rows).to_have_count(1)
    expect(rows.first).to_contain_text("مخاطب 1")
    assert axe_violations(page) == []
    page.goto(f"{live_server.url}/automation/campaigns/{second.id}/targets/?excluded=frequency_cap")
    expect(rows).to_have_count(1)
    expect(rows.first).to_contain_text("مخاطب 0")

    # a chain package whose advertising step lacks the opt-out line: Approve is disabled, the reason shown
    audience = make_list(shop)
    for person in people[2:]:
        person.lists.add(audience)
    nodes = make_chain(shop, shape="A>B", source_target_list=audience)
    Campaign.objects.filter(pk=nodes["B"].pk).update(journey_settings={"frequency_cap_priority": "high"})
    _, package = campaign_submit(
        actor=actor, campaign_id=nodes["A"].id, expected_chain_revision=nodes["A"].chain_revision
    )
    page.context.clear_cookies()
    login(page, live_server.url, "ali")
    page.goto(f"{live_server.url}/chains/approvals/{package.id}/")
    approve = page.get_by_test_id("approve")
    expect(approve).to_be_disabled()
    expect(approve).to_have_attribute("aria-describedby", "package-launch-blockers")
    expect(page.get_by_test_id("package-launch-blockers").locator("[data-code=opt_out_missing]").first).to_be_visible()
    # each member's check says its own priority in the cap (the chain form's, normal by default)
    expect(page.get_by_test_id("launch-cap-priority")).to_have_text(["عادی", "بالا"])
    # nothing goes before the root's first scheduled run (the 1st of the month): the root's finish is that day's,
    # its follow-up's no earlier (it starts at its own first planned run, after the root's)
    first_run = next(
        sched.root_occurrences(sched.parse_root_schedule(MONTHLY_1), sched.workspace_zone(shop), timezone.now())
    )
    first_day = fa_digits(to_jalali(first_run, tz=sched.workspace_zone(shop)))
    root_finish, *follow_ups = page.get_by_test_id("launch-finish").all_inner_texts()
    assert root_finish.startswith(first_day), (root_finish, first_day)
    assert follow_ups and all(f[:10] >= first_day for f in follow_ups), (follow_ups, first_day)  # Jalali, same width
    assert axe_violations(page) == []
    shot(page, "launch-check-approve-blocked")


def test_a_standalone_campaigns_approve_in_the_group_tree_is_disabled_by_a_blocker(page, live_server):
    """The single-campaign «تأیید کمپین» inside a group's tree node: disabled with the reason while the launch
    check has a blocker, enabled once its cause is fixed, and then it approves."""
    from campaigns.approval_selectors import WORKSPACE_APPROVAL_SETTING
    from campaigns.chains.node_models import ChainNode
    from campaigns.chains.nodes import node_rows_ensure
    from campaigns.services.approval import campaign_single_submit
    from tests.chains.conftest import make_group

    shop = make_workspace("shop", settings={WORKSPACE_APPROVAL_SETTING: True})
    mina = make_member(shop, Role.MANAGER, username="mina")
    make_member(shop, Role.ADMIN, username="ali")
    actor = make_actor(shop, user=mina)
    settings = setup_sms(shop)
    SmsProviderAccount.objects.filter(pk=settings.primary_account_id).update(line_kind=LineKind.ADVERTISING)
    campaign = journey(actor, linear_graph(sms_node("a", body="تخفیف ویژه"), end_node()), activate=False)
    enroll_subjects(actor=actor, campaign_id=campaign.id, target_ids=[make_target(shop).id for _ in range(2)])
    group = make_group(shop, "اعلان‌ها")
    node_rows_ensure(workspace=shop, campaign_ids=[campaign.id])
    ChainNode.objects.filter(pk=campaign.id).update(group=group)
    campaign_single_submit(actor=actor, campaign=campaign)

    login(page, live_server.url, "ali")
    page.goto(f"{live_server.url}/chains/groups/{group.id}/")
    card = page.locator(f'[data-testid=node][data-name="{campaign.name}"]')
    approve = card.get_by_test_id("single-approve")
    expect(approve).to_be_disabled()
    expect(approve).to_have_attribute("aria-describedby", f"single-blockers-{campaign.id}")
    expect(card.get_by_test_id("single-blockers").locator("[data-code=opt_out_missing]")).to_contain_text("لغو۱۱")
    assert axe_violations(page) == []
    shot(page, "launch-check-tree-approve-blocked")

    SmsProviderAccount.objects.filter(pk=settings.primary_account_id).update(line_kind=LineKind.SERVICE)
    page.reload()
    expect(card.get_by_test_id("single-blockers")).to_have_count(0)
    card.get_by_test_id("single-approve").click()
    expect(page.locator(".flash-success")).to_contain_text(f"کمپین «{campaign.name}» تأیید شد")
    campaign.refresh_from_db()
    assert campaign.status == CampaignStatus.SCHEDULED


def test_the_settings_page_sets_the_frequency_cap_quiet_days_and_an_accounts_filtered_words(page, live_server):
    from sms.models import SmsSettings

    shop = make_workspace("shop")
    make_member(shop, Role.OWNER, username="owner1")
    setup_sms(shop)
    login(page, live_server.url, "owner1")
    page.get_by_test_id("nav-sms").click()
    page.locator(".subnav a", has_text="تنظیمات").click()
    box = page.get_by_test_id("promotional-settings")
    expect(box).to_contain_text("سقف پیامک تبلیغاتی هر نفر در روز")
    box.get_by_label("سقف پیامک تبلیغاتی هر نفر در روز").fill("2")
    box.get_by_label("سقف پیامک تبلیغاتی هر نفر در هفته (شنبه تا جمعه)").fill("5")
    box.get_by_label("سقف پیامک تبلیغاتی هر نفر در ماه شمسی").fill("12")
    box.get_by_label("جمعه‌ها پیامک تبلیغاتی فرستاده نشود").check()
    box.locator("textarea[name=quiet_days]").fill("۱۴۰۵/۰۱/۰۱\n۱۴۰۵/۰۱/۱۳")
    page.get_by_test_id("channel-form").get_by_role("button", name="ذخیره تنظیمات").click()
    expect(page.locator(".flash-success")).to_contain_text("ذخیره شد")
    settings = SmsSettings.objects.get(workspace=shop)
    assert settings.frequency_cap_rules == [
        {"period": "day", "limit": 2},
        {"period": "week", "limit": 5},
        {"period": "month", "limit": 12},
    ]
    assert settings.quiet_fridays
    assert settings.quiet_days == ["2026-03-21", "2026-04-02"]
    expect(page.locator("textarea[name=quiet_days]")).to_have_value("1405/01/01\n1405/01/13")
    expect(box.get_by_label("سقف پیامک تبلیغاتی هر نفر در هفته (شنبه تا جمعه)")).to_have_value("5")
    expect(box.get_by_label("سقف پیامک تبلیغاتی هر نفر در ماه شمسی")).to_have_value("12")
    assert axe_violations(page) == []
    shot(page, "sms-settings-promotional")

    page.get_by_test_id("account-row").locator("a").click()
    page.fill("#id_filtered_words", "جایزه\nقرعه‌کشی")
    page.click("button:has-text('ذخیره')")
    expect(page.locator(".flash-success")).to_be_visible()
    assert SmsProviderAccount.objects.get(workspace=shop).filtered_words == ["جایزه", "قرعه‌کشی"]
