"""``manage.py bench_browser``: the whole pipeline against the local site vs a raw Playwright loop.

Raw loop: one Chromium, a new context + page per task, the same steps (goto,
click Like, verify). Pipeline: creation job → dispatch (claim, payload,
publish on commit) → N browser worker processes running the production
runner (``workers.runner.BrowserHost``, warm context per account) → result
service → statistics. In process (``WorkerPool``) the broker hop is replaced by
multiprocessing queues, so the figure measures our orchestration and the
runner, not Redis; with ``--broker`` (``BrokerResults``) payloads go through
CELERY_BROKER_URL to real ``celery -A config worker -Q browser-…`` processes
and their ``workers.apply_result`` messages are read back from a results queue
of the run and applied here (what the ``default`` queue's worker does).
"""

from __future__ import annotations

import multiprocessing as mp
import queue
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

STEPS = [
    {"action": "goto"},
    {"action": "click", "selector": "#like"},
    {"action": "verify", "selector": ".liked"},
]
LOGIN_CHECK = {"login_url_patterns": ["/login"], "logged_in_selector": "#me"}


@dataclass
class BenchResult:
    tasks: int
    seconds: float
    orchestration_seconds: float = 0.0  # creation + dispatch + result service + statistics, in this process

    @property
    def rate(self) -> float:
        return self.tasks / self.seconds if self.seconds else 0.0


def raw_loop(*, executable_path: str, args: list[str], links: list[str], cookies: list[str]) -> BenchResult:
    """One browser, a fresh context and page per task (run in its own thread: Playwright's loop stays there)."""

    def run() -> BenchResult:
        from playwright.sync_api import sync_playwright

        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=executable_path, args=args, headless=True)
            started = time.perf_counter()
            for link, cookie in zip(links, cookies, strict=True):
                context = browser.new_context()
                try:
                    name, value = cookie.split("=", 1)
                    origin = link.split("/post/")[0] + "/"
                    context.add_cookies([{"name": name, "value": value, "url": origin}])
                    page = context.new_page()
                    page.goto(link, wait_until="domcontentloaded")
                    page.locator("#like").first.click()
                    page.locator(".liked").first.wait_for(state="visible")
                finally:
                    context.close()
            elapsed = time.perf_counter() - started
            browser.close()
        return BenchResult(len(links), elapsed)

    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(run).result()


def worker_main(jobs, results, executable_path: str, args: list[str], pool_size: int) -> None:
    """A browser worker process: the production runner, fed by a queue instead of the broker."""
    import django

    django.setup()  # a spawned process starts empty: the apps' ready() registers the steps the runner plays
    from workers.runner import BrowserHost

    host = BrowserHost(executable_path=executable_path, args=args, pool_size=pool_size).start()
    results.put({"ready": True})
    try:
        while True:
            payload = jobs.get()
            if payload is None:
                break
            results.put(host.run(payload))
    finally:
        host.stop()


class WorkerPool:
    def __init__(self, *, size: int, executable_path: str, args: list[str], pool_size: int) -> None:
        ctx = mp.get_context("spawn")
        self.jobs = ctx.Queue()
        self.results = ctx.Queue()
        self.processes = [
            ctx.Process(target=worker_main, args=(self.jobs, self.results, executable_path, args, pool_size))
            for _ in range(size)
        ]

    def __enter__(self) -> WorkerPool:
        for process in self.processes:
            process.start()
        for _ in self.processes:
            assert self.results.get(timeout=120).get("ready")
        return self

    def publish(self, payloads: list[dict]) -> None:
        for payload in payloads:
            self.jobs.put(payload)

    def __exit__(self, *exc) -> None:
        for _ in self.processes:
            self.jobs.put(None)
        for process in self.processes:
            process.join(timeout=30)
            if process.is_alive():
                process.terminate()


class BrokerResults:
    """The results queue of a ``--broker`` run: ``workers.apply_result`` messages, read and acknowledged here."""

    def __init__(self, name: str) -> None:
        from django.conf import settings
        from kombu import Connection, Exchange, Queue

        self.connection = Connection(
            settings.CELERY_BROKER_URL, transport_options=settings.CELERY_BROKER_TRANSPORT_OPTIONS
        )
        self.queue = self.connection.SimpleQueue(Queue(name, Exchange(name), routing_key=name))  # declared now

    def get(self, timeout: float) -> dict:
        try:
            message = self.queue.get(block=True, timeout=timeout)
        except self.queue.Empty:
            raise queue.Empty from None
        message.ack()
        return message.decode()[0][0]

    def close(self) -> None:
        self.queue.close()
        self.connection.release()


def pipeline_run(
    *,
    campaign_id: int,
    total: int,
    concurrency: int,
    next_result: Callable[[float], dict],
    publisher: Callable[[list[dict]], None] | None = None,
    timeout: float = 1800,
) -> BenchResult:
    """Creation → dispatch → workers → results, timed until the last result is applied.

    ``publisher``: the in-process pool's queue; None publishes to the broker (production path).
    ``next_result(timeout)``: the next result message, ``queue.Empty`` after ``timeout``.
    """
    from django.db import transaction

    from workers import dispatch as messaging
    from workers.services.creation import due_platforms_create_tasks
    from workers.services.dispatch import dispatch_due_tasks
    from workers.services.results import result_apply
    from workers.services.statistics import statistics_refresh

    messaging.set_publisher(publisher)
    try:
        started = time.perf_counter()
        due_platforms_create_tasks()
        busy = time.perf_counter() - started
        done = in_flight = 0
        while done < total:
            # top up in batches (like beat's dispatch job), not one claim per result
            if in_flight <= concurrency // 2:
                t = time.perf_counter()
                with transaction.atomic():
                    in_flight += dispatch_due_tasks(batch_size=concurrency - in_flight)
                busy += time.perf_counter() - t
            try:
                result = next_result(0.5)
            except queue.Empty:
                if time.perf_counter() - started > timeout:
                    raise RuntimeError(f"only {done} of {total} browser tasks finished in {timeout:.0f} s") from None
                continue
            t = time.perf_counter()
            outcome = result_apply(message=result)
            busy += time.perf_counter() - t
            in_flight -= 1
            if outcome in ("completed", "failed", "replaced", "ignored"):
                done += outcome != "ignored"
        t = time.perf_counter()
        statistics_refresh(campaign_ids=[campaign_id])
        busy += time.perf_counter() - t
        return BenchResult(total, time.perf_counter() - started, busy)
    finally:
        messaging.set_publisher(None)
