"""Chain package review and campaigns outside a chain, in Chromium: the diff names lists, single-campaign
approval and moving a campaign between groups. Screenshots land in var/screenshots/."""

import pytest
from playwright.sync_api import expect

from campaigns.chains.models import ChainApprovalPackage
from campaigns.chains.services.approval import campaign_submit, package_withdraw
from campaigns.choices import Role
from campaigns.models import Campaign

from ..conftest import make_actor, make_list, make_member, make_target, make_workspace
from .axe import axe_violations
from .test_chain_pages import login, make_group, shot

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
    Campaign.objects.filter(pk=root.pk).update(source_target_list=new_list)
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
