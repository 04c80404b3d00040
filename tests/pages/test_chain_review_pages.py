"""Chain package review and campaigns outside a chain, in Chromium: the diff names lists, single-campaign
approval and moving a campaign between groups. Screenshots land in var/screenshots/."""

import pytest
from playwright.sync_api import expect

from campaigns.chains.models import ChainApprovalPackage, ChainNode
from campaigns.chains.services.approval import campaign_submit, package_withdraw
from campaigns.choices import Role

from ..conftest import make_actor, make_list, make_member, make_target, make_workspace
from .axe import axe_violations
from .test_chain_pages import login, logout, make_group, shot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_the_package_diff_names_the_audience_list(page, live_server):
    from tests.chains.conftest import make_chain

    shop = make_workspace("shop")
    owner = make_member(shop, Role.OWNER, username="sara")
    actor = make_actor(shop, user=owner)
    old_list, new_list = make_list(shop, "مشتریان تهران"), make_list(shop, "مشتریان وفادار")
    for lst in (old_list, new_list):
        make_target(shop).lists.add(lst)
    root = make_chain(shop, make_group(shop, "بازنگری"), source_target_list=old_list)["A"]
    _, first = campaign_submit(actor=actor, campaign_id=root.id, expected_chain_revision=root.chain_revision)
    package_withdraw(actor=actor, package_id=first.id, expected_submitted_revision=first.submitted_revision)
    ChainNode.objects.filter(pk=root.pk).update(source_target_list=new_list)
    root.refresh_from_db()
    campaign_submit(actor=actor, campaign_id=root.id, expected_chain_revision=root.chain_revision)
    second = ChainApprovalPackage.objects.exclude(pk=first.pk).get()

    login(page, live_server.url, "sara")
    page.goto(f"{live_server.url}/chains/approvals/{second.id}/")
    diff = page.get_by_test_id("diff")
    line = diff.locator("tr").filter(has_text="فهرست مخاطبان")
    expect(line.locator("del")).to_have_text("فهرست «مشتریان تهران»")
    expect(line.locator("ins")).to_have_text("فهرست «مشتریان وفادار»")
    expect(line).not_to_contain_text("#")
    assert axe_violations(page) == []
    shot(page, "chains-package-diff-list-names")


def test_a_chain_node_keeps_its_own_send_window_from_the_chain_page(page, live_server):
    from tests.chains.conftest import make_chain

    shop = make_workspace("shop")
    make_member(shop, Role.MANAGER, username="mina")
    chain = make_chain(shop, make_group(shop, "ساعت ارسال"), shape="A>B")
    child = chain["B"]
    login(page, live_server.url, "mina")
    page.goto(f"{live_server.url}/chains/campaigns/{child.id}/edit/")
    window = page.get_by_test_id("window")
    saturday = window.get_by_label("شنبه از", exact=True)
    expect(saturday).to_have_attribute("inputmode", "numeric")  # the shared 24-hour input
    saturday.fill("۰۹:۰۰")
    window.get_by_label("شنبه تا", exact=True).fill("18:30")
    window.get_by_label("یکشنبه از", exact=True).fill("10:00")  # no end: the page says so
    page.get_by_test_id("save").click()
    expect(page.get_by_test_id("send-window-error")).to_contain_text("بازه ارسال را بررسی کنید")
    expect(window).to_contain_text("هر دو ساعت شروع و پایان را وارد کنید")
    expect(window.get_by_label("شنبه تا", exact=True)).to_have_value("18:30")  # what was typed is kept
    child.refresh_from_db()
    assert child.send_window is None
    shot(page, "chains-send-window-error")
    page.get_by_test_id("send-window").screenshot(path="var/screenshots/chains-send-window-error-section.png")

    window.get_by_label("یکشنبه تا", exact=True).fill("12:00")
    page.get_by_test_id("save").click()
    expect(page.locator(".flash-success")).to_contain_text("ذخیره شد")
    child.refresh_from_db()
    assert child.send_window["days"]["sat"] == [["09:00", "18:30"]]
    assert child.send_window["days"]["sun"] == [["10:00", "12:00"]] and child.send_window["days"]["fri"] is None
    chain["A"].refresh_from_db()
    assert chain["A"].send_window is None  # the root keeps its own (none)
    page.goto(f"{live_server.url}/chains/campaigns/{child.id}/edit/")
    expect(page.get_by_test_id("window").get_by_label("شنبه از", exact=True)).to_have_value("09:00")
    assert axe_violations(page) == []
    shot(page, "chains-send-window")


def test_a_send_window_set_through_the_api_with_two_intervals_a_day_is_kept(page, live_server):
    from tests.chains.conftest import make_chain

    shop = make_workspace("shop")
    make_member(shop, Role.MANAGER, username="mina")
    root = make_chain(shop, make_group(shop, "دو بازه"), shape="A")["A"]
    two = {"timezone": "Asia/Tehran", "days": {"sat": [["09:00", "12:00"], ["14:00", "18:00"]]}}
    ChainNode.objects.filter(pk=root.pk).update(send_window=two)
    login(page, live_server.url, "mina")
    page.goto(f"{live_server.url}/chains/campaigns/{root.id}/edit/")
    expect(page.get_by_test_id("window-kept")).to_contain_text("بیش از یک بازه")
    page.fill("#f-name", "دو بازه — ویرایش")
    page.get_by_test_id("save").click()
    expect(page.locator(".flash-success")).to_contain_text("ذخیره شد")
    root.refresh_from_db()
    assert root.send_window == two and root.name == "دو بازه — ویرایش"


def test_move_an_independent_campaign_to_another_group(page, live_server):
    shop = make_workspace("shop")
    make_member(shop, Role.MANAGER, username="mina")
    here, there = make_group(shop, "پاییز"), make_group(shop, "زمستان")
    loose = ChainNode.objects.create(workspace=shop, name="اعلان حراج", group=here)
    login(page, live_server.url, "mina")
    page.goto(f"{live_server.url}/chains/groups/{here.id}/")
    move = page.locator(f'[data-testid=node][data-name="{loose.name}"]').get_by_test_id("move-group")
    move.locator("summary").click()
    move.get_by_label("گروه مقصد").select_option(label="زمستان")
    shot(page, "chains-move-campaign")
    move.get_by_test_id("move-submit").click()
    expect(page.locator(".flash-success")).to_contain_text("کمپین «اعلان حراج» به گروه «زمستان» منتقل شد")
    expect(page.locator('[data-testid=node][data-name="اعلان حراج"]')).to_have_count(0)
    loose.refresh_from_db()
    assert loose.group_id == there.id
    page.goto(f"{live_server.url}/chains/groups/{there.id}/")
    expect(page.locator('[data-testid=node][data-name="اعلان حراج"]')).to_be_visible()


def test_chain_members_cannot_be_moved_from_the_page(page, live_server):
    from tests.chains.conftest import make_chain

    shop = make_workspace("shop")
    make_member(shop, Role.MANAGER, username="mina")
    here = make_group(shop, "پاییز")
    make_group(shop, "زمستان")
    chain = make_chain(shop, here, shape="A>B")
    login(page, live_server.url, "mina")
    page.goto(f"{live_server.url}/chains/groups/{here.id}/")
    expect(page.get_by_test_id("move-group")).to_have_count(0)
    for campaign in chain.values():
        campaign.refresh_from_db()
        assert campaign.group_id == here.id


def test_single_campaign_approval_submit_reject_and_approve_by_another_member(page, live_server):
    from campaigns.approval_selectors import FOUR_EYES_SETTING, WORKSPACE_APPROVAL_SETTING
    from campaigns.choices import CampaignStatus

    shop = make_workspace("shop", settings={WORKSPACE_APPROVAL_SETTING: True, FOUR_EYES_SETTING: True})
    mina = make_member(shop, Role.ADMIN, username="mina")
    make_member(shop, Role.ADMIN, username="ali")
    group = make_group(shop, "اعلان‌ها")
    single = ChainNode.objects.create(workspace=shop, name="اعلان تعطیلی", group=group, created_by=mina)
    base = live_server.url

    login(page, base, "mina")
    page.goto(f"{base}/chains/groups/{group.id}/")
    card = page.locator(f'[data-testid=node][data-name="{single.name}"]')
    card.get_by_test_id("submit").click()
    expect(page.locator(".flash-success")).to_contain_text("کمپین «اعلان تعطیلی» برای تأیید ارسال شد")
    single.refresh_from_db()
    assert single.status == CampaignStatus.SUBMITTED
    card = page.locator(f'[data-testid=node][data-name="{single.name}"]')
    expect(card.get_by_test_id("own-submission")).to_contain_text("تأیید آن با تأییدکننده دیگری است")
    expect(card.get_by_test_id("single-approve")).to_have_count(0)
    expect(card.get_by_test_id("single-reject")).to_have_count(0)
    logout(page)

    login(page, base, "ali")
    page.goto(f"{base}/chains/approvals/")
    row = page.get_by_test_id("single-row").filter(has_text="اعلان تعطیلی")
    expect(row).to_contain_text("mina")
    row.get_by_test_id("single-reject").locator("summary").click()
    row.get_by_label("دلیل (برای سازنده کمپین)").fill("تاریخ تعطیلی را بنویسید")
    assert axe_violations(page) == []
    shot(page, "chains-single-approval-list")
    row.get_by_test_id("single-reject-submit").click()
    expect(page.locator(".flash-success")).to_contain_text("کمپین «اعلان تعطیلی» رد شد")
    expect(page.get_by_test_id("single-approvals")).to_have_count(0)
    single.refresh_from_db()
    assert single.status == CampaignStatus.REJECTED

    # resubmitted (by its author, through the same service), ali approves it from the group page
    actor = make_actor(shop, user=mina)
    campaign_submit(actor=actor, campaign_id=single.id)
    page.goto(f"{base}/chains/groups/{group.id}/")
    card = page.locator(f'[data-testid=node][data-name="{single.name}"]')
    shot(page, "chains-single-approval-tree")
    card.get_by_test_id("single-approve").click()
    expect(page.locator(".flash-success")).to_contain_text("کمپین «اعلان تعطیلی» تأیید شد")
    single.refresh_from_db()
    assert single.status == CampaignStatus.SCHEDULED


def test_the_chain_code_is_shown_once_the_chain_is_submitted(page, live_server):
    from tests.chains.conftest import make_chain

    shop = make_workspace("shop")
    make_member(shop, Role.OWNER, username="sara")
    group = make_group(shop, "کدها")
    chain = make_chain(shop, group, shape="A>B")
    root, child = chain["A"], chain["B"]
    login(page, live_server.url, "sara")
    page.goto(f"{live_server.url}/chains/campaigns/{child.id}/runs/")
    expect(page.get_by_test_id("chain-code")).to_contain_text("با ارسال زنجیره برای تأیید داده می‌شود")
    page.goto(f"{live_server.url}/chains/groups/{group.id}/")
    expect(page.get_by_test_id("node-code")).to_have_count(0)
    page.locator(f'[data-testid=node][data-name="{root.name}"]').first.get_by_test_id("submit").click()
    root.refresh_from_db()
    child.refresh_from_db()
    assert root.chain_code and child.chain_code
    expect(page.get_by_test_id("row-code")).to_have_text([root.chain_code, child.chain_code])
    page.goto(f"{live_server.url}/chains/groups/{group.id}/")
    expect(page.locator(f'[data-testid=node][data-name="{child.name}"]').get_by_test_id("node-code")).to_have_text(
        f"کد زنجیره: {child.chain_code}"
    )
    shot(page, "chains-tree-codes")
    page.goto(f"{live_server.url}/chains/campaigns/{child.id}/runs/")
    expect(page.get_by_test_id("chain-code")).to_have_text(child.chain_code)


def test_the_runs_page_shows_a_follow_up_waiting_for_delivery_reports(page, live_server, settings):
    from campaigns.chains.runs.choices import WaitReason
    from tests.chains.runs_helpers import at, runs_of, tick
    from tests.chains.test_delivery_pending import _source_sent_with_reports_pending

    settings.CHAIN_DELIVERY_REPORT_WINDOW_HOURS = 72
    shop = make_workspace("shop")
    owner = make_member(shop, Role.OWNER, username="sara")
    nodes, _people, a10, _attempts = _source_sent_with_reports_pending(make_actor(shop, user=owner))
    tick(at(2026, 10, 3, 9, 0))
    (b10,) = runs_of(nodes["B"], period_key=a10.id)
    assert b10.wait_reason == WaitReason.DELIVERY_DATA_PENDING
    login(page, live_server.url, "sara")
    page.goto(f"{live_server.url}/chains/campaigns/{nodes['B'].id}/runs/")
    row = page.get_by_test_id("run-row").filter(has=page.get_by_test_id("delivery-wait"))
    expect(row.get_by_test_id("wait-reason")).to_have_text("داده تحویل کامل نیست")
    expect(row.get_by_test_id("delivery-wait")).to_contain_text("حداکثر تا ۱۴۰۵/۰۷/۱۲")  # A completed 1405/07/09
    expect(row).to_contain_text("در انتظار منبع")
    assert axe_violations(page) == []
    shot(page, "chains-runs-delivery-pending")
