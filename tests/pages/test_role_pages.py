"""What each role sees and may do on the pages, in Chromium: a viewer's target page (follow-ups without buttons,
sends without their text and number), an operator's taken number, a manager deleting a list in use in the admin.

Screenshots land in var/screenshots/ (roles-*)."""

from datetime import timedelta
from pathlib import Path

import pytest
from django.contrib.auth.models import Permission
from django.utils import timezone
from playwright.sync_api import expect

from automation.services.enrollment import enroll_subjects
from campaigns.choices import CampaignStatus, Role
from campaigns.models import TargetList
from campaigns.notifications.services import activity_create
from tests.automation.helpers import Driver, end_node, journey, linear_graph, setup_sms, sms_node

from ..conftest import make_actor, make_campaign, make_list, make_member, make_target, make_workspace

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SHOTS = Path("var/screenshots")


def login(page, base: str, username: str) -> None:
    page.goto(f"{base}/login/")
    page.fill("#id_username", username)
    page.fill("#id_password", "pw-123456")
    page.click("button[type=submit]")
    expect(page.locator("h1")).to_contain_text("پیشخوان")


def shot(page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"roles-{name}.png"), full_page=True)


def test_viewer_sees_the_target_page_without_send_details_or_followup_buttons(page, live_server):
    shop = make_workspace("shop")
    actor = make_actor(shop, Role.OWNER)
    setup_sms(shop)
    campaign = journey(actor, linear_graph(sms_node("a", body="کد تخفیف شما ۴۴۱۲"), end_node()))
    seller = make_member(shop, Role.OPERATOR)
    sara = make_target(shop, name="سارا احمدی", first_name="سارا", owner=seller)
    enroll_subjects(actor=actor, campaign_id=campaign.id, target_ids=[sara.id])
    Driver().tick(timezone.now() + timedelta(seconds=1))
    activity_create(workspace_id=shop.id, target=sara, title="تماس پیگیری", assignee_id=seller.id)
    make_member(shop, Role.VIEWER, username="bita")

    login(page, live_server.url, "bita")
    page.goto(f"{live_server.url}/targets/{sara.id}/edit/")
    activities = page.get_by_test_id("target-activities")
    expect(activities).to_contain_text("تماس پیگیری")
    expect(activities.get_by_role("button")).to_have_count(0)
    timeline = page.get_by_test_id("timeline")
    expect(timeline.get_by_test_id("send-hidden").first).to_contain_text("برای نقش شما نمایش داده نمی‌شود")
    expect(timeline).not_to_contain_text("کد تخفیف")
    shot(page, "viewer-target")


def test_operator_adding_a_taken_number_learns_no_name(page, live_server):
    shop = make_workspace("shop")
    make_target(shop, name="مشتری محرمانه", mobile="+989121111111")
    make_member(shop, Role.OPERATOR, username="omid")

    login(page, live_server.url, "omid")
    page.goto(f"{live_server.url}/targets/new/")
    page.fill("#id_name", "مشتری تازه")
    page.fill("#id_mobile", "09121111111")
    page.get_by_role("button", name="ذخیره").click()
    expect(page.locator("body")).to_contain_text("این شماره قبلاً برای مخاطب دیگری ثبت شده است.")
    expect(page.locator("body")).not_to_contain_text("مشتری محرمانه")
    shot(page, "operator-taken-number")


def test_manager_cannot_delete_a_list_a_campaign_uses_in_the_admin(page, live_server):
    shop = make_workspace("shop")
    manager = make_member(shop, Role.MANAGER, username="mina")
    manager.is_staff = True
    manager.save(update_fields=["is_staff"])
    manager.user_permissions.set(Permission.objects.filter(codename__endswith="_targetlist"))
    used = make_list(shop, name="مشتریان تهران")
    make_campaign(shop, name="ریشه ماهانه", source_target_list=used, status=CampaignStatus.ACTIVE)

    login(page, live_server.url, "mina")
    page.goto(f"{live_server.url}/admin/campaigns/targetlist/{used.id}/delete/")
    expect(page.locator(".messagelist .error")).to_contain_text("«ریشه ماهانه» است و حذف نمی‌شود")
    expect(page.locator("#deleted-objects")).to_contain_text("کمپین «ریشه ماهانه»")
    expect(page.locator("#content input[type=submit]")).to_have_count(0)
    shot(page, "admin-list-in-use")
    assert TargetList.objects.filter(pk=used.id).exists()
