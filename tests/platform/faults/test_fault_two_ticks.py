"""Two beats at once: two scheduler ticks on separate database connections, the second one running
entirely while the first is paused in the middle of a claim (its rows locked, its transaction open).

With the advisory lock (production) the second tick is skipped. With the lock taken away, the claims
alone must still keep them apart (``FOR UPDATE SKIP LOCKED`` inside the one claim statement). Either
way every execution is dispatched once and sends one SMS.
"""

import threading
from collections import Counter

import pytest
from django.db import connection
from django.test import TestCase

from automation.engine import scheduler
from automation.engine.batch import process_batch
from automation.models import Execution, ExecutionEvent
from sms.models import SmsAttempt
from tests.automation.helpers import CountingConsole, end_node, enroll, journey, linear_graph, setup_sms, sms_node
from tests.conftest import make_target

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(connection.vendor != "postgresql", reason="row locks and advisory locks need PostgreSQL"),
]


def two_ticks_overlapping(monkeypatch) -> tuple[object, object, list, list]:
    """Tick A pauses inside its first claim transaction until tick B has run from start to end."""
    a_inside, b_done = threading.Event(), threading.Event()
    original = scheduler._claim_returning

    def claim_returning(*args, **kwargs):
        rows = original(*args, **kwargs)  # the rows are locked and queued; the transaction is still open
        if rows and threading.current_thread().name == "tick-a" and not a_inside.is_set():
            a_inside.set()
            assert b_done.wait(30), "tick B never finished"
        return rows

    monkeypatch.setattr(scheduler, "_claim_returning", claim_returning)
    sent = {"tick-a": [], "tick-b": []}
    reports = {}

    def run(name):
        try:
            if name == "tick-b":
                assert a_inside.wait(30), "tick A never claimed"
            with TestCase.captureOnCommitCallbacks(execute=True):
                reports[name] = scheduler.tick(send=lambda chunk: sent[name].extend(list(i) for i in chunk))
        finally:
            if name == "tick-b":
                b_done.set()
            connection.close()

    threads = [threading.Thread(target=run, args=(n,), name=n) for n in ("tick-a", "tick-b")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    return reports["tick-a"], reports["tick-b"], sent["tick-a"], sent["tick-b"]


def journeys(actor, workspace, campaigns: int, per_campaign: int) -> list:
    made = []
    for _ in range(campaigns):
        campaign = journey(actor, linear_graph(sms_node("a"), end_node()))
        enroll(actor, campaign, [make_target(workspace) for _ in range(per_campaign)])
        made.append(campaign)
    return made


def assert_each_sent_once(console, campaigns, dispatched: list, n: int) -> None:
    assert len(dispatched) == n and len({i for i, _ in dispatched}) == n  # every execution dispatched once
    process_batch([tuple(i) for i in dispatched])
    assert len(console.calls) == n and len(set(console.calls)) == n
    per_execution = Counter(SmsAttempt.objects.filter(campaign__in=campaigns).values_list("execution_id", flat=True))
    assert len(per_execution) == n and set(per_execution.values()) == {1}
    claims = Counter(  # a claim is recorded on the step's outcome row (data.claimed_at)
        ExecutionEvent.objects.filter(campaign__in=campaigns, data__has_key="claimed_at").values_list(
            "execution_id", flat=True
        )
    )
    assert set(claims.values()) == {1}  # no execution claimed twice


def test_two_ticks_at_once_claim_and_send_each_execution_once(actor, workspace, monkeypatch):
    setup_sms(workspace)
    console = CountingConsole(monkeypatch)

    # 1. production: the advisory lock makes the second tick step aside
    first = journeys(actor, workspace, 2, 15)
    a, b, sent_a, sent_b = two_ticks_overlapping(monkeypatch)
    assert b.skipped and not sent_b, b
    assert a.claimed == 30
    assert_each_sent_once(console, first, sent_a, 30)

    # 2. without the lock: the claims themselves keep two overlapping ticks apart
    console.calls.clear()
    second = journeys(actor, workspace, 2, 15)
    monkeypatch.setattr(scheduler._TickLock, "__enter__", lambda self: True)
    a, b, sent_a, sent_b = two_ticks_overlapping(monkeypatch)
    assert not a.skipped and not b.skipped
    assert sent_a and sent_b  # both ticks claimed: B took what A had not locked
    assert a.claimed + b.claimed == 30
    assert_each_sent_once(console, second, sent_a + sent_b, 30)
    assert not Execution.objects.filter(campaign__in=second).exclude(status="completed").exists()
