"""Through Celery for real: a browser worker process (prefork child with its own Chromium) on a
``browser-…`` queue, payloads published to the broker on commit, results read back from the
results queue (``default`` in production, one per test here) and applied here. The child is killed
mid-task to show lease reclaim. Run with the broker and the cache on different Redis databases: the
suite's autouse ``cache.clear()`` flushes the cache database.
"""

import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest
from django.conf import settings
from django.utils import timezone
from kombu import Connection, Exchange, Queue

from workers.choices import TaskStatus
from workers.models import BrowserTask, CampaignStatistics
from workers.services import creation, statistics
from workers.services.dispatch import dispatch_due_tasks
from workers.services.results import result_apply

from .conftest import make_account, make_browser_campaign

pytestmark = [pytest.mark.browser, pytest.mark.slow]

ROOT = Path(settings.BASE_DIR)


@pytest.fixture
def worker_queue(settings):
    """A browser queue of this test only; the server's setting picks it (tenants never name a queue)."""
    name = f"browser-e2e-{uuid.uuid4().hex[:8]}"
    settings.BROWSER_TASKS = {**settings.BROWSER_TASKS, "QUEUE": name}
    return name


def start_worker(tmp_path, queues: str, *args: str, env: dict | None = None, ready: str = "browser started"):
    log_path = tmp_path / f"worker-{uuid.uuid4().hex[:6]}.log"
    log = open(log_path, "w")  # closed by stop_worker
    command = [sys.executable, "-m", "celery", "-A", "config", "worker", "-Q", queues]
    command += ["-n", f"{uuid.uuid4().hex[:8]}@%h", "--without-heartbeat", "--without-gossip", "--without-mingle"]
    command += ["-l", "INFO", *args]
    process = subprocess.Popen(
        command,
        cwd=ROOT,
        env=dict(
            os.environ,
            PYTHONPATH=str(ROOT),
            DEBUG="1",  # the test's development secrets (a DEBUG=0 worker refuses them)
            BROWSER_ALLOWED_PRIVATE_HOSTS=",".join(settings.BROWSER_ALLOWED_PRIVATE_HOSTS),
            **(env or {}),
        ),
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    process.log, process.log_path = log, log_path
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        text = log_path.read_text()
        if ready in text and " ready." in text:
            return process
        if process.poll() is not None:
            break
        time.sleep(0.2)
    stop_worker(process)
    pytest.fail("worker did not start: " + log_path.read_text()[-2000:])


def stop_worker(process) -> None:
    process.terminate()
    try:
        process.wait(timeout=20)
    except subprocess.TimeoutExpired:
        process.kill()
    process.log.close()


@pytest.fixture
def celery_worker(worker_queue, tmp_path):
    declare(f"results-{worker_queue}")
    process = start_worker(
        tmp_path,
        worker_queue,
        "-c",
        "1",
        "--pool=prefork",
        "--max-tasks-per-child=50",
        env={"BROWSER_RESULTS_QUEUE": f"results-{worker_queue}"},  # results come back only to this test
    )
    yield process
    stop_worker(process)


def children(pid: int) -> list[int]:
    out = subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True).stdout
    return [int(p) for p in out.split()]


def declare(queue_name: str) -> None:
    """Create and bind a queue, so nothing published to it before a consumer exists is dropped."""
    with Connection(settings.CELERY_BROKER_URL, transport_options=settings.CELERY_BROKER_TRANSPORT_OPTIONS) as conn:
        conn.SimpleQueue(Queue(queue_name, Exchange(queue_name), routing_key=queue_name)).close()


def collect_results(queue_name: str, task_ids: set[int], timeout: float = 60) -> list[dict]:
    """Read ``workers.apply_result`` messages for these tasks from the worker's results queue."""
    found: list[dict] = []
    queue = Queue(queue_name, Exchange(queue_name), routing_key=queue_name)
    deadline = time.monotonic() + timeout
    with Connection(settings.CELERY_BROKER_URL, transport_options=settings.CELERY_BROKER_TRANSPORT_OPTIONS) as conn:
        simple = conn.SimpleQueue(queue)
        while time.monotonic() < deadline and {r["task_id"] for r in found} < task_ids:
            try:
                message = simple.get(block=True, timeout=1)
            except simple.Empty:
                continue
            args = message.decode()[0]
            if message.headers.get("task") == "workers.apply_result" and args[0].get("task_id") in task_ids:
                found.append(args[0])
                message.ack()
            else:
                message.requeue()
        simple.close()
    return found


@pytest.mark.django_db
def test_pipeline_through_a_real_celery_worker_survives_a_killed_child(
    actor, workspace, site, celery_worker, worker_queue, django_capture_on_commit_callbacks
):
    accounts = [make_account(workspace) for _ in range(3)]
    campaign = make_browser_campaign(actor, accounts=accounts, links=[site.url("/post/celery-ok")])
    creation.due_platforms_create_tasks()
    with django_capture_on_commit_callbacks(execute=True):
        assert dispatch_due_tasks() == 3
    results = collect_results(
        f"results-{worker_queue}", set(BrowserTask.objects.filter(campaign=campaign).values_list("id", flat=True))
    )
    assert len(results) == 3, celery_worker.log_path.read_text()[-4000:]
    for result in results:
        assert result_apply(message=result) == "completed", result
    statistics.statistics_refresh()
    assert CampaignStatistics.objects.get(campaign=campaign).completed == 3
    assert site.state.like_count("celery-ok") == 3

    # a task whose page hangs: kill the worker's child while it waits, the lease brings it back once
    lost_campaign = make_browser_campaign(
        actor, accounts=[make_account(workspace)], links=[site.url("/post/celery-lost")]
    )
    creation.due_platforms_create_tasks()
    site.state.hold.add("celery-lost")
    now = timezone.now()
    with django_capture_on_commit_callbacks(execute=True):
        assert dispatch_due_tasks(now=now) == 1
    deadline = time.monotonic() + 30
    while site.state.paths["/post/celery-lost"] == 0 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert site.state.paths["/post/celery-lost"] >= 1, celery_worker.log_path.read_text()[-2000:]
    (child,) = children(celery_worker.pid)
    os.kill(child, signal.SIGKILL)
    site.state.hold.discard("celery-lost")
    task = BrowserTask.objects.get(campaign=lost_campaign)
    assert task.status == TaskStatus.DISPATCHED
    with django_capture_on_commit_callbacks(execute=True):
        assert dispatch_due_tasks(now=now + timezone.timedelta(minutes=11)) == 1  # lease expired: reclaimed
    # the new child starts a browser first: on a loaded 2-core machine that alone can take most of a minute
    (result,) = collect_results(f"results-{worker_queue}", {task.pk}, timeout=150)
    assert result["attempt"] == 2 and result["status"] == "completed", result
    assert result_apply(message=result) == "completed"
    task.refresh_from_db()
    assert task.status == TaskStatus.COMPLETED and task.attempt_count == 2
    assert site.state.like_count("celery-lost") == 1


@pytest.mark.django_db(transaction=True)
def test_one_solo_worker_serving_every_queue_runs_the_browser_and_applies_results(
    actor, workspace, site, worker_queue, tmp_path
):
    """``make run``'s shape: one solo worker for the results queue and ``browser…``. The browser lives in its
    own thread, so the same process still applies results with the ORM."""
    db = settings.DATABASES["default"]
    if db["ENGINE"] != "django.db.backends.postgresql":
        pytest.skip("the worker process must reach the test database (PostgreSQL, DATABASE_URL)")
    database_url = f"postgres://{db['USER']}@{db['HOST']}:{db['PORT']}/{db['NAME']}"
    results_queue = f"results-{worker_queue}"
    campaign = make_browser_campaign(
        actor, accounts=[make_account(workspace) for _ in range(2)], links=[site.url("/post/solo")]
    )
    creation.due_platforms_create_tasks()
    process = start_worker(
        tmp_path,
        f"{results_queue},{worker_queue}",
        "--pool=solo",
        env={"DATABASE_URL": database_url, "BROWSER_RESULTS_QUEUE": results_queue},
        ready="Connected",
    )
    try:
        assert dispatch_due_tasks() == 2  # autocommit: published at once
        done = BrowserTask.objects.filter(campaign=campaign, status=TaskStatus.COMPLETED)
        deadline = time.monotonic() + 60
        while done.count() < 2 and time.monotonic() < deadline:
            time.sleep(0.3)
        log = process.log_path.read_text()
        assert done.count() == 2, log[-3000:]
        assert "SynchronousOnlyOperation" not in log
        assert site.state.like_count("solo") == 2
    finally:
        stop_worker(process)
