"""Concurrency: real PostgreSQL transactions in threads (journeys.md "Tests")."""

import threading
from collections import Counter
from datetime import timedelta

import pytest
import time_machine
from django.db import connection, connections

from automation.choices import ExecutionStatus
from automation.engine.batch import process_batch
from automation.engine.scheduler import schedule_campaign, tick
from automation.models import Execution
from campaigns.models import Campaign
from sms.models import SmsAttempt
from tests.conftest import make_target

from .helpers import (
    T0,
    CountingConsole,
    end_node,
    enroll,
    journey,
    linear_graph,
    setup_sms,
    sms_node,
)

pytestmark = pytest.mark.skipif(
    connection.vendor != "postgresql", reason="concurrent transactions, row locks and SKIP LOCKED need PostgreSQL"
)


def _in_thread(fn, results, barrier):
    try:
        barrier.wait()
        results.append(fn())
    finally:
        connections.close_all()


@pytest.mark.django_db(transaction=True)
def test_two_ticks_at_once_claim_each_execution_once(actor, workspace):
    setup_sms(workspace)
    with time_machine.travel(T0, tick=False):
        campaign = journey(actor, linear_graph(sms_node("a"), end_node()))
        enroll(actor, campaign, [make_target(workspace) for _ in range(300)])
    now = T0 + timedelta(minutes=1)
    results: list = []
    barrier = threading.Barrier(2)
    fresh = Campaign.objects.select_related("workspace", "journey__workflow_version").get(pk=campaign.pk)

    def claim():
        return schedule_campaign(fresh, now, limit=200)[0]

    threads = [threading.Thread(target=_in_thread, args=(claim, results, barrier)) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    ids = [item[0] for batch in results for item in batch]
    assert len(ids) == len(set(ids)) == 300
    # Each row moved to queued exactly once: one claim = one revision step, with one of the two tokens.
    rows = list(Execution.objects.filter(campaign=campaign).values_list("status", "revision", "lock_token"))
    assert {(status, revision) for status, revision, _ in rows} == {(ExecutionStatus.QUEUED, 2)}
    assert {str(token) for _, _, token in rows} == {token for batch in results for _, token in batch}
    # Two whole ticks at once: the advisory lock lets one run; nothing is claimed twice.
    results.clear()
    barrier = threading.Barrier(2)
    threads = [
        threading.Thread(target=_in_thread, args=(lambda: tick(now=now, send=lambda c: None), results, barrier))
        for _ in range(2)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(results) == 2


@pytest.mark.django_db(transaction=True)
def test_duplicate_jobs_running_concurrently_send_once(actor, workspace, monkeypatch):
    setup_sms(workspace)
    provider = CountingConsole(monkeypatch)
    with time_machine.travel(T0, tick=False):
        campaign = journey(actor, linear_graph(sms_node("a"), end_node()))
        enroll(actor, campaign, [make_target(workspace) for _ in range(20)])
    now = T0 + timedelta(minutes=1)
    batch: list = []
    tick(now=now, send=batch.extend)
    results: list = []
    barrier = threading.Barrier(2)
    threads = [
        threading.Thread(target=_in_thread, args=(lambda: process_batch(batch, now=now), results, barrier))
        for _ in range(2)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(provider.calls) == 20
    assert SmsAttempt.objects.filter(campaign=campaign).count() == 20
    totals = Counter()
    for r in results:
        totals.update(r)
    assert totals == {"complete": 20, "stale": 20}


@pytest.mark.django_db(transaction=True)
def test_daily_limit_race_never_exceeds(actor, workspace):
    from automation.engine.counters import reserve

    results: list = []
    barrier = threading.Barrier(4)
    day = T0.date()

    def grab():
        return sum(reserve(workspace.id, "campaign", 999, "sms", day, 25) for _ in range(20))

    threads = [threading.Thread(target=_in_thread, args=(grab, results, barrier)) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sum(results) == 25
