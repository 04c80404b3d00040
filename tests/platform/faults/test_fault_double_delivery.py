"""The same job delivered twice (a broker redelivery, a publish retried after a lost reply): applied once.

Engine: the ``automation.process_executions`` message of a claimed batch runs twice — one after the other,
and at the same time on two database connections — with the same execution ids and lock tokens: each
execution sends one SMS and ends once; the second run is ``stale``. Browser: the worker's
``workers.apply_result`` message for one lease arrives twice (again in turn and at once): the task
completes once and the campaign counts it once.
"""

import threading
from collections import Counter

import pytest
from django.db import connection
from django.test import TestCase

from automation.choices import ExecutionStatus
from automation.engine.scheduler import tick
from automation.models import Execution, ExecutionEvent
from automation.tasks import process_executions
from sms.models import SmsAttempt
from tests.automation.helpers import CountingConsole, end_node, enroll, journey, linear_graph, setup_sms, sms_node
from tests.conftest import make_target
from tests.workers.conftest import make_account, make_browser_campaign
from workers.choices import TaskStatus
from workers.models import BrowserTask, CampaignStatistics
from workers.services import creation
from workers.services.dispatch import dispatch_due_tasks
from workers.services.results import result_apply

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(connection.vendor != "postgresql", reason="row locks and advisory locks need PostgreSQL"),
]


@pytest.fixture
def published():
    """Browser payloads the dispatcher publishes (after commit), kept here instead of the broker."""
    from workers import dispatch

    sent: list[dict] = []
    dispatch.set_publisher(sent.extend)
    yield sent
    dispatch.set_publisher(None)


def in_threads(*calls):
    """Run the calls at the same moment, each on its own thread (its own database connection)."""
    results: list = [None] * len(calls)
    barrier = threading.Barrier(len(calls))

    def run(index, call):
        try:
            barrier.wait(timeout=10)
            results[index] = call()
        except Exception as exc:  # reported to the test, not swallowed
            results[index] = exc
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(i, c)) for i, c in enumerate(calls)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    return results


def claimed_batch(actor, workspace, n: int) -> tuple[object, list[list]]:
    setup_sms(workspace)
    campaign = journey(actor, linear_graph(sms_node("a"), end_node()))
    enroll(actor, campaign, [make_target(workspace) for _ in range(n)])
    items: list = []
    with TestCase.captureOnCommitCallbacks(execute=True):
        tick(send=lambda chunk: items.extend(list(item) for item in chunk))
    assert len(items) == n
    return campaign, items


def test_engine_job_delivered_twice_sends_once(actor, workspace, monkeypatch):
    console = CountingConsole(monkeypatch)
    campaign, items = claimed_batch(actor, workspace, 12)
    in_turn, at_once = items[:6], items[6:]
    job = lambda batch: process_executions.apply(args=[batch]).get()  # noqa: E731
    runs = [job(in_turn), job(in_turn), *in_threads(lambda: job(at_once), lambda: job(at_once))]
    assert not [r for r in runs if isinstance(r, Exception)], runs
    assert runs[1] == {"stale": 6}, runs  # the redelivered message found no row queued with its token
    assert sorted(runs[2:], key=lambda r: r.get("stale", 0))[1] == {"stale": 6}, runs
    assert len(console.calls) == 12 and len(set(console.calls)) == 12  # one provider call per execution
    attempts = Counter(SmsAttempt.objects.filter(campaign=campaign).values_list("execution_id", flat=True))
    assert len(attempts) == 12 and set(attempts.values()) == {1}
    executions = Execution.objects.filter(campaign=campaign)
    assert set(executions.values_list("status", flat=True)) == {ExecutionStatus.COMPLETED}
    assert ExecutionEvent.objects.filter(campaign=campaign, type="completed").count() == 12  # one end each


def test_browser_result_delivered_twice_is_applied_once(actor, workspace, settings, published):
    settings.BROWSER_ALLOWED_PRIVATE_HOSTS = ["127.0.0.1:9"]
    accounts = [make_account(workspace) for _ in range(2)]
    campaign = make_browser_campaign(actor, accounts=accounts, links=["http://127.0.0.1:9/post/twice"])
    creation.due_platforms_create_tasks()
    assert dispatch_due_tasks() == 2  # autocommit: the payloads are "published" at once
    messages = [
        {
            "task_id": p["task_id"],
            "attempt": p["attempt"],
            "lease_id": p["lease_id"],
            "status": "completed",
            "result_data": {"url": p["link"]},
            "finished_at": "2026-11-30T12:00:00+00:00",
        }
        for p in published
    ]
    in_turn, at_once = messages
    outcomes = [result_apply(message=dict(in_turn)), result_apply(message=dict(in_turn))]
    apply = lambda: result_apply(message=dict(at_once))  # noqa: E731
    outcomes += in_threads(apply, apply)
    assert sorted(outcomes) == ["completed", "completed", "ignored", "ignored"], outcomes
    tasks = BrowserTask.objects.filter(campaign=campaign)
    assert set(tasks.values_list("status", flat=True)) == {TaskStatus.COMPLETED}
    stats = CampaignStatistics.objects.get(campaign=campaign)
    assert (stats.completed, stats.pending) == (2, 0)  # counted once, not twice
