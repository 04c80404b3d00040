"""The browser worker process: one Playwright + one Chromium per process, started after fork.

``celeryd_init`` (in the parent, before forking) notes whether this worker
consumes a ``browser…`` queue; ``worker_process_init`` (in every child, after
fork) then starts Chromium; ``worker_process_shutdown`` closes it. Other
workers never start a browser. A solo pool (no fork, e.g. ``make run``'s one
worker for every queue) starts it lazily on the first browser task.

Playwright's sync API is not thread-safe and leaves an event loop running in
the thread that started it, which makes Django refuse ORM calls there. So the
browser lives in one dedicated thread of the process (``BrowserThread``): the
Celery thread hands it a payload and gets the result back, and stays free for
ORM tasks when one worker serves every queue. The browser side never calls the
ORM. Use the prefork or solo pool for browser queues (not threads/gevent).
"""

import logging
import math
import os
import signal
import time
from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from datetime import datetime

from celery.exceptions import SoftTimeLimitExceeded
from celery.signals import celeryd_init, worker_process_init, worker_process_shutdown
from django.conf import settings
from django.core.cache import cache
from django.utils import timezone

from workers import conf
from workers.choices import ErrorCode
from workers.claims import run_claim_key
from workers.runner import BrowserHost

logger = logging.getLogger("workers.worker")

_state: dict = {"browser_queue": False, "host": None}
# The run claim outlives the lease by this much: worker clocks that run a little behind still see it.
CLAIM_SLACK_SECONDS = 60


def _process_tree() -> dict[int, list[int]]:
    """parent pid → child pids, from /proc (Linux)."""
    tree: dict[int, list[int]] = {}
    if not os.path.isdir("/proc"):
        return tree
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat") as stat:
                ppid = int(stat.read().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
        tree.setdefault(ppid, []).append(int(name))
    return tree


def _running(pid: int) -> bool:
    """The process exists and is not a zombie (a killed child waits to be reaped, it runs nothing)."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] not in ("Z", "X")
    except (OSError, IndexError):
        return False


def descendants(pid: int) -> list[int]:
    tree = _process_tree()
    found, stack = [], list(tree.get(pid, []))
    while stack:
        child = stack.pop()
        found.append(child)
        stack.extend(tree.get(child, []))
    return found


class BrowserThread:
    """A BrowserHost confined to one thread of this process.

    The processes started with it (Playwright's driver and the Chromium under it) are noted, so
    ``kill`` can end them from outside: a Playwright call stuck in that thread then fails at once,
    and nothing of an abandoned task can keep clicking.
    """

    def __init__(self, host: BrowserHost) -> None:
        self.pid = os.getpid()
        self.host = host
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="playwright")
        before = set(descendants(self.pid))
        self._executor.submit(host.start).result()
        self.browser_pids = [p for p in descendants(self.pid) if p not in before]

    @property
    def alive(self) -> bool:
        return self.pid == os.getpid()

    def submit(self, payload: dict, *, deadline: float | None = None) -> Future:
        return self._executor.submit(self.host.run, payload, deadline=deadline)

    def run(self, payload: dict, *, deadline: float | None = None) -> dict:
        return self.submit(payload, deadline=deadline).result()

    def stop(self, *, wait: bool = True) -> None:
        """Close the browser after whatever the thread is doing (a stuck task ends on its own timeouts)."""
        self._executor.submit(self.host.stop)
        self._executor.shutdown(wait=wait)

    def kill(self, *, pending: Future | None = None, wait: float = 5.0) -> None:
        """SIGKILL the driver and Chromium; wait (bounded) for the thread's current call to fail and return."""
        targets = {p for root in self.browser_pids for p in [root, *descendants(root)]}
        for pid in targets:
            try:
                os.kill(pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        until = time.monotonic() + wait
        while any(_running(pid) for pid in targets) and time.monotonic() < until:
            time.sleep(0.02)  # SIGKILL is delivered asynchronously: wait until they are really gone
        if pending is not None:
            try:
                pending.result(timeout=wait)
            except BaseException:  # its outcome is discarded: the task's one result is the caller's
                logger.debug("abandoned browser call ended", exc_info=True)
        self._executor.shutdown(wait=False)
        logger.warning("browser killed (pids %s)", self.browser_pids)


def new_host(**overrides) -> BrowserHost:
    options = {
        "executable_path": conf.chromium_path(),
        "args": conf.chromium_args(),
        "pool_size": conf.setting("CONTEXT_POOL_SIZE"),
        "step_timeout_ms": conf.setting("STEP_TIMEOUT_MS"),
        "navigation_timeout_ms": conf.setting("NAVIGATION_TIMEOUT_MS"),
    }
    options.update(overrides)
    return BrowserHost(**options)


def host() -> BrowserThread:
    current = _state["host"]
    if current is None or not current.alive:
        current = BrowserThread(new_host())
        _state["host"] = current
    return current


def stop(*, wait: bool = True) -> None:
    current, _state["host"] = _state["host"], None
    if current is not None and current.alive:
        current.stop(wait=wait)


def restart() -> None:
    """Drop the current browser (it may be stuck mid-call): killed, the next task starts a fresh one."""
    current, _state["host"] = _state["host"], None
    if current is not None and current.alive:
        current.kill()


def time_budget(payload: dict, *, now: datetime | None = None) -> float | None:
    """Seconds the runner may spend on this payload, or None when its lease is over (drop it, do nothing).

    The budget ends ``DEADLINE_MARGIN_SECONDS`` before the task's soft time limit and before its lease
    ends, so the result is published while the lease is still the database's and the soft limit never
    has to interrupt a browser call.
    """
    now = now or timezone.now()
    margin = conf.setting("DEADLINE_MARGIN_SECONDS")
    budget = float(conf.setting("TASK_SOFT_TIME_LIMIT"))
    raw = payload.get("lease_expires_at")
    if raw:
        try:
            lease_end = datetime.fromisoformat(raw)
        except (TypeError, ValueError):
            return None
        remaining = (lease_end - now).total_seconds()
        if remaining <= 0:
            return None
        budget = min(budget, remaining)
    budget -= margin
    return budget if budget > 0 else None


def run_payload(payload: dict) -> dict | None:
    """Run one payload within its time budget; None when it was dropped (lease over before the start).

    The runner checks the deadline before every step and shortens each step's timeout to what is left.
    Should the browser thread still be busy ``margin`` seconds after the deadline — or the soft time limit
    fire — the browser is killed first and only then is a TIMEOUT result returned (or the soft limit
    re-raised), so exactly one result is published and no abandoned thread keeps clicking.
    """
    budget = time_budget(payload)
    if budget is None:
        logger.warning("task %s dropped: its lease ended before it started", payload.get("task_id"))
        return None
    if not first_delivery(payload, budget):
        logger.warning("task %s dropped: not this worker's run of its lease", payload.get("task_id"))
        return None
    thread = host()
    deadline = time.monotonic() + budget
    grace = max(5.0, conf.setting("DEADLINE_MARGIN_SECONDS") - 5.0)  # failure screenshot + context close
    pending = thread.submit(payload, deadline=deadline)
    try:
        return pending.result(timeout=budget + grace)
    except FutureTimeout:
        _kill(thread, pending)
        return failure(payload, ErrorCode.TIMEOUT, "task deadline passed; the browser was stopped")
    except SoftTimeLimitExceeded:
        _kill(thread, pending)
        raise


def first_delivery(payload: dict, budget: float) -> bool:
    """True when this worker won the payload's one start; False for a second delivery of it (drop it).

    The broker may hand the same message out twice (a publish repeated, a message restored after its
    consumer was lost), to two workers at once, and a lease is one chance to act on the page. So before
    any browser starts, the worker claims the lease id in the shared cache — ``cache.add`` is Redis
    ``SET NX``, atomic across worker processes and machines — with the lease as expiry (a copy that
    arrives later than the lease is dropped by ``time_budget``). A payload without a lease id, or a claim
    the cache cannot answer, is not run either: its lease runs out and the reclaim requeues it with
    ``verify_first``, so nothing is ever done twice. The embedded default's in-process cache only sees its
    own process (one worker there).
    """
    lease = payload.get("lease_id")
    if not lease:
        return False
    try:
        lease_end = datetime.fromisoformat(payload["lease_expires_at"])
        lease_seconds = (lease_end - timezone.now()).total_seconds()
    except (KeyError, TypeError, ValueError):
        lease_seconds = budget + conf.setting("DEADLINE_MARGIN_SECONDS")
    try:
        return cache.add(run_claim_key(lease), 1, timeout=max(1, math.ceil(lease_seconds)) + CLAIM_SLACK_SECONDS)
    except SoftTimeLimitExceeded:
        raise
    except Exception:  # the claim store is down: not claimed, so not run (the lease reclaim retries it)
        logger.warning("task %s: the run claim could not be made", payload.get("task_id"), exc_info=True)
        return False


def _kill(thread: BrowserThread, pending: Future) -> None:
    if _state["host"] is thread:
        _state["host"] = None
    thread.kill(pending=pending)


def failure(payload: dict, code: str, reason: str, *, mutated: bool = True) -> dict:
    """A result the worker makes itself (the runner did not finish): a page-changing step may have run."""
    return {
        "task_id": payload.get("task_id"),
        "attempt": payload.get("attempt"),
        "lease_id": payload.get("lease_id"),
        "status": "failed",
        "error_code": code,
        "error_reason": reason,
        "result_data": {"mutated": mutated},
    }


def _names(value) -> list[str]:
    """Queue names from a worker option: a comma-separated string or a list."""
    if isinstance(value, str):
        value = value.split(",")
    return [q.strip() for q in value or [] if q and q.strip()]


@celeryd_init.connect
def _note_queues(sender=None, conf=None, options=None, **kwargs) -> None:
    """Whether this worker consumes a browser queue: the queues of ``-Q``, or without it every declared queue
    but those of ``-X`` (a worker started without ``-Q`` serves every channel's queue, the browser's too)."""
    options = options or {}
    queues = _names(options.get("queues"))
    if not queues:
        declared = getattr(conf, "task_queues", None) or settings.CELERY_TASK_QUEUES
        excluded = set(_names(options.get("exclude_queues")))
        queues = [q.name for q in declared if q.name not in excluded]
    _state["browser_queue"] = any(q.startswith("browser") for q in queues)


@worker_process_init.connect
def _start_browser(**kwargs) -> None:
    _state["host"] = None  # never reuse anything inherited from the parent
    if _state["browser_queue"]:
        host()


@worker_process_shutdown.connect
def _stop_browser(**kwargs) -> None:
    stop()
