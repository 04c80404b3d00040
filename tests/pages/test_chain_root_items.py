"""A chain root on the pages, in Chromium: what would refuse its submit is marked on the tree before anyone
submits (a root without audience), a root without follow-ups is submitted alone (a chain of one), and the root
form previews the next run dates in Jalali. Screenshots land in var/screenshots/."""

import re
from datetime import datetime
from zoneinfo import ZoneInfo

import pytest
import time_machine
from playwright.sync_api import expect

from campaigns.chains.models import ChainApprovalPackage, ChainNode
from campaigns.choices import CampaignStatus, Role

from ..conftest import make_list, make_member, make_target, make_workspace
from .axe import axe_violations
from .test_chain_pages import login, make_group, shot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

TEHRAN = ZoneInfo("Asia/Tehran")


def test_a_root_without_audience_is_marked_and_a_root_alone_is_submitted(page, live_server):
    from tests.chains.conftest import make_node

    shop = make_workspace("shop")
    make_member(shop, Role.OWNER, username="sara")
    group = make_group(shop, "یادآوری ماهانه")
    people = make_list(shop, "مشتریان")
    for _ in range(3):
        make_target(shop).lists.add(people)
    root = make_node(shop, group=group, name="یادآوری قسط", source_target_list=None)
    base = live_server.url

    login(page, base, "sara")
    page.goto(f"{base}/chains/groups/{group.id}/")
    node = page.locator('[data-testid=node][data-name="یادآوری قسط"]')
    blockers = node.get_by_test_id("blockers")
    expect(blockers).to_contain_text("ریشه زنجیره مخاطبی ندارد")  # marked before anyone submits
    expect(node).to_have_class(re.compile("needs-review"))
    assert axe_violations(page) == []
    shot(page, "chains-root-alone-marked")
    node.get_by_test_id("submit").click()  # a root without follow-ups has a submit of its own
    expect(page.locator(".flash-error")).to_contain_text("موارد مشخص‌شده را اصلاح کنید")
    expect(page.locator('[data-testid=node][data-name="یادآوری قسط"]').get_by_test_id("blockers")).to_be_visible()
    root.refresh_from_db()
    assert (root.status, root.root_id) == (CampaignStatus.DRAFT, None)  # refused: still a campaign alone

    page.locator('[data-testid=node][data-name="یادآوری قسط"]').get_by_test_id("blockers").get_by_role(
        "link", name="اصلاح"
    ).click()
    expect(page.get_by_test_id("audience-needed")).to_be_visible()
    page.get_by_test_id("audience-list").select_option(label="مشتریان (۳ نفر)")
    page.get_by_test_id("save").click()
    node = page.locator('[data-testid=node][data-name="یادآوری قسط"]')
    expect(node.get_by_test_id("blockers")).to_have_count(0)
    node.get_by_test_id("submit").click()
    expect(page.locator(".flash-success")).to_contain_text("برای تأیید ارسال شد")
    package = ChainApprovalPackage.objects.get(root=root)
    assert [item["campaign_id"] for item in package.items] == [root.id]
    root.refresh_from_db()
    assert (root.status, root.root_id) == (CampaignStatus.SUBMITTED, root.id)  # a chain of one


def test_the_root_form_previews_the_next_runs_in_jalali(page, live_server):
    shop = make_workspace("shop", settings={"calendar": "jalali"})
    make_member(shop, Role.OWNER, username="sara")
    group = make_group(shop, "خبرنامه")
    base = live_server.url
    with time_machine.travel(datetime(2026, 3, 10, 12, 0, tzinfo=TEHRAN), tick=True):  # 19 Esfand 1404
        login(page, base, "sara")
        page.goto(f"{base}/chains/groups/{group.id}/campaigns/new/")
        runs = page.get_by_test_id("root-run")
        expect(runs).to_have_count(4)  # monthly on day 1 at 09:00 (the form's default)
        expect(runs.nth(0)).to_contain_text("۱۴۰۵/۰۱/۰۱ ۰۹:۰۰")
        expect(runs.nth(1)).to_contain_text("۱۴۰۵/۰۲/۰۱ ۰۹:۰۰")
        expect(page.get_by_test_id("root-preview-calendar")).to_contain_text("شمسی")
        page.get_by_test_id("when-type").select_option("WEEKLY")
        page.locator("input[name=when_weekdays][value=SAT]").check()
        expect(runs.nth(0)).to_contain_text("شنبه ۱۴۰۴/۱۲/۲۳ ۰۹:۰۰")
        expect(runs.nth(1)).to_contain_text("شنبه ۱۴۰۵/۰۱/۰۱ ۰۹:۰۰")
        page.get_by_test_id("when-end").fill("۱۴۰۴/۱۲/۲۵")
        page.get_by_test_id("when-end").dispatch_event("change")
        expect(runs).to_have_count(1)
        expect(page.get_by_test_id("root-preview-ends")).to_be_visible()
        assert axe_violations(page) == []
        shot(page, "chains-root-form-preview")
    assert not ChainNode.objects.filter(workspace=shop).exists()  # a preview writes nothing
