"""A browser worker SIGKILLed mid-task, right after its click reached the site.

A real ``celery -A config worker`` (solo pool: the process that drives Chromium is the one killed) runs a
Like task against a page served here. The page counts every Like request and shows "liked" to a session
that has liked. The worker dies when its Like request arrives — before the answer, before any result.
The lease runs out, the task is reclaimed (``needs_verification``) and dispatched again to a new worker,
which opens the page, sees the end state and reports it without clicking. Exactly one click reached the
site, exactly one result was published and applied, and nothing of the killed worker clicks later.
"""

import json
import os
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit

import pytest
from django.utils import timezone

from tests.platform.faults.processes import CeleryWorker, descendants, kill_pids, running
from workers.choices import TaskStatus
from workers.models import BrowserTask, CampaignStatistics
from workers.services import creation, statistics
from workers.services.dispatch import dispatch_due_tasks
from workers.services.results import result_apply

from .conftest import LIKE_STEPS, make_account, make_browser_campaign
from .test_e2e_celery import collect_results, declare

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.django_db(transaction=True)]


class LikePage:
    """A post page that shows "liked" to a session that liked it; ``on_like`` runs before a Like is answered."""

    def __init__(self) -> None:
        self.likes = 0
        self.page_loads = 0
        self.on_like = None
        self.lock = threading.Lock()
        page = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args) -> None:
                pass

            def _send(self, body: str, ctype: str = "text/html; charset=utf-8") -> None:
                data = body.encode()
                try:
                    self.send_response(200)
                    self.send_header("Content-Type", ctype)
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except OSError:  # the browser that asked was killed
                    pass

            def do_GET(self) -> None:
                with page.lock:
                    page.page_loads += 1
                    liked = '<p class="liked">liked</p>' if page.likes else ""
                post = urlsplit(self.path).path.rsplit("/", 1)[1]
                self._send(
                    f'<!doctype html><html><body><div id="me">me</div>{liked}'
                    f"<button id=\"like\" onclick=\"fetch('/like/{post}',{{method:'POST'}}).then(()=>"
                    "document.body.insertAdjacentHTML('beforeend','<p class=liked>liked</p>'))\">Like</button>"
                    "</body></html>"
                )

            def do_POST(self) -> None:
                self.rfile.read(int(self.headers.get("Content-Length") or 0))
                with page.lock:
                    page.likes += 1
                if page.on_like:
                    page.on_like()
                self._send(json.dumps({"likes": page.likes}), "application/json")

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    @property
    def host(self) -> str:
        return f"127.0.0.1:{self.server.server_address[1]}"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def test_browser_worker_killed_after_its_click_ends_the_task_once(actor, workspace, settings, tmp_path):
    db_engine = settings.DATABASES["default"]["ENGINE"]
    if db_engine != "django.db.backends.postgresql" or not settings.CELERY_BROKER_URL.startswith("redis"):
        pytest.skip("needs PostgreSQL and a Redis broker")
    page = LikePage()
    queue = f"browser-fault-{uuid.uuid4().hex[:8]}"
    results = f"results-{queue}"
    settings.BROWSER_TASKS = {**settings.BROWSER_TASKS, "QUEUE": queue}
    settings.BROWSER_ALLOWED_PRIVATE_HOSTS = [page.host]
    declare(results)
    env = {
        "BROWSER_RESULTS_QUEUE": results,
        "BROWSER_ALLOWED_PRIVATE_HOSTS": page.host,
        "PLAYWRIGHT_CHROMIUM_PATH": os.environ.get("PLAYWRIGHT_CHROMIUM_PATH", settings.PLAYWRIGHT_CHROMIUM_PATH),
    }
    workers: list[CeleryWorker] = []
    orphans: list[int] = []
    killed = threading.Event()

    def kill_worker() -> None:
        if killed.is_set():
            return
        worker = workers[-1]
        orphans.extend(descendants(worker.pid))  # Playwright's driver and Chromium
        worker.kill()
        killed.set()

    page.on_like = kill_worker
    try:
        campaign = make_browser_campaign(
            actor, accounts=[make_account(workspace)], links=[f"http://{page.host}/post/kill"], steps=LIKE_STEPS
        )
        creation.due_platforms_create_tasks()
        task = BrowserTask.objects.get(campaign=campaign)
        workers.append(CeleryWorker(tmp_path, env, queues=queue, pool="solo"))
        assert workers[-1].wait_ready(60), workers[-1].text()[-2000:]
        now = timezone.now()
        assert dispatch_due_tasks(now=now) == 1  # autocommit: published at once
        assert killed.wait(90), workers[-1].text()[-3000:]
        assert collect_results(results, {task.pk}, timeout=3) == []  # the killed attempt published nothing
        task.refresh_from_db()
        assert task.status == TaskStatus.DISPATCHED and page.likes == 1

        workers.append(CeleryWorker(tmp_path, env, queues=queue, pool="solo"))
        assert workers[-1].wait_ready(60), workers[-1].text()[-2000:]
        later = now + timezone.timedelta(seconds=settings.BROWSER_TASKS["LEASE_SECONDS"] + 60)
        assert dispatch_due_tasks(now=later) == 1  # the lease ran out: reclaimed, dispatched again
        found = collect_results(results, {task.pk}, timeout=90)
        assert len(found) == 1, workers[-1].text()[-3000:]
        (result,) = found
        assert result["attempt"] == 2 and result["status"] == "completed", result
        assert result["result_data"].get("already_done") is True  # verified, not clicked again
        assert result_apply(message=result) == "completed"
        assert result_apply(message=result) == "ignored"  # and a redelivered copy changes nothing

        time.sleep(2)  # anything left of the killed worker would click now
        assert page.likes == 1
        assert collect_results(results, {task.pk}, timeout=2) == []  # one result in all
        task.refresh_from_db()
        assert (task.status, task.attempt_count) == (TaskStatus.COMPLETED, 2)
        statistics.statistics_refresh()
        stats = CampaignStatistics.objects.get(campaign=campaign)
        assert (stats.completed, stats.failed, stats.pending) == (1, 0, 0)
        alive = [pid for pid in orphans if running(pid)]
        print(f"\nbrowser-kill: kills 1, likes {page.likes}, page loads {page.page_loads}, orphans left {len(alive)}")
        assert alive == []  # Playwright's driver and Chromium ended with the worker that started them
    finally:
        for worker in workers:
            worker.stop()
        kill_pids(orphans)
        page.close()
