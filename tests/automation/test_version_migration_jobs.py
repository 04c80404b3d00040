"""Two jobs sweeping the same migration at once (a resumed job beside one still running): the moves stay exact
(row locks) and so do the counts on the migration row — neither job's moved/exited are lost."""

from __future__ import annotations

import threading
import time

import pytest
from django.db import connection, connections

from automation.choices import EventType, MigrationStatus
from automation.models import Execution, ExecutionEvent, VersionMigration
from automation.services import version_migrations, version_mover
from automation.services.version_migrations import version_migration_commit, version_migration_run

from .test_version_migrations import _ids, publish_v2, running_at_wait, v1_graph

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(connection.vendor != "postgresql", reason="row locks and SKIP LOCKED need PostgreSQL"),
]


def test_two_jobs_of_one_migration_keep_every_count(actor, workspace, monkeypatch):
    n = 60
    campaign, _ = running_at_wait(actor, workspace, n=n)
    new = publish_v2(actor, campaign, v1_graph(wait_amount=2))
    workflow_id, old = _ids(campaign)
    monkeypatch.setattr(version_migrations, "INLINE_MAX", 10)
    migration = version_migration_commit(
        actor=actor,
        workflow_id=workflow_id,
        from_version_id=old.id,
        to_version_id=new.id,
        enqueue=lambda *a, **k: None,
    )
    assert migration.status == MigrationStatus.RUNNING  # more than the inline size: a job moves them
    monkeypatch.setattr(version_migrations, "CHUNK", 5)
    chunk = version_mover.move_chunk

    def slow_chunk(*args, **kwargs):  # both jobs hold a chunk of their own at the same time
        moved = chunk(*args, **kwargs)
        time.sleep(0.05)
        return moved

    monkeypatch.setattr(version_migrations, "move_chunk", slow_chunk)
    errors: list[BaseException] = []

    def job():
        try:
            version_migration_run(migration_id=str(migration.pk), enqueue=lambda *a, **k: None)
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)
        finally:
            connections.close_all()

    jobs = [threading.Thread(target=job) for _ in range(2)]
    for thread in jobs:
        thread.start()
    for thread in jobs:
        thread.join()
    assert not errors
    migration = VersionMigration.objects.get(pk=migration.pk)
    events = ExecutionEvent.objects.filter(campaign_id=campaign.id, type=EventType.VERSION_MIGRATED)
    assert Execution.objects.filter(campaign=campaign, version_id=new.id).count() == n
    assert events.count() == n and events.values("execution_id").distinct().count() == n
    assert migration.status == MigrationStatus.DONE
    assert (migration.result["moved"], migration.processed) == (n, n)
