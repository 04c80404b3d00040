"""Celery entry points: take ids/messages, call one service (or the runner), nothing else.

``workers.browser.run_task`` is routed to the ``browser`` queue and runs in a
browser worker (no database there); everything else runs on ``default``.
"""

import logging

from celery import shared_task
from celery.exceptions import SoftTimeLimitExceeded

from workers import conf, dispatch, worker
from workers.choices import ErrorCode

logger = logging.getLogger("workers.tasks")


@shared_task(name="workers.create_tasks", ignore_result=True)
def create_tasks() -> int:
    from workers.services.creation import due_platforms_create_tasks

    return due_platforms_create_tasks()


@shared_task(name="workers.dispatch", ignore_result=True)
def dispatch_tasks() -> int:
    from workers.services.dispatch import dispatch_due_tasks

    return dispatch_due_tasks()


@shared_task(name="workers.refresh_statistics", ignore_result=True)
def refresh_statistics() -> int:
    from workers.services.statistics import statistics_refresh

    return statistics_refresh()


@shared_task(
    name=dispatch.APPLY_RESULT_TASK,
    ignore_result=True,
    acks_late=True,
    reject_on_worker_lost=True,  # applying a result is idempotent (compare-and-set)
    soft_time_limit=60,
    time_limit=90,
)
def apply_result(message: dict) -> str:
    from workers.services.results import result_apply

    return result_apply(message=message)


@shared_task(
    name=dispatch.RUN_TASK,
    ignore_result=True,
    soft_time_limit=conf.setting("TASK_SOFT_TIME_LIMIT"),
    time_limit=conf.setting("TASK_SOFT_TIME_LIMIT") + 30,
)
def run_browser_task(payload: dict) -> None:
    """Run one payload in this process's Chromium and publish its one result (acked early: leases cover loss).

    A payload whose lease is over is dropped before it starts (the lease reclaim requeues it).
    """
    try:
        result = worker.run_payload(payload)
    except SoftTimeLimitExceeded:  # the browser was killed before this line: nothing keeps clicking
        result = worker.failure(payload, ErrorCode.TIMEOUT, "task time limit exceeded")
    except Exception as exc:  # the browser itself broke (not a task failure): report it, start clean
        logger.exception("browser worker error")
        worker.restart()
        result = worker.failure(payload, ErrorCode.UNKNOWN, f"worker error: {exc.__class__.__name__}")
    if result is not None:
        dispatch.publish_result(result)
