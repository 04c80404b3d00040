"""Chain pages and the engine in Chromium: the approval package says who moved its members' executions to a new
version of their workflow. axe-clean; screenshots in var/screenshots/."""

from pathlib import Path

import pytest
import time_machine
from playwright.sync_api import expect

from automation.choices import EventType
from automation.engine.graph import graph_of_version
from automation.models import CampaignJourney, ExecutionEvent, WorkflowVersion
from automation.services.version_migrations import version_migration_commit
from automation.services.workflows import workflow_graph_save, workflow_new_draft, workflow_publish
from campaigns.choices import Role
from tests.chains.runs_helpers import approved_chain, at, tick
from tests.conftest import make_actor, make_member, make_workspace

from .axe import axe_violations
from .test_chain_pages import login

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SHOTS = Path("var/screenshots")


def _text_fix(actor, campaign, text: str) -> tuple[WorkflowVersion, WorkflowVersion]:
    """Publish the campaign's workflow again with another message text; returns (old, new) versions."""
    journey = CampaignJourney.objects.get(pk=campaign.pk)
    old = journey.workflow_version
    graph = graph_of_version(old).to_dict()
    for node in graph["nodes"]:
        if node["type"] == "action":
            node["config"]["body"] = text
    workflow_new_draft(actor=actor, workflow_id=journey.workflow_id)
    _, errors = workflow_graph_save(actor=actor, workflow_id=journey.workflow_id, graph_data=graph)
    assert not errors
    return old, workflow_publish(actor=actor, workflow_id=journey.workflow_id)


def test_the_package_page_says_who_moved_its_members_executions(page, live_server):
    shop = make_workspace("shop")
    actor = make_actor(shop, user=make_member(shop, Role.OWNER, username="sara"))
    with time_machine.travel(at(2026, 9, 20), tick=False):
        nodes, _ = approved_chain(actor, shape="A>B", targets=3)
    root = nodes["A"]
    tick(at(2026, 10, 1, 9, 0))  # the root run enrolled its three members; the engine has not sent yet
    old, new = _text_fix(actor, root, "سلام، متن درست")
    migration = version_migration_commit(
        actor=actor, workflow_id=new.workflow_id, from_version_id=old.id, to_version_id=new.id, text_fix=True
    )
    assert migration.result["moved"] == 3
    assert ExecutionEvent.objects.filter(campaign_id=root.id, type=EventType.VERSION_MIGRATED).count() == 3

    login(page, live_server.url, "sara")
    page.goto(f"{live_server.url}/chains/approvals/{root.approval_package_id}/")
    rows = page.get_by_test_id("member-migration")
    expect(rows).to_have_count(1)
    expect(rows.first).to_contain_text(root.name)
    expect(rows.first).to_contain_text("از ۱ به ۲")
    expect(rows.first).to_contain_text("اصلاح متن")
    expect(rows.first).to_contain_text("۳ / ۰")
    expect(rows.first.get_by_test_id("migration-by")).to_have_text("sara")
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "chains-package-migrations.png"), full_page=True)
    assert axe_violations(page) == []

    # Another workspace's package page shows nothing of it (404).
    other = make_workspace("other")
    make_member(other, Role.OWNER, username="omid")
    page.get_by_role("button", name="خروج").click()
    login(page, live_server.url, "omid")
    response = page.goto(f"{live_server.url}/chains/approvals/{root.approval_package_id}/")
    assert response.status == 404


def test_the_runs_page_names_who_was_left_out_at_dispatch_and_at_send(page, live_server):
    from django.utils import timezone

    from automation.choices import ExecutionStatus
    from automation.models import Execution
    from campaigns.chains.run_models import CampaignRun
    from campaigns.chains.runs.choices import RunType
    from campaigns.models import Target
    from sms.choices import BlacklistReason, BlacklistSource
    from sms.services import blacklist_add
    from tests.automation.helpers import Driver, setup_sms

    shop = make_workspace("shop")
    actor = make_actor(shop, user=make_member(shop, Role.OWNER, username="sara"))
    setup_sms(shop)
    with time_machine.travel(at(2026, 9, 20), tick=False):
        nodes, people = approved_chain(actor, shape="A>B", targets=6)
    root = nodes["A"]
    blacklist_add(actor=actor, number=people[0].mobile)
    blacklist_add(actor=actor, number=people[1].mobile, reason=BlacklistReason.OPT_OUT, source=BlacklistSource.REPLY)
    Target.objects.filter(pk=people[2].pk).update(mobile=None, landline="+982188776655")
    tick(at(2026, 10, 1, 9, 0))  # three left out at dispatch, three enrolled
    blacklist_add(actor=actor, number=people[3].mobile)  # blacklisted after the dispatch: its send stops
    driver = Driver()
    for minute in (1, 2, 3):
        with time_machine.travel(at(2026, 10, 1, 9, minute), tick=False):
            driver.tick(timezone.now())
    assert Execution.objects.filter(campaign=root, status=ExecutionStatus.BLACKLISTED).count() == 1
    tick(at(2026, 10, 1, 9, 10))
    run = CampaignRun.objects.get(campaign=root, run_type=RunType.SCHEDULED, planned_at=at(2026, 10, 1))
    assert run.excluded_reasons == {"blacklisted": 1}

    login(page, live_server.url, "sara")
    page.goto(f"{live_server.url}/chains/campaigns/{root.id}/runs/")
    label = f"#{run.id}".translate(str.maketrans("0123456789", "۰۱۲۳۴۵۶۷۸۹"))
    row = page.get_by_test_id("run-row").filter(has_text=label)
    expect(row.get_by_test_id("run-sent")).to_have_text("پیام برای ۳ نفر")
    at_dispatch = row.get_by_test_id("run-excluded")
    expect(at_dispatch).to_contain_text("کنار گذاشته: ۳ نفر")
    expect(at_dispatch.locator("li[data-reason=blacklisted]")).to_have_text("شماره در لیست سیاه است: ۱")
    expect(at_dispatch.locator("li[data-reason=opt_out]")).to_have_text("گیرنده لغو کرده است (کلمه لغو): ۱")
    expect(at_dispatch.locator("li[data-reason=no_valid_mobile]")).to_have_text("موبایل معتبر ندارد: ۱")
    at_send = row.get_by_test_id("run-send-excluded")
    expect(at_send).to_contain_text("هنگام ارسال کنار گذاشته: ۱ نفر")
    expect(at_send.locator("li[data-reason=blacklisted]")).to_have_text("هنگام ارسال در لیست سیاه بود: ۱")
    SHOTS.mkdir(parents=True, exist_ok=True)
    for width in (1366, 390):
        page.set_viewport_size({"width": width, "height": 900})
        page.screenshot(path=str(SHOTS / f"chains-runs-left-out-{width}.png"), full_page=True)
    assert axe_violations(page) == []
