"""Celery entry points of the engine (queue ``engine``): take ids, call one service."""

from celery import shared_task


@shared_task(name="automation.tick", ignore_result=True)
def tick() -> dict:
    """Beat, every minute. Never overlaps (advisory lock); claims and dispatches only."""
    from automation.engine.scheduler import tick as run_tick

    report = run_tick()
    return {"claimed": report.claimed, "reaped": report.reaped, "skipped": report.skipped}


@shared_task(name="automation.process_executions", ignore_result=True, max_retries=0)
def process_executions(items: list) -> dict:
    """Run a batch of claimed executions. Tries = 1: retries are domain-level, never framework-level."""
    from automation.engine.runner import process_batch

    return process_batch([(int(i), str(t)) for i, t in items])
