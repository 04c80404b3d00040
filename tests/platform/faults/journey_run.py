"""A one-SMS journey run by real processes while something is disrupted (Redis or PostgreSQL restarts).

The scheduler is ``driver.py tick`` (the real tick, every 0.3 s, as beat would call it), the worker a real
``celery -A config worker`` on the ``engine`` queue, the provider a fake Kavenegar in this process that
counts what a customer would receive. ``disrupt`` runs in a thread once the first message was accepted.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from sms.providers.base import national
from tests.sms.fake_provider import FakeProvider

from .engine_kill import batch_local_ids
from .processes import ROOT, CeleryWorker

LEASE_SECONDS = 4


@dataclass
class Outcome:
    targets: int
    messages: int = 0
    duplicates: int = 0
    lost: int = 0
    resends: int = 0
    send_requests: int = 0
    tick_failures: int = 0
    done: bool = False
    report: dict = field(default_factory=dict)
    logs: str = ""

    def line(self, kind: str, faults: int) -> str:
        return (
            f"{kind}: faults {faults}, targets {self.targets}, messages {self.messages}, send requests "
            f"{self.send_requests}, resends {self.resends}, duplicates {self.duplicates}, lost {self.lost}, "
            f"failed ticks {self.tick_failures}, failed campaign ticks {self.report.get('tick_failed_events')}, "
            f"lease expiries {self.report.get('lease_expired')}, "
            f"executions {self.report.get('executions')}, attempts {self.report.get('attempts')}"
        )


def _driver(env: dict, *args: str, timeout: float = 120) -> dict:
    done = subprocess.run(
        [sys.executable, "-m", "tests.platform.faults.driver", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    if done.returncode not in (0, 1):
        raise RuntimeError(f"driver {args[0]} failed: {done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def run(
    tmp_path: Path,
    *,
    database_url: str,
    broker_url: str,
    targets: int,
    disrupt: Callable[[], None],
    seconds: float = 150,
    send_delay: float = 0.05,
) -> Outcome:
    fake = FakeProvider()
    outcome = Outcome(targets=targets)
    started = threading.Event()
    lock = threading.Lock()

    def on_send(form: dict, client_port: int) -> None:
        with lock:
            outcome.send_requests += 1
            local_ids = batch_local_ids(form)
            outcome.resends += sum(1 for local_id in local_ids if local_id in fake.messages)
        time.sleep(send_delay)  # sends take a moment, so the faults land while work is in flight
        started.set()

    fake.on_send = on_send
    overrides = {
        "DATABASE_URL": database_url,
        "CELERY_BROKER_URL": broker_url,
        "SMS_KAVENEGAR_URL": fake.url,
        "SMS_HTTP_TIMEOUT": "3",
        "SMS_UNKNOWN_SETTLE_SECONDS": "1",
        "AUTOMATION_LEASE_SECONDS": str(LEASE_SECONDS),
        "AUTOMATION_DISPATCH_BATCH": "5",
    }
    env = dict(os.environ, PYTHONPATH=str(ROOT), **overrides)
    worker = ticker = None
    try:
        made = _driver(env, "setup", "--targets", str(targets))
        worker = CeleryWorker(tmp_path, overrides)
        if not worker.wait_ready(60):
            raise RuntimeError("worker did not start: " + worker.text()[-2000:])
        ticker = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "tests.platform.faults.driver",
                "tick",
                "--campaign",
                str(made["campaign"]),
                "--seconds",
                str(seconds),
            ],
            cwd=ROOT,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        if not started.wait(60):
            raise RuntimeError("nothing was sent: " + worker.text()[-2000:])
        disrupt()
        out, err = ticker.communicate(timeout=seconds + 30)
        result = json.loads(out.strip().splitlines()[-1])
        outcome.done, outcome.tick_failures = result["done"], result["tick_failures"]
        outcome.report = _driver(env, "report", "--campaign", str(made["campaign"]))
        outcome.logs = worker.text()[-2500:] + "\n--- ticks ---\n" + err[-1500:]
    finally:
        if ticker is not None and ticker.poll() is None:
            ticker.kill()
            ticker.wait()
        if worker is not None:
            worker.stop()
        fake.close()
    receptors = Counter(m["receptor"] for m in fake.messages.values())
    outcome.messages = sum(receptors.values())
    outcome.duplicates = sum(n - 1 for n in receptors.values())
    outcome.lost = len({national(m) for m in made["mobiles"]} - set(receptors))
    return outcome
