"""Live edits in Chromium: publishing a version while people are in flight opens the migration step (diff, who
stands where, stay / move / exit per step, text-only fix), the move shows its progress and the campaign's log
says who moved whom. axe-clean; screenshots at 1366 and 390 px in var/screenshots/."""

from pathlib import Path

import pytest
from playwright.sync_api import expect

from automation.choices import EndReason, ExecutionStatus
from automation.models import Execution, WorkflowVersion
from automation.services.workflows import workflow_graph_save, workflow_new_draft
from campaigns.choices import Role

from ..automation.test_version_migrations import V2_TEXT, running_at_wait, v1_graph
from ..conftest import make_actor, make_member, make_workspace
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


def _draft(actor, campaign, graph):
    workflow_id = campaign.journey.workflow_id
    workflow_new_draft(actor=actor, workflow_id=workflow_id)
    _, errors = workflow_graph_save(actor=actor, workflow_id=workflow_id, graph_data=graph)
    assert not errors
    return workflow_id


def _publish_on_page(page, base, workflow_id):
    page.goto(f"{base}/automation/workflows/{workflow_id}/")
    page.get_by_test_id("publish").click()
    expect(page.locator("h1")).to_contain_text("انتقال اجراهای در جریان به نسخهٔ ۲")


def test_a_text_fix_reaches_who_has_not_sent_it_yet(page, live_server):
    shop = make_workspace("live")
    actor = make_actor(shop, user=make_member(shop, Role.MANAGER, username="mina"))
    campaign, _ = running_at_wait(actor, shop, n=4)
    workflow_id = _draft(actor, campaign, v1_graph(second_text=V2_TEXT))
    login(page, live_server.url, "mina")
    _publish_on_page(page, live_server.url, workflow_id)
    diff = page.get_by_test_id("migration-diff")
    expect(diff.locator("ins")).to_contain_text(["درود"])
    expect(diff.locator("del")).to_contain_text(["سلام"])
    expect(page.get_by_test_id("live-w")).to_have_text("۴")
    expect(page.get_by_test_id("text-fix-count")).to_have_text("۴")
    assert axe_violations(page) == []
    shot(page, "migration-text-fix")
    page.get_by_test_id("apply-text-fix").click()
    expect(page.get_by_test_id("moved")).to_have_text("۴")
    assert axe_violations(page) == []
    shot(page, "migration-progress")
    new = WorkflowVersion.objects.get(workflow_id=workflow_id, version_number=2)
    assert set(Execution.objects.filter(campaign=campaign).values_list("version_id", flat=True)) == {new.id}
    page.goto(f"{live_server.url}/automation/campaigns/{campaign.id}/logs/?type=version_migrated")
    logs = page.get_by_test_id("logs")
    expect(logs.locator("tbody tr")).to_have_count(4)
    expect(logs).to_contain_text("از نسخهٔ ۱ به نسخهٔ ۲")
    expect(logs).to_contain_text("به دست mina")


def test_stay_move_exit_per_step(page, live_server):
    shop = make_workspace("live")
    actor = make_actor(shop, user=make_member(shop, Role.MANAGER, username="mina"))
    campaign, _ = running_at_wait(actor, shop, n=3)
    graph = v1_graph(second_text=V2_TEXT, wait_amount=2)  # more than the text: no text fix offered
    workflow_id = _draft(actor, campaign, graph)
    login(page, live_server.url, "mina")
    # The campaign page points at the newer version once it is published.
    _publish_on_page(page, live_server.url, workflow_id)
    expect(page.get_by_test_id("text-fix")).to_have_count(0)
    expect(page.locator("#plan_w")).to_have_value("move:w")  # pre-filled: the step kept its key
    page.goto(f"{live_server.url}/automation/campaigns/{campaign.id}/")
    page.get_by_test_id("newer-version").get_by_role("link").click()
    expect(page.get_by_test_id("live-w")).to_have_text("۳")
    page.select_option("#plan_w", "exit")
    assert axe_violations(page) == []
    shot(page, "migration-plan")
    page.get_by_test_id("commit-migration").click()
    expect(page.get_by_test_id("exited")).to_have_text("۳")
    rows = Execution.objects.filter(campaign=campaign)
    assert {(r.status, r.end_reason) for r in rows} == {(ExecutionStatus.CANCELLED, EndReason.NEW_VERSION_EXIT)}
    page.goto(f"{live_server.url}/automation/campaigns/{campaign.id}/logs/")
    expect(page.get_by_test_id("logs")).to_contain_text("خروج با نسخهٔ تازه")
