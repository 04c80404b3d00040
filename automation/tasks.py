"""Celery entry points of the engine (queue ``engine``): take ids, call one service."""

from celery import shared_task

from automation.engine.scheduler import PROCESS_EXECUTIONS_TASK, TICK_TASK
from automation.services.enrollment_batches import ENROLLMENT_BATCH_COMMIT_TASK
from automation.services.version_migrations import VERSION_MIGRATION_TASK


@shared_task(name=TICK_TASK, ignore_result=True)
def tick() -> dict:
    """Beat, every minute. Never overlaps (advisory lock); claims and dispatches only."""
    from automation.engine.scheduler import tick as run_tick
    from campaigns.platform.metrics import count_tick

    report = run_tick()
    count_tick(claimed=report.claimed, reaped=report.reaped)
    return {"claimed": report.claimed, "reaped": report.reaped, "room": report.room, "skipped": report.skipped}


@shared_task(name=PROCESS_EXECUTIONS_TASK, ignore_result=True, max_retries=0)
def process_executions(items: list) -> dict:
    """Run a batch of claimed executions. Tries = 1: retries are domain-level, never framework-level."""
    from automation.engine.batch import process_batch

    return process_batch([(int(i), str(t)) for i, t in items])


@shared_task(name=ENROLLMENT_BATCH_COMMIT_TASK, ignore_result=True, max_retries=0)
def enrollment_batch_commit_task(batch_id: int) -> dict:
    """Add a large enrollment batch (resumable: the beat job re-queues it when its lease runs out)."""
    from automation.services.enrollment_batches import enrollment_batch_run

    batch = enrollment_batch_run(batch_id=int(batch_id))
    return {"status": batch.status, "processed": batch.processed, "total": batch.total}


@shared_task(name="automation.enrollment_batches_resume", ignore_result=True)
def enrollment_batches_resume_task() -> dict:
    """Beat, every minute: batches whose worker died are re-queued or marked failed."""
    from automation.services.enrollment_batches import enrollment_batches_resume

    return enrollment_batches_resume()


@shared_task(name="automation.journey_counts_fold", ignore_result=True)
def journey_counts_fold_task() -> int:
    """Beat, every minute: each journey number's delta rows summed into one (``automation.journey_counts``)."""
    from automation.journey_counts import fold

    return fold()


@shared_task(name="automation.auto_enroll_check", ignore_result=True, max_retries=0)
def auto_enroll_check_task() -> dict:
    """Beat, every 5 minutes: each enabled rule of a running campaign adds its new matches (a locked rule is
    skipped, so two checks never run at once)."""
    from automation.services.auto_enroll import auto_enroll_check_all

    return auto_enroll_check_all()


@shared_task(name=VERSION_MIGRATION_TASK, ignore_result=True, max_retries=0)
def version_migration_run_task(migration_id: str) -> dict:
    """Move a version migration's executions (resumable: the beat job re-queues it when its lease runs out)."""
    from automation.services.version_migrations import version_migration_run

    migration = version_migration_run(migration_id=str(migration_id))
    return {"status": migration.status, "processed": migration.processed, "total": migration.total}


@shared_task(name="automation.version_migrations_resume", ignore_result=True)
def version_migrations_resume_task() -> dict:
    """Beat, every minute: migrations whose worker died are re-queued or marked failed."""
    from automation.services.version_migrations import version_migrations_resume

    return version_migrations_resume()
