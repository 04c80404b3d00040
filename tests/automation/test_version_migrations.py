"""Live edits: moving executions in flight to a new version (journeys.md "Live edits")."""

from __future__ import annotations

from datetime import timedelta

import pytest
import time_machine

from automation.choices import EndReason, EventType, ExecutionStatus, MigrationStatus
from automation.errors import StaleVersion
from automation.models import CampaignJourney, Execution, ExecutionEvent, VersionMigration, WorkflowVersion
from automation.services.enrollment import enroll_subjects
from automation.services.version_migrations import version_migration_commit, version_migration_preview
from automation.services.workflows import workflow_graph_save, workflow_new_draft, workflow_publish
from campaigns.platform.errors import NotFound
from sms.models import SmsAttempt
from tests.conftest import make_actor, make_target

from .helpers import T0, Driver, end_node, journey, linear_graph, setup_sms, sms_node, wait_node

S = ExecutionStatus
V1_TEXT = "سلام {target.first_name} یادآوری"
V2_TEXT = "درود {target.first_name} یادآوری تازه"


def v1_graph(second_text=V1_TEXT, wait_amount=1):
    return linear_graph(
        sms_node("a", body="اول"), wait_node("w", amount=wait_amount), sms_node("b", body=second_text), end_node()
    )


def publish_v2(actor, campaign, graph):
    workflow_id = CampaignJourney.objects.get(pk=campaign.pk).workflow_id
    workflow_new_draft(actor=actor, workflow_id=workflow_id)
    _, errors = workflow_graph_save(actor=actor, workflow_id=workflow_id, graph_data=graph)
    assert not errors
    return workflow_publish(actor=actor, workflow_id=workflow_id)


def running_at_wait(actor, workspace, n=5):
    """A campaign whose ``n`` targets got the first SMS and now wait a day at ``w`` on version 1."""
    setup_sms(workspace)
    with time_machine.travel(T0, tick=False):
        campaign = journey(actor, v1_graph())
        targets = [make_target(workspace) for _ in range(n)]
        enroll_subjects(actor=actor, campaign_id=campaign.id, target_ids=[t.id for t in targets])
    driver = Driver()
    for minute in (1, 2):
        with time_machine.travel(T0 + timedelta(minutes=minute), tick=False):
            driver.tick(T0 + timedelta(minutes=minute))
    assert Execution.objects.filter(campaign=campaign, status=S.WAITING).count() == n
    return campaign, driver


def _ids(campaign):
    journey_row = CampaignJourney.objects.get(pk=campaign.pk)
    old = WorkflowVersion.objects.get(workflow_id=journey_row.workflow_id, version_number=1)
    return journey_row.workflow_id, old


@pytest.mark.django_db
def test_preview_shows_the_diff_who_stands_where_and_prefills_kept_steps(actor, workspace):
    campaign, _ = running_at_wait(actor, workspace, n=4)
    graph = linear_graph(sms_node("a", body="اول"), wait_node("w"), sms_node("c", body=V2_TEXT), end_node())
    new = publish_v2(actor, campaign, graph)
    workflow_id, old = _ids(campaign)
    preview = version_migration_preview(
        actor=actor, workflow_id=workflow_id, from_version_id=old.id, to_version_id=new.id
    )
    by_key = {n.node_key: n for n in preview.nodes}
    assert by_key["w"].live == 4 and by_key["a"].live == 0
    assert (by_key["w"].default_choice, by_key["w"].default_to) == ("move", "w")
    assert (by_key["b"].default_choice, by_key["b"].default_to) == ("stay", None)  # removed in v2
    kinds = {d.node_key: d.kind for d in preview.diff}
    assert kinds == {"c": "added", "b": "removed"}
    assert not preview.text_only


@pytest.mark.django_db
def test_moved_executions_keep_their_wait_and_send_the_new_text(actor, workspace):
    campaign, driver = running_at_wait(actor, workspace, n=3)
    due = dict(Execution.objects.filter(campaign=campaign).values_list("id", "next_run_at"))
    new = publish_v2(actor, campaign, v1_graph(second_text=V2_TEXT, wait_amount=3))
    workflow_id, old = _ids(campaign)
    migration = version_migration_commit(
        actor=actor, workflow_id=workflow_id, from_version_id=old.id, to_version_id=new.id
    )
    assert migration.status == MigrationStatus.DONE and migration.result["moved"] == 3
    for ex in Execution.objects.filter(campaign=campaign):
        assert ex.version_id == new.id and ex.current_node.node_key == "w" and ex.current_node.version_id == new.id
        assert ex.next_run_at == due[ex.id]  # the wait keeps its due time although v2 waits three days
    events = ExecutionEvent.objects.filter(campaign_id=campaign.id, type=EventType.VERSION_MIGRATED)
    assert events.count() == 3
    event = events.first()
    assert event.actor_id == actor.user.id
    assert (event.data["from_version"], event.data["to_version"]) == (old.id, new.id)
    assert (event.data["from_node"], event.data["to_node"]) == ("w", "w")
    # New enrollments enter the new version.
    assert CampaignJourney.objects.get(pk=campaign.pk).workflow_version_id == new.id
    later = T0 + timedelta(days=1, minutes=5)
    with time_machine.travel(later, tick=False):
        driver.tick(later)
        driver.tick(later + timedelta(minutes=1))
    texts = list(
        SmsAttempt.objects.filter(execution__campaign=campaign, node__node_key="b").values_list("message", flat=True)
    )
    assert len(texts) == 3 and all(t.startswith("درود") for t in texts)


@pytest.mark.django_db
def test_recompute_from_the_new_wait(actor, workspace):
    campaign, _ = running_at_wait(actor, workspace, n=2)
    new = publish_v2(actor, campaign, v1_graph(wait_amount=3))
    workflow_id, old = _ids(campaign)
    version_migration_commit(
        actor=actor, workflow_id=workflow_id, from_version_id=old.id, to_version_id=new.id, recompute_waits=True
    )
    for ex in Execution.objects.filter(campaign=campaign):
        assert ex.next_run_at == ex.node_entered_at + timedelta(days=3)


@pytest.mark.django_db
def test_stay_and_exit(actor, workspace):
    campaign, _ = running_at_wait(actor, workspace, n=3)
    new = publish_v2(actor, campaign, v1_graph(second_text=V2_TEXT))
    workflow_id, old = _ids(campaign)
    stay = version_migration_commit(
        actor=actor,
        workflow_id=workflow_id,
        from_version_id=old.id,
        to_version_id=new.id,
        choices=[{"node_key": "w", "choice": "stay"}],
    )
    assert stay.total == 0
    assert set(Execution.objects.filter(campaign=campaign).values_list("version_id", flat=True)) == {old.id}
    out = version_migration_commit(
        actor=actor,
        workflow_id=workflow_id,
        from_version_id=old.id,
        to_version_id=new.id,
        choices=[{"node_key": "w", "choice": "exit"}],
    )
    assert out.result["exited"] == 3
    rows = Execution.objects.filter(campaign=campaign)
    assert {(r.status, r.end_reason) for r in rows} == {(S.CANCELLED, EndReason.NEW_VERSION_EXIT)}
    cancelled = ExecutionEvent.objects.filter(campaign_id=campaign.id, type=EventType.CANCELLED)
    assert cancelled.count() == 3 and cancelled.first().message == EndReason.NEW_VERSION_EXIT


@pytest.mark.django_db
def test_the_same_plan_twice_moves_nobody_twice(actor, workspace):
    campaign, _ = running_at_wait(actor, workspace, n=3)
    new = publish_v2(actor, campaign, v1_graph(second_text=V2_TEXT))
    workflow_id, old = _ids(campaign)
    kwargs = {"actor": actor, "workflow_id": workflow_id, "from_version_id": old.id, "to_version_id": new.id}
    first = version_migration_commit(**kwargs)
    second = version_migration_commit(**kwargs)
    assert first.pk == second.pk and VersionMigration.objects.count() == 1
    assert ExecutionEvent.objects.filter(type=EventType.VERSION_MIGRATED).count() == 3
    assert Execution.objects.filter(campaign=campaign, revision__gt=0).count() == 3


@pytest.mark.django_db
def test_a_newer_publish_makes_the_plan_stale(actor, workspace):
    campaign, _ = running_at_wait(actor, workspace, n=1)
    v2 = publish_v2(actor, campaign, v1_graph(second_text=V2_TEXT))
    publish_v2(actor, campaign, v1_graph(second_text=V2_TEXT + "!"))
    workflow_id, old = _ids(campaign)
    with pytest.raises(StaleVersion):
        version_migration_commit(actor=actor, workflow_id=workflow_id, from_version_id=old.id, to_version_id=v2.id)
    assert set(Execution.objects.values_list("version_id", flat=True)) == {old.id}


@pytest.mark.django_db
def test_text_fix_moves_only_those_who_have_not_sent_the_step(actor, workspace):
    campaign, _ = running_at_wait(actor, workspace, n=2)
    # Two more who have not even started (pending on the first step) and one that finished.
    new = publish_v2(actor, campaign, v1_graph(second_text=V2_TEXT))
    workflow_id, old = _ids(campaign)
    preview = version_migration_preview(
        actor=actor, workflow_id=workflow_id, from_version_id=old.id, to_version_id=new.id
    )
    assert preview.text_only and preview.text_changed_keys == ["b"]
    assert preview.text_fix_count == 2
    text_diff = next(d for d in preview.diff if d.node_key == "b")
    line = next(line for line in text_diff.lines if line.old and line.new)
    assert V1_TEXT in line.old and V2_TEXT in line.new
    migration = version_migration_commit(
        actor=actor, workflow_id=workflow_id, from_version_id=old.id, to_version_id=new.id, text_fix=True
    )
    assert migration.kind == "text_fix" and migration.result["moved"] == 2
    assert {p["node_key"] for p in migration.plan} == {"a", "w", "b"}  # at or before the changed step


@pytest.mark.django_db
def test_text_fix_refused_when_more_than_texts_changed(actor, workspace):
    campaign, _ = running_at_wait(actor, workspace, n=1)
    new = publish_v2(actor, campaign, v1_graph(wait_amount=2))
    workflow_id, old = _ids(campaign)
    from campaigns.platform.errors import ValidationFailed

    with pytest.raises(ValidationFailed):
        version_migration_commit(
            actor=actor, workflow_id=workflow_id, from_version_id=old.id, to_version_id=new.id, text_fix=True
        )


@pytest.mark.django_db
def test_another_workspace_cannot_see_or_move(actor, workspace, other_workspace):
    campaign, _ = running_at_wait(actor, workspace, n=1)
    new = publish_v2(actor, campaign, v1_graph(second_text=V2_TEXT))
    workflow_id, old = _ids(campaign)
    stranger = make_actor(other_workspace)
    with pytest.raises(NotFound):
        version_migration_preview(actor=stranger, workflow_id=workflow_id, from_version_id=old.id, to_version_id=new.id)
    with pytest.raises(NotFound):
        version_migration_commit(actor=stranger, workflow_id=workflow_id, from_version_id=old.id, to_version_id=new.id)
    assert Execution.objects.get().version_id == old.id


@pytest.mark.django_db
def test_a_claimed_execution_moves_after_its_step(actor, workspace):
    campaign, driver = running_at_wait(actor, workspace, n=3)
    new = publish_v2(actor, campaign, v1_graph(second_text=V2_TEXT))
    workflow_id, old = _ids(campaign)
    later = T0 + timedelta(days=1, minutes=5)
    # One of them is due and claimed by a worker, the others' waits are not over.
    first = Execution.objects.filter(campaign=campaign).order_by("id").first()
    Execution.objects.filter(pk=first.pk).update(next_run_at=T0 + timedelta(minutes=30))
    Execution.objects.exclude(pk=first.pk).update(next_run_at=later + timedelta(days=5))
    with time_machine.travel(later, tick=False):
        _, claimed = driver.tick(later, process=False)
        assert [c[0] for c in claimed] == [first.pk]
        migration = version_migration_commit(
            actor=actor,
            workflow_id=workflow_id,
            from_version_id=old.id,
            to_version_id=new.id,
            enqueue=lambda *a, **k: None,
            choices=[
                {"node_key": "w", "choice": "move", "to_node_key": "w"},
                {"node_key": "b", "choice": "move", "to_node_key": "b"},
            ],
        )
    assert migration.status == MigrationStatus.RUNNING and migration.result["busy"] == 1
    assert Execution.objects.get(pk=first.pk).version_id == old.id  # not touched under its worker
    from automation.engine.batch import process_batch
    from automation.services.version_migrations import version_migration_run

    with time_machine.travel(later, tick=False):
        process_batch(claimed, now=later)  # its step: the wait ends, it stands at "b" of version 1 now
        assert Execution.objects.get(pk=first.pk).current_node.node_key == "b"
        done = version_migration_run(migration_id=str(migration.pk))
    assert done.status == MigrationStatus.DONE and done.result["moved"] == 3 and done.result["busy"] == 0
    moved = Execution.objects.get(pk=first.pk)
    assert moved.version_id == new.id and moved.current_node.node_key == "b"
    assert ExecutionEvent.objects.filter(execution_id=first.pk, type=EventType.VERSION_MIGRATED).count() == 1


@pytest.mark.django_db(transaction=True)
@pytest.mark.skipif(
    __import__("django.db").db.connection.vendor != "postgresql", reason="row locks and SKIP LOCKED need PostgreSQL"
)
def test_the_engine_ticking_during_the_move_loses_nobody_and_moves_nobody_twice(actor, workspace, monkeypatch):
    """The engine claims and steps executions (real PostgreSQL transactions, a thread) while the migration sweeps
    in chunks: every execution ends on the new version or finished its journey on the old one before the
    sweep reached it; each moved one has exactly one event; no step is sent twice."""
    import threading

    from django.db import connections
    from django.utils import timezone

    from automation.engine.batch import process_batch
    from automation.engine.scheduler import tick
    from automation.services import version_migrations
    from automation.services.version_migrations import version_migration_run

    monkeypatch.setattr(version_migrations, "CHUNK", 100)
    n = 600
    campaign, _ = running_at_wait(actor, workspace, n=n)
    ids = list(Execution.objects.filter(campaign=campaign).order_by("id").values_list("id", flat=True))
    now = timezone.now()
    # Every other one is due now (the engine takes it on), the rest wait on.
    Execution.objects.filter(pk__in=ids[::2]).update(next_run_at=now - timedelta(minutes=1))
    Execution.objects.filter(pk__in=ids[1::2]).update(next_run_at=now + timedelta(days=3))
    new = publish_v2(actor, campaign, v1_graph(second_text=V2_TEXT))
    workflow_id, old = _ids(campaign)
    stop = threading.Event()
    rounds = []

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
        migration = version_migration_commit(
            actor=actor,
            workflow_id=workflow_id,
            from_version_id=old.id,
            to_version_id=new.id,
            enqueue=lambda *a, **k: None,
        )
        for _ in range(50):
            migration = version_migration_run(migration_id=str(migration.pk), enqueue=lambda *a, **k: None)
            if migration.status == MigrationStatus.DONE:
                break
    finally:
        stop.set()
        worker.join()
    assert sum(rounds) > 0, "the engine stepped nothing while the migration ran"
    migration = version_migration_run(migration_id=str(migration.pk), enqueue=lambda *a, **k: None)
    assert migration.status == MigrationStatus.DONE
    rows = {e.id: e for e in Execution.objects.filter(pk__in=ids).select_related("current_node")}
    migrated = ExecutionEvent.objects.filter(execution_id__in=ids, type=EventType.VERSION_MIGRATED)
    per_execution = {}
    for execution_id in migrated.values_list("execution_id", flat=True):
        per_execution[execution_id] = per_execution.get(execution_id, 0) + 1
    assert max(per_execution.values()) == 1  # never twice
    on_new = {i for i, e in rows.items() if e.version_id == new.id}
    assert on_new == set(per_execution)  # every moved one has its event, and only those moved
    left_on_old = [e for e in rows.values() if e.version_id == old.id]
    assert all(
        e.status not in (S.ACTIVE, S.WAITING, S.QUEUED, S.PROCESSING, S.PAUSED) for e in left_on_old
    )  # never lost
    assert all(e.current_node.version_id == e.version_id for e in rows.values())
    sent = SmsAttempt.objects.filter(execution_id__in=ids, node__node_key="b")
    assert sent.count() == sent.values("execution_id").distinct().count()  # no step sent twice
    assert len(on_new) >= n // 2


@pytest.mark.django_db
def test_a_migration_whose_worker_died_is_sent_again_then_failed_after_the_last_try(actor, workspace, monkeypatch):
    from datetime import timedelta

    from django.utils import timezone

    from automation.choices import MigrationStatus
    from automation.models import VersionMigration
    from automation.services import version_migrations
    from automation.services.leases import MAX_ATTEMPTS

    campaign, _ = running_at_wait(actor, workspace, n=3)
    new = publish_v2(actor, campaign, v1_graph(wait_amount=2))
    workflow_id, old = _ids(campaign)
    monkeypatch.setattr(version_migrations, "INLINE_MAX", 1)  # the background job moves them
    migration = version_migrations.version_migration_commit(
        actor=actor, workflow_id=workflow_id, from_version_id=old.id, to_version_id=new.id, enqueue=lambda *a, **k: None
    )
    assert migration.status == MigrationStatus.RUNNING
    later = timezone.now() + timedelta(hours=1)  # past the lease: its worker died
    sent: list = []
    assert version_migrations.version_migrations_resume(now=later, enqueue=sent.append) == {"resumed": 1, "failed": 0}
    migration.refresh_from_db()
    assert sent == [str(migration.pk)] and migration.attempts == 2 and migration.lease_until > later
    VersionMigration.objects.filter(pk=migration.pk).update(attempts=MAX_ATTEMPTS)
    much_later = later + timedelta(hours=1)
    assert version_migrations.version_migrations_resume(now=much_later, enqueue=sent.append) == {
        "resumed": 0,
        "failed": 1,
    }
    migration.refresh_from_db()
    assert migration.status == MigrationStatus.FAILED and migration.lease_until is None
    assert migration.finished_at == much_later and len(sent) == 1


def test_the_diff_reads_waits_retries_and_conditions_in_persian():
    """The migration step's diff names a wait, a retry and a condition as the builder does: Persian digits and
    labels, not «2 روز», «fixed», «fail» or the condition's JSON."""
    import re

    from automation.builder.diff import version_diff
    from automation.engine.graph import Graph

    def condition(rules):
        return {
            "node_key": "c",
            "type": "condition",
            "subtype": "field_rules",
            "config": {"logic": "all", "rules": rules},
        }

    retry = {
        "enabled": True,
        "strategy": "exponential",
        "max_attempts": 3,
        "interval_seconds": 600,
        "on_exhausted": "stop",
    }
    old = linear_graph(
        sms_node("a", body="اول"),
        wait_node("w", amount=1),
        condition([{"field": "target.city", "operator": "in", "value": ["کرج", "قم"]}]),
        end_node(),
    )
    new = linear_graph(
        sms_node("a", body="اول", retry=retry),
        wait_node("w", amount=2),
        condition(
            [
                {"field": "target.city", "operator": "eq", "value": "تهران"},
                {"logic": "any", "rules": [{"field": "target.priority", "operator": "gt", "value": 3}]},
            ]
        ),
        end_node(),
    )
    lines = {
        (d.node_key, line.label): line
        for d in version_diff(Graph.from_dict(old), Graph.from_dict(new))
        for line in d.lines
    }
    assert (lines["w", "انتظار"].old, lines["w", "انتظار"].new) == ("۱ روز", "۲ روز")
    assert lines["a", "تلاش دوباره"].new == "روشن، ۳ بار، هر ۶۰۰ ثانیه، دو برابر شونده، پس از آخرین تلاش: توقف"
    assert lines["c", "شرط"].old == "شهر یکی از کرج، قم"
    assert lines["c", "شرط"].new == "شهر برابر با تهران و (اولویت بزرگ‌تر از 3)"  # a value as it was typed
    for line in lines.values():
        assert not re.search(r"[A-Za-z{}\"]", (line.old or "") + (line.new or "")), line
