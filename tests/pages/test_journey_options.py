"""Journey options that used to be API-only, set on their page in Chromium and seen to take effect in the engine:
the auto-enroll rule (count shown before saving), the dashboard's cards that refresh themselves."""

from datetime import timedelta

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from automation.models import AutoEnrollRule, Execution
from automation.services.auto_enroll import auto_enroll_check
from automation.services.enrollment import enroll_subjects
from campaigns.choices import Role, TargetStatus
from tests.automation.helpers import end_node, linear_graph, setup_sms, sms_node, wait_node

from ..conftest import make_actor, make_list, make_member, make_target, make_workspace
from .test_campaign_pages import LATIN_DIGIT, login, named_journey, rtl, shot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


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


def test_dashboard_cards_count_each_status_and_link_to_the_filtered_targets(page, live_server):
    shop, actor = _shop()
    campaign = named_journey(actor, linear_graph(sms_node("a"), wait_node("w", amount=2), end_node()), "کارت‌ها")
    targets = [make_target(shop, name=f"مخاطب {i}") for i in range(3)]
    enroll_subjects(actor=actor, campaign_id=campaign.id, target_ids=[t.id for t in targets])
    execs = list(Execution.objects.filter(campaign=campaign).order_by("id"))
    Execution.objects.filter(pk=execs[0].pk).update(status="waiting", next_run_at=timezone.now() + timedelta(days=1))
    Execution.objects.filter(pk=execs[1].pk).update(status="blacklisted")

    login(page, live_server.url, "mina")
    page.goto(f"{live_server.url}/automation/campaigns/{campaign.id}/")
    for name, n in (("total", "۳"), ("active", "۱"), ("waiting", "۱"), ("blacklisted", "۱"), ("failed", "۰")):
        expect(page.get_by_test_id(f"stat-{name}")).to_contain_text(n)
    expect(page.get_by_test_id("stat-unknown")).to_contain_text("نتیجه نامعلوم")
    shot(page, "journey-dashboard-cards")
    page.get_by_test_id("stat-blacklisted").click()
    expect(page.locator("tbody tr")).to_have_count(1)
    expect(page.locator("tbody")).to_contain_text(targets[1].name)
