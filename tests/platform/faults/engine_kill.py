"""The engine-worker SIGKILL scenario, for any number of trials (``make faults``: 200; CI: a handful).

A one-SMS journey over many targets, a fake Kavenegar on 127.0.0.1 and a real ``celery -A config worker``
on the ``engine`` queue; this process ticks (reap, claim, dispatch through the broker). One trial = one
SIGKILL of the process that calls the provider, at one of three points of a send:

- ``accepted``: the provider accepted the message and has not answered yet (the answer never arrives);
- ``request``: the request reached the provider, which drops it unaccepted (the worker dies meanwhile);
- ``answered``: the answer was written, the worker dies a few milliseconds later (result write, final
  transition, next batch — wherever it is).

With ``pool="solo"`` the worker process itself dies and a new one is started; with ``pool="prefork"``
the pool child dies and the worker's parent forks a new one. Leases are short (``LEASE_SECONDS``) so the
tick's reaper brings the orphaned executions back quickly; unknown sends are settled by the status query.
"""

from __future__ import annotations

import itertools
import json
import os
import random
import threading
import time
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path

from django.conf import settings
from kombu import Connection

from automation.choices import ExecutionStatus
from automation.engine.scheduler import tick
from automation.models import Execution, ExecutionEvent
from automation.services.enrollment import enroll_subjects
from sms import rate_limits
from sms.models import SmsAttempt, SmsLogEvent, SmsProviderAccount
from sms.providers.base import national
from tests.automation.helpers import end_node, journey, linear_graph, setup_sms, sms_node
from tests.conftest import make_target
from tests.sms.fake_provider import FakeProvider

from .processes import CeleryWorker, children, database_url, kill_pids, pid_of_client

POINTS = ("accepted", "request", "answered")
LEASE_SECONDS = 4
SENDS_PER_TRIAL = 4  # one kill every few send requests; targets = trials × this × a batch (at least 50)
BATCH = 10  # executions per engine job: one send request carries up to this many recipients
SPLIT_MESSAGES_PER_MINUTE = 600  # ``split``: 10 a second, a bucket of 5: a job's 10 in 2+ calls


@dataclass
class Report:
    pool: str
    targets: int
    trials: int = 0  # kills done
    kills: dict = field(default_factory=dict)  # per point
    send_requests: int = 0
    accepted: int = 0
    resends: int = 0  # a send of a local id the provider had already accepted (a blind resend)
    duplicates: int = 0  # messages beyond the first per number (what a customer would see twice)
    lost: int = 0  # numbers that never got their message
    unknown_settled: int = 0  # attempts closed unknown by a kill, then settled by the status query
    unknown_held: int = 0  # attempts still unknown at the end
    not_completed: int = 0  # executions not completed at the end
    lease_expired_events: int = 0
    calls_per_job: float = 0.0  # send requests per engine job (``split``: more than one)
    seconds: float = 0.0
    workers_started: int = 0
    logs: str = field(default="", repr=False)

    def failures(self) -> list[str]:
        found = []
        for name in ("resends", "duplicates", "lost", "unknown_held", "not_completed"):
            if getattr(self, name):
                found.append(f"{name}={getattr(self, name)}")
        return found

    def line(self) -> str:
        kills = ", ".join(f"{k} {v}" for k, v in sorted(self.kills.items()))
        return (
            f"engine-kill ({self.pool}): trials {self.trials} (kills: {kills}), targets {self.targets}, "
            f"send requests {self.send_requests}, accepted {self.accepted}, resends {self.resends}, "
            f"duplicates {self.duplicates}, lost {self.lost}, unknown settled {self.unknown_settled}, "
            f"unknown held {self.unknown_held}, not completed {self.not_completed}, "
            f"lease expiries {self.lease_expired_events}, workers started {self.workers_started}, "
            f"send requests per job {self.calls_per_job:.1f}, {self.seconds:.0f} s"
        )

    def as_dict(self) -> dict:
        return {k: v for k, v in asdict(self).items() if k != "logs"}


def batch_local_ids(form: dict) -> list[str]:
    """The local ids of a send request, one per receptor (``sms/send``: comma-separated ``localid``;
    ``sms/sendarray``: a JSON array ``localmessageids``)."""
    if form.get("localmessageids"):
        return [str(i) for i in json.loads(form["localmessageids"])]
    return (form.get("localid") or "").split(",")


def run(
    actor,
    workspace,
    tmp_path: Path,
    *,
    trials: int,
    pool: str = "solo",
    workers: int = 1,
    points=POINTS,
    seed: int = 1,
    split: bool = False,
) -> Report:
    """``workers`` engine worker processes run side by side (each kill hits the one that made the call).
    ``split``: the account's rate limit (``SPLIT_MESSAGES_PER_MINUTE``) holds less than a job's batch, so every
    job makes several provider calls and each kill lands in the middle of a batch — calls of the job answered
    and not yet written, later calls of it not made."""
    rng = random.Random(seed)
    targets_n = max(50, trials * SENDS_PER_TRIAL * BATCH)
    report = Report(pool=pool, targets=targets_n)
    fake = FakeProvider()
    settings.AUTOMATION_LEASE_SECONDS = LEASE_SECONDS  # the reaper runs in this process's ticks
    settings.AUTOMATION_DISPATCH_BATCH = BATCH
    # Claims per tick bounded to what the workers take in about a lease: with 0.3 s ticks and 4 s leases an
    # unbounded tick would claim everything, let queued rows expire and re-dispatch them over and over.
    settings.AUTOMATION_TICK_MAX_CLAIMS = 30 * workers
    with Connection(settings.CELERY_BROKER_URL, transport_options=settings.CELERY_BROKER_TRANSPORT_OPTIONS) as conn:
        conn.SimpleQueue("engine").clear()  # nothing left over from an earlier run
    env = {
        "DATABASE_URL": database_url(),
        "SMS_KAVENEGAR_URL": fake.url,
        "SMS_HTTP_TIMEOUT": "3",
        "SMS_UNKNOWN_SETTLE_SECONDS": "1",
        "AUTOMATION_LEASE_SECONDS": str(LEASE_SECONDS),
        # A tick a worker runs (starting the journey queues one) claims and dispatches like this process's.
        "AUTOMATION_DISPATCH_BATCH": str(BATCH),
        "AUTOMATION_TICK_MAX_CLAIMS": str(settings.AUTOMATION_TICK_MAX_CLAIMS),
    }
    slots: list[CeleryWorker | None] = [None] * workers
    started_workers: list[CeleryWorker] = []
    lock = threading.Lock()
    # The n-th send requests at which a kill happens, and the point of each (round-robin over points).
    kill_at = [2 + i * SENDS_PER_TRIAL + rng.randrange(SENDS_PER_TRIAL - 1) for i in range(trials)]
    schedule = dict(zip(kill_at, itertools.cycle(points), strict=False))
    kills: Counter = Counter()
    carried: list[str] = []  # kill points due and not done yet (done at the next send request)
    doomed: dict[str, tuple[str, int]] = {}  # local id → (point, pid of the caller) for the later points

    def kill_pid(pid: int | None, point: str) -> bool:
        """SIGKILL the process that called the provider (a solo worker, or a prefork pool's child)."""
        if pid is None:
            return False
        for worker in slots:
            if worker is not None and worker.pid == pid and worker.alive():
                worker.kill()
                break
        else:
            if not os.path.exists(f"/proc/{pid}"):
                return False
            kill_pids([pid])
        kills[point] += 1
        return True

    def caller(port: int) -> int | None:
        candidates = [w.pid for w in slots if w is not None and w.alive()]
        if pool == "prefork":
            candidates = [c for pid in candidates for c in children(pid)]
        return pid_of_client(port, candidates)

    def on_send(form: dict, client_port: int) -> str | None:
        with lock:
            report.send_requests += 1
            local_ids = batch_local_ids(form)
            report.resends += sum(1 for local_id in local_ids if local_id in fake.messages)
            if report.send_requests in schedule:
                carried.append(schedule[report.send_requests])
            if not carried:
                return None
            pid = caller(client_port)
            if pid is None:
                return None  # not found (the caller just died?): the kill moves to the next send
            point = carried.pop(0)
            if point == "request":
                if kill_pid(pid, point):
                    return "drop"  # the request never makes it into the provider
                carried.insert(0, point)
                return None
            doomed[local_ids[0]] = (point, pid)  # "accepted": killed while the provider takes the batch
        return None

    def on_accept(local_id: str) -> None:
        with lock:
            if local_id in doomed and doomed[local_id][0] == "accepted":
                if not kill_pid(doomed.pop(local_id)[1], "accepted"):  # before the answer leaves the provider
                    carried.append("accepted")

    def after_answer(form: dict) -> None:
        with lock:
            entry = doomed.pop(batch_local_ids(form)[0], None)
        if entry is not None:
            time.sleep(rng.uniform(0.0, 0.03))
            with lock:
                if not kill_pid(entry[1], "answered"):
                    carried.append("answered")

    fake.on_send, fake.on_accept, fake.after_answer = on_send, on_accept, after_answer
    sms_settings = setup_sms(workspace, "kavenegar", {"api_key": "K"})
    if split:
        SmsProviderAccount.objects.filter(pk=sms_settings.primary_account_id).update(
            max_messages_per_minute=SPLIT_MESSAGES_PER_MINUTE
        )
    rate_limits.reset()
    campaign = journey(actor, linear_graph(sms_node("a"), end_node()))
    targets = [make_target(workspace) for _ in range(targets_n)]
    for start in range(0, targets_n, 5000):
        enroll_subjects(actor=actor, campaign_id=campaign.id, target_ids=[t.id for t in targets[start : start + 5000]])
    executions = Execution.objects.filter(campaign=campaign)
    attempts = SmsAttempt.objects.filter(campaign=campaign)
    started = time.monotonic()
    try:
        deadline = started + 120 + trials * 15
        while time.monotonic() < deadline:
            with lock:
                for index, worker in enumerate(slots):
                    if worker is None or not worker.alive():
                        slots[index] = CeleryWorker(tmp_path, env, pool=pool)
                        started_workers.append(slots[index])
            for worker in slots:
                worker.wait_ready(timeout=max(1.0, deadline - time.monotonic()))
            tick_report = tick()  # real time: reap, claim, dispatch to the engine queue
            if os.environ.get("FAULT_TRACE"):
                print(
                    f"{time.monotonic() - started:6.1f}s tick {tick_report} kills {dict(kills)} "
                    f"sends {report.send_requests} "
                    f"statuses {dict(Counter(executions.values_list('status', flat=True)))}"
                )
            live = executions.exclude(status=ExecutionStatus.COMPLETED).count()
            unsettled = attempts.filter(status__in=("queued", "sending", "unknown")).count()
            if not live and not unsettled:
                break
            time.sleep(0.3)
    finally:
        for worker in started_workers:
            worker.stop()
        fake.close()
    report.seconds = time.monotonic() - started
    report.workers_started = len(started_workers)
    report.kills = dict(kills)
    report.trials = sum(kills.values())
    report.accepted = len(fake.messages)
    receptors = Counter(m["receptor"] for m in fake.messages.values())
    report.duplicates = sum(n - 1 for n in receptors.values())
    report.lost = len({national(t.mobile) for t in targets} - set(receptors))
    queried = set(
        SmsLogEvent.objects.filter(attempt__campaign=campaign, event="status_query").values_list(
            "attempt_id", flat=True
        )
    )
    report.unknown_settled = attempts.filter(pk__in=queried).exclude(status="unknown").count()
    report.unknown_held = attempts.filter(status="unknown").count()
    report.not_completed = executions.exclude(status=ExecutionStatus.COMPLETED).count()
    report.lease_expired_events = ExecutionEvent.objects.filter(campaign=campaign, type="lease_expired").count()
    report.logs = "\n".join(w.text()[-1500:] for w in started_workers[-2:])
    report.calls_per_job = report.send_requests / max(1, -(-targets_n // BATCH))
    rate_limits.reset()
    return report
