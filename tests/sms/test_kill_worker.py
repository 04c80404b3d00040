"""Repeatable real-process fault test: PostgreSQL + Redis + a real ``celery -A config worker`` killed
with SIGKILL right after the fake Kavenegar accepted a message, a few times, over 50 targets of a
one-SMS journey. Goal: 0 duplicates, 0 lost, every ``unknown`` settled (or held with its reason)."""

import os
import signal
import subprocess
import sys
import threading
import time
import uuid
from collections import Counter
from pathlib import Path

import pytest
from django.conf import settings
from kombu import Connection

from automation.choices import ExecutionStatus
from automation.engine.scheduler import tick
from automation.models import Execution, ExecutionEvent
from automation.services.enrollment import enroll_subjects
from sms.models import SmsAttempt
from tests.automation.helpers import end_node, journey, linear_graph, setup_sms, sms_node
from tests.conftest import make_target

from .fake_provider import FakeProvider

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

ROOT = Path(settings.BASE_DIR)
TARGETS = 50
KILL_AFTER_ACCEPTED = (4, 17, 31)  # the worker dies right after the provider accepted these messages
LEASE_SECONDS = 4


class Worker:
    """One engine worker process (solo pool: the process that calls the provider is the one killed)."""

    def __init__(self, tmp_path: Path, env: dict) -> None:
        self.log_path = tmp_path / f"worker-{uuid.uuid4().hex[:6]}.log"
        self.log = open(self.log_path, "w")  # closed by stop()
        command = [sys.executable, "-m", "celery", "-A", "config", "worker", "-Q", "engine", "--pool=solo"]
        command += ["-n", f"kill-{uuid.uuid4().hex[:8]}@%h", "--without-heartbeat", "--without-gossip"]
        command += ["--without-mingle", "-l", "INFO"]
        self.process = subprocess.Popen(
            command,
            cwd=ROOT,
            env=dict(os.environ, PYTHONPATH=str(ROOT), **env),
            stdout=self.log,
            stderr=subprocess.STDOUT,
        )

    def ready(self) -> bool:
        return " ready." in self.log_path.read_text()

    def alive(self) -> bool:
        return self.process.poll() is None

    def stop(self) -> None:
        if self.alive():
            self.process.terminate()
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.log.close()


def test_killed_engine_worker_loses_and_duplicates_no_sms(actor, workspace, tmp_path, settings):
    db = settings.DATABASES["default"]
    if db["ENGINE"] != "django.db.backends.postgresql" or not settings.CELERY_BROKER_URL.startswith("redis"):
        pytest.skip("needs PostgreSQL (DATABASE_URL) and Redis (CELERY_BROKER_URL)")
    fake = FakeProvider()
    settings.AUTOMATION_LEASE_SECONDS = LEASE_SECONDS  # the reaper runs in this process's ticks
    settings.AUTOMATION_DISPATCH_BATCH = 10
    with Connection(settings.CELERY_BROKER_URL, transport_options=settings.CELERY_BROKER_TRANSPORT_OPTIONS) as conn:
        conn.SimpleQueue("engine").clear()  # nothing left over from an earlier run
    env = {
        "DEBUG": "1",  # the test's development secrets (a DEBUG=0 worker refuses them)
        "DATABASE_URL": f"postgres://{db['USER']}@{db['HOST']}:{db['PORT']}/{db['NAME']}",
        "SMS_KAVENEGAR_URL": fake.url,
        "SMS_HTTP_TIMEOUT": "3",
        "SMS_UNKNOWN_SETTLE_SECONDS": "1",
        "AUTOMATION_LEASE_SECONDS": str(LEASE_SECONDS),
    }
    workers: list[Worker] = []
    kills: list[str] = []
    lock = threading.Lock()

    def kill_after_accept(local_id: str) -> None:
        with lock:
            if len(fake.messages) in KILL_AFTER_ACCEPTED and workers and workers[-1].alive():
                os.kill(workers[-1].process.pid, signal.SIGKILL)  # before the answer leaves the provider
                workers[-1].process.wait()
                kills.append(local_id)

    fake.on_accept = kill_after_accept
    setup_sms(workspace, "kavenegar", {"api_key": "K"})
    campaign = journey(actor, linear_graph(sms_node("a"), end_node()))
    targets = [make_target(workspace) for _ in range(TARGETS)]
    enroll_subjects(actor=actor, campaign_id=campaign.id, target_ids=[t.id for t in targets])
    executions = Execution.objects.filter(campaign=campaign)
    try:
        deadline = time.monotonic() + 80
        while time.monotonic() < deadline:
            with lock:
                if not workers or not workers[-1].alive():
                    workers.append(Worker(tmp_path, env))
            while not workers[-1].ready() and workers[-1].alive() and time.monotonic() < deadline:
                time.sleep(0.2)
            tick()  # real time: reap, claim, dispatch to the engine queue
            live = executions.exclude(status=ExecutionStatus.COMPLETED).count()
            unsettled = SmsAttempt.objects.filter(campaign=campaign).exclude(status="submitted").count()
            if not live and not unsettled:
                break
            time.sleep(0.5)
    finally:
        for worker in workers:
            worker.stop()
        fake.close()
    logs = "\n".join(w.log_path.read_text()[-1500:] for w in workers[-2:])
    assert len(kills) == len(KILL_AFTER_ACCEPTED), logs
    receptors = Counter(m["receptor"] for m in fake.messages.values())
    assert len(receptors) == TARGETS, f"lost: {TARGETS - len(receptors)}\n{logs}"  # 0 lost
    assert set(receptors.values()) == {1}  # 0 duplicates: one message per number
    resent_after_accept = Counter(r["form"]["localid"] for r in fake.sends())
    assert max(resent_after_accept.values()) == 1  # no local id was ever sent twice
    assert set(executions.values_list("status", flat=True)) == {ExecutionStatus.COMPLETED}, logs
    statuses = Counter(SmsAttempt.objects.filter(campaign=campaign).values_list("status", flat=True))
    assert statuses == {"submitted": TARGETS}, statuses  # every unknown was settled by the status query
    assert len(fake.queries()) >= len(KILL_AFTER_ACCEPTED)  # the killed calls were asked about, not resent
    assert ExecutionEvent.objects.filter(campaign=campaign, type="lease_expired").exists()
