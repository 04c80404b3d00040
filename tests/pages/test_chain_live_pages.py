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

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SHOTS = Path("var/screenshots")


def login(page, base: str, username: str) -> None:
    page.goto(f"{base}/login/")
    page.fill("#id_username", username)
    page.fill("#id_password", "pw-123456")
    page.click("button[type=submit]")
    expect(page.locator("h1")).to_contain_text("پیشخوان")


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
