"""Live edits in Chromium: publishing a version while people are in flight opens the migration step (diff, who
stands where, stay / move / exit per step, text-only fix), the move shows its progress and the campaign's log
says who moved whom. axe-clean; screenshots at 1366 and 390 px in var/screenshots/."""

from datetime import timedelta
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
    # only the wait holds people: the other steps say so and offer no choice
    plan = page.get_by_test_id("migration-plan")
    expect(plan.locator("select")).to_have_count(1)
    for empty in ("a", "b"):
        expect(page.get_by_test_id(f"live-{empty}")).to_have_text("۰")
        expect(page.get_by_test_id(f"plan-{empty}")).to_contain_text("کسی اینجا نیست")
        expect(page.locator(f"#plan_{empty}")).to_have_count(0)
    page.select_option("#plan_w", "exit")
    assert axe_violations(page) == []
    shot(page, "migration-plan")
    page.get_by_test_id("commit-migration").click()
    expect(page.get_by_test_id("exited")).to_have_text("۳")
    rows = Execution.objects.filter(campaign=campaign)
    assert {(r.status, r.end_reason) for r in rows} == {(ExecutionStatus.CANCELLED, EndReason.NEW_VERSION_EXIT)}
    page.goto(f"{live_server.url}/automation/campaigns/{campaign.id}/logs/")
    expect(page.get_by_test_id("logs")).to_contain_text("خروج با نسخهٔ تازه")


def test_a_background_move_with_the_engine_ticking_shows_its_progress_and_loses_nobody(page, live_server, monkeypatch):
    """The commit from the page runs in the background (more than ``INLINE_MAX``); the engine claims and steps
    executions while the job sweeps in small chunks; the progress page keeps up by itself. Counted: every
    execution on the new version or finished before the sweep reached it, one event each, nothing sent twice."""
    import threading

    from django.db import connections
    from django.utils import timezone

    from automation.choices import EventType
    from automation.engine.batch import process_batch
    from automation.engine.scheduler import tick
    from automation.models import ExecutionEvent
    from automation.services import version_migrations
    from sms.models import SmsAttempt

    queued: list[str] = []
    monkeypatch.setattr(version_migrations, "INLINE_MAX", 2)
    monkeypatch.setattr(version_migrations, "CHUNK", 5)
    monkeypatch.setattr(version_migrations, "_enqueue", lambda migration_id, countdown=0: queued.append(migration_id))
    shop = make_workspace("live")
    actor = make_actor(shop, user=make_member(shop, Role.MANAGER, username="mina"))
    campaign, _ = running_at_wait(actor, shop, n=40)
    ids = list(Execution.objects.filter(campaign=campaign).order_by("id").values_list("id", flat=True))
    Execution.objects.filter(pk__in=ids[::2]).update(next_run_at=timezone.now() - timedelta(minutes=1))  # due now
    workflow_id = _draft(actor, campaign, v1_graph(second_text=V2_TEXT, wait_amount=2))
    login(page, live_server.url, "mina")
    _publish_on_page(page, live_server.url, workflow_id)
    page.get_by_test_id("commit-migration").click()
    progress = page.get_by_test_id("migration-progress")
    expect(progress).to_contain_text("در حال انتقال")
    expect(progress).to_have_attribute("hx-trigger", "every 2s")
    assert len(queued) == 1
    shot(page, "migration-running")

    stop, rounds = threading.Event(), []

    def engine():
        try:
            while not stop.is_set():
                batch: list = []
                tick(send=batch.extend)
                if batch:
                    process_batch(batch)
                rounds.append(len(batch))
        finally:
            connections.close_all()

    worker = threading.Thread(target=engine)
    worker.start()
    try:
        for _ in range(40):  # the worker's job, run again while claimed executions remain
            migration = version_migrations.version_migration_run(migration_id=queued[0])
            if migration.status == "done":
                break
    finally:
        stop.set()
        worker.join()
    migration = version_migrations.version_migration_run(migration_id=queued[0])
    assert migration.status == "done" and sum(rounds) > 0
    expect(progress).to_contain_text("انجام شد", timeout=15000)  # the page noticed by itself
    expect(page.get_by_test_id("moved")).to_have_text(
        str(migration.result["moved"]).translate(str.maketrans("0123456789", "۰۱۲۳۴۵۶۷۸۹"))
    )
    assert axe_violations(page) == []
    new = WorkflowVersion.objects.get(workflow_id=workflow_id, version_number=2)
    moved = list(ExecutionEvent.objects.filter(type=EventType.VERSION_MIGRATED).values_list("execution_id", flat=True))
    assert len(moved) == len(set(moved))  # never twice
    rows = Execution.objects.filter(pk__in=ids)
    assert {r.id for r in rows if r.version_id == new.id} == set(moved)
    live = (ExecutionStatus.ACTIVE, ExecutionStatus.WAITING, ExecutionStatus.QUEUED, ExecutionStatus.PROCESSING)
    assert not [r.id for r in rows if r.version_id != new.id and r.status in live]  # never lost
    sent = SmsAttempt.objects.filter(execution_id__in=ids, node__node_key="b")
    assert sent.count() == sent.values("execution_id").distinct().count()


def test_a_text_edited_in_the_step_editor_is_offered_as_a_text_fix(page, live_server):
    """The step editor posts every field of the step (its defaults too, as «wait» when the cap is full): a text
    edited there is still "only the text changed" for the migration step."""
    shop = make_workspace("live")
    actor = make_actor(shop, user=make_member(shop, Role.MANAGER, username="mina"))
    campaign, _ = running_at_wait(actor, shop, n=3)
    workflow_id = campaign.journey.workflow_id
    login(page, live_server.url, "mina")
    page.goto(f"{live_server.url}/automation/workflows/{workflow_id}/")
    page.get_by_role("button", name="پیش‌نویس تازه از نسخه منتشرشده").click()
    page.get_by_test_id("edit-2").click()
    dialog = page.get_by_test_id("editor-2")
    dialog.get_by_test_id("sms-body").fill(V2_TEXT)
    dialog.locator("button[type=submit]").first.click()
    expect(page.locator('[data-testid=step][data-path="2"]')).to_contain_text("درود")
    _publish_on_page(page, live_server.url, workflow_id)
    expect(page.get_by_test_id("text-fix-count")).to_have_text("۳")
    assert axe_violations(page) == []


def test_one_step_stays_another_moves_with_its_wait_recomputed(page, live_server):
    """Two steps of the old version hold people: those at the first wait stay on version 1, those at the second
    move to version 2 and wait the new three days from when they reached it. On a phone the diff fits its box."""
    import time_machine

    from automation.services.enrollment import enroll_subjects
    from tests.automation.helpers import T0, Driver, end_node, journey, linear_graph, setup_sms, sms_node, wait_node
    from tests.conftest import make_target

    def graph(second_wait: int, text: str):
        return linear_graph(
            sms_node("a", body="اول"),
            wait_node("w", name="انتظار اول"),
            sms_node("b", body=text),
            wait_node("w2", amount=second_wait, name="انتظار دوم"),
            end_node(),
        )

    shop = make_workspace("live")
    actor = make_actor(shop, user=make_member(shop, Role.MANAGER, username="mina"))
    setup_sms(shop)
    driver, groups = Driver(), []
    with time_machine.travel(T0, tick=False):
        campaign = journey(actor, graph(1, "سلام {target.first_name} یادآوری"))
    for start, size in ((T0, 2), (T0 + timedelta(hours=12), 3)):  # two enrollments half a day apart
        with time_machine.travel(start, tick=False):
            people = [make_target(shop) for _ in range(size)]
            enroll_subjects(actor=actor, campaign_id=campaign.id, target_ids=[t.id for t in people])
        for minute in (1, 2):
            with time_machine.travel(start + timedelta(minutes=minute), tick=False):
                driver.tick(start + timedelta(minutes=minute))
        groups.append(
            set(
                Execution.objects.filter(campaign=campaign, subject_id__in=[t.id for t in people]).values_list(
                    "id", flat=True
                )
            )
        )
    later = T0 + timedelta(days=1, minutes=5)
    for minute in (0, 1):  # the first two passed the first wait and got «b»: they wait at w2
        with time_machine.travel(later + timedelta(minutes=minute), tick=False):
            driver.tick(later + timedelta(minutes=minute))
    at_w, at_w2 = groups[1], groups[0]
    assert set(Execution.objects.filter(current_node__node_key="w2").values_list("id", flat=True)) == at_w2

    workflow_id = _draft(actor, campaign, graph(3, V2_TEXT))
    login(page, live_server.url, "mina")
    _publish_on_page(page, live_server.url, workflow_id)
    expect(page.get_by_test_id("live-w")).to_have_text("۳")
    expect(page.get_by_test_id("live-w2")).to_have_text("۲")
    expect(page.locator("#plan_w2")).to_have_value("move:w2")
    page.select_option("#plan_w", "stay")
    page.get_by_label("زمان انتظارها از روی انتظار نسخهٔ تازه دوباره حساب شود", exact=False).check()
    diff = page.get_by_test_id("migration-diff")
    expect(diff.locator("tr[data-kind=changed]", has_text="انتظار دوم")).to_contain_text("۳ روز")
    page.set_viewport_size({"width": 390, "height": 900})
    cut = diff.evaluate(
        """t => { const box = t.parentElement.getBoundingClientRect();
        return [...t.querySelectorAll('td')].filter(c => { const r = c.getBoundingClientRect();
          return r.left < box.left || r.right > box.right
            || [...c.querySelectorAll('ins, del')].some(w => w.getBoundingClientRect().left < r.left - 1);
        }).length; }"""
    )
    assert cut == 0, "a diff text runs out of its cell on a phone"
    page.set_viewport_size({"width": 1366, "height": 900})
    assert axe_violations(page) == []
    shot(page, "migration-stay-move")
    page.get_by_test_id("commit-migration").click()
    expect(page.get_by_test_id("migration-progress")).to_contain_text("انجام شد")
    expect(page.get_by_test_id("moved")).to_have_text("۲")
    expect(page.get_by_test_id("exited")).to_have_text("۰")
    shot(page, "migration-stay-move-done")

    old = WorkflowVersion.objects.get(workflow_id=workflow_id, version_number=1)
    new = WorkflowVersion.objects.get(workflow_id=workflow_id, version_number=2)
    rows = {r.id: r for r in Execution.objects.filter(campaign=campaign).select_related("current_node")}
    assert {rows[i].version_id for i in at_w} == {old.id}  # stayed
    for i in at_w2:  # moved, waiting the new three days from when they reached the wait
        assert (rows[i].version_id, rows[i].current_node.version_id) == (new.id, new.id)
        assert rows[i].next_run_at == rows[i].node_entered_at + timedelta(days=3)
    page.goto(f"{live_server.url}/automation/campaigns/{campaign.id}/logs/?type=version_migrated")
    expect(page.get_by_test_id("logs").locator("tbody tr")).to_have_count(2)
