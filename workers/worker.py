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
import os
from concurrent.futures import ThreadPoolExecutor

from celery.signals import celeryd_init, worker_process_init, worker_process_shutdown

from . import conf
from .runner import BrowserHost

logger = logging.getLogger("workers.worker")

_state: dict = {"browser_queue": False, "host": None}


class BrowserThread:
    """A BrowserHost confined to one thread of this process."""

    def __init__(self, host: BrowserHost) -> None:
        self.pid = os.getpid()
        self.host = host
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="playwright")
        self._executor.submit(host.start).result()

    @property
    def alive(self) -> bool:
        return self.pid == os.getpid()

    def run(self, payload: dict) -> dict:
        return self._executor.submit(self.host.run, payload).result()

    def stop(self, *, wait: bool = True) -> None:
        """Close the browser after whatever the thread is doing (a stuck task ends on its own timeouts)."""
        self._executor.submit(self.host.stop)
        self._executor.shutdown(wait=wait)


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
    """Drop the current browser (it may be stuck mid-call); the next task starts a fresh one."""
    stop(wait=False)


@celeryd_init.connect
def _note_queues(sender=None, conf=None, options=None, **kwargs) -> None:
    queues = (options or {}).get("queues") or []
    if isinstance(queues, str):
        queues = queues.split(",")
    _state["browser_queue"] = any(q.strip().startswith("browser") for q in queues)


@worker_process_init.connect
def _start_browser(**kwargs) -> None:
    _state["host"] = None  # never reuse anything inherited from the parent
    if _state["browser_queue"]:
        host()


@worker_process_shutdown.connect
def _stop_browser(**kwargs) -> None:
    stop()
