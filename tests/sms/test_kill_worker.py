"""Repeatable real-process fault test: PostgreSQL + Redis + a real ``celery -A config worker`` SIGKILLed
while it sends (right after the fake Kavenegar accepted a batch, while a request is in flight, or just
after the answer), over a one-SMS journey; and the same with every job's batch split into several provider
calls by the account's rate limit, so each kill lands in the middle of a batch. Goal: 0 resends, 0 duplicates,
0 lost, every ``unknown`` settled. The scenario lives in ``tests/platform/faults/engine_kill.py``; CI runs a
handful of trials, ``make faults`` runs 200 (``FAULT_TRIALS``, ``FAULT_POOL``) and prints the counts."""

import json
import os

import pytest
from django.conf import settings

from tests.platform.faults import engine_kill

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

TRIALS = int(os.environ.get("FAULT_TRIALS", "4"))
POOLS = os.environ.get("FAULT_POOL", "solo").split(",")
WORKERS = int(os.environ.get("FAULT_WORKERS", "1"))


@pytest.mark.parametrize("split", [False, True], ids=["one-call-per-batch", "mid-batch"])
@pytest.mark.parametrize("pool", POOLS)
def test_killed_engine_worker_loses_and_duplicates_no_sms(actor, workspace, tmp_path, pool, split):
    db = settings.DATABASES["default"]
    if db["ENGINE"] != "django.db.backends.postgresql" or not settings.CELERY_BROKER_URL.startswith("redis"):
        pytest.skip("needs PostgreSQL (DATABASE_URL) and Redis (CELERY_BROKER_URL)")
    if split and not settings.REDIS_URL:
        pytest.skip("the split batches need the shared rate limit (REDIS_URL)")
    report = engine_kill.run(actor, workspace, tmp_path, trials=TRIALS, pool=pool, workers=WORKERS, split=split)
    print("\n" + report.line())
    if os.environ.get("FAULT_STATS"):
        with open(os.environ["FAULT_STATS"], "a") as out:
            out.write(json.dumps({"kind": "engine-kill", **report.as_dict()}) + "\n")
    assert report.trials == TRIALS, report.line() + "\n" + report.logs
    assert report.failures() == [], report.line() + "\n" + report.logs  # no resend, duplicate, loss, unsettled
    assert report.unknown_settled >= report.kills.get("accepted", 0)  # the killed sends were asked about
    assert report.lease_expired_events > 0  # the orphaned executions came back through the lease
    if split:
        assert report.calls_per_job >= 1.8  # the kills hit jobs of several calls
