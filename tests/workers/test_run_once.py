"""A browser task runs at most once per lease, however often the broker delivers its payload.

The browser worker has no database: before a browser starts, the worker must win the lease's run claim in
Redis (``SET NX`` on the lease id, expiring with the lease). Two workers handed the same payload at the same
moment: exactly one opens the page and clicks, exactly one result comes back.
"""

import multiprocessing
import uuid
from datetime import timedelta

import pytest
import redis
from django.conf import settings
from django.core.cache import cache
from django.utils import timezone

from workers import dispatch as messaging
from workers import tasks, worker

from .test_safety import payload_for, worker_settings  # noqa: F401 - the fixture is used by name

pytestmark = pytest.mark.skipif(not settings.REDIS_URL, reason="the run claim is shared through Redis")


def lease_end(minutes: int = 10) -> str:
    return (timezone.now() + timedelta(minutes=minutes)).isoformat()


def _worker_process(payload: dict, barrier, results) -> None:
    """One browser worker process (forked: the test's settings and allow-list come along)."""
    messaging.publish_result = results.put  # the worker's one way out, captured
    barrier.wait(timeout=60)  # both take the message at the same moment
    tasks.run_browser_task.run(payload)
    results.put({"browser_started": worker._state["host"] is not None})
    worker.stop()


@pytest.mark.browser
@pytest.mark.slow
def test_the_same_payload_delivered_to_two_workers_at_once_runs_once(site, worker_settings):  # noqa: F811
    payload = payload_for(site, "two-workers", lease_expires_at=lease_end())
    context = multiprocessing.get_context("fork")
    barrier, results = context.Barrier(2), context.Queue()
    workers = [context.Process(target=_worker_process, args=(dict(payload), barrier, results)) for _ in range(2)]
    for process in workers:
        process.start()
    messages = [results.get(timeout=120) for _ in range(3)]  # one task result + each worker's report
    for process in workers:
        process.join(timeout=60)
        assert process.exitcode == 0
    assert results.empty()
    reports = [m for m in messages if "browser_started" in m]
    outcomes = [m for m in messages if "browser_started" not in m]
    assert sorted(r["browser_started"] for r in reports) == [False, True]  # the loser never started Chromium
    assert [(o["task_id"], o["lease_id"], o["status"]) for o in outcomes] == [
        (payload["task_id"], payload["lease_id"], "completed")
    ]
    assert site.state.like_count("two-workers") == 1
    assert site.state.paths["/post/two-workers"] == 1  # the page was opened once


def test_the_run_claim_lasts_as_long_as_the_lease(worker_settings, monkeypatch):  # noqa: F811
    """A copy delivered late in a long lease (after the task's time limit) still finds the claim."""
    worker_settings(TASK_SOFT_TIME_LIMIT=12, DEADLINE_MARGIN_SECONDS=8)
    lease = str(uuid.uuid4())
    payload = {"task_id": 1, "attempt": 1, "lease_id": lease, "lease_expires_at": lease_end(30)}
    assert worker.first_delivery(payload, 4.0) is True
    ttl = redis.Redis.from_url(settings.REDIS_URL).ttl(cache.make_key(f"browser-run:{lease}"))
    assert 30 * 60 - 5 <= ttl <= 30 * 60 + worker.CLAIM_SLACK_SECONDS
    assert worker.first_delivery(dict(payload), 4.0) is False


def test_a_payload_is_not_run_without_a_won_claim(worker_settings, monkeypatch):  # noqa: F811
    sent = []
    monkeypatch.setattr(messaging, "publish_result", sent.append)
    tasks.run_browser_task.run({"task_id": 2, "attempt": 1, "lease_expires_at": lease_end()})  # no lease id

    def claim_store_down(*args, **kwargs):
        raise redis.exceptions.ConnectionError("Redis is restarting")

    monkeypatch.setattr(cache, "add", claim_store_down)
    tasks.run_browser_task.run({"task_id": 3, "attempt": 1, "lease_id": "l-3", "lease_expires_at": lease_end()})
    assert sent == []  # no result: the lease runs out, the reclaim requeues it (verify first)
    assert worker._state["host"] is None  # no browser was started for either
