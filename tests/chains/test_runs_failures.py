"""Chain runs that cannot go as planned: a dispatch that keeps failing, a late approval; what the run log says."""

from __future__ import annotations

import logging
from datetime import timedelta

import pytest
import time_machine

from automation.models import Execution
from campaigns.chains.run_models import ConversionEvent, RunExecution
from campaigns.chains.runs import dispatch
from campaigns.chains.runs.choices import RunStatus, SkipReason
from campaigns.chains.runs.lift import campaign_lift, run_lift
from campaigns.choices import CampaignStatus
from campaigns.models import Notification

from .runs_helpers import Inline, approved_chain, at, root_run, runs_of, settle, tick

pytestmark = pytest.mark.django_db

ONE_PERIOD = {"type": "MONTHLY", "day": 1, "time": "09:00", "end_date": "2026-10-15"}


class CrashingWorker(Inline):
    """A worker whose dispatch task dies with the engine's error (the task is not retried by itself)."""

    def __call__(self, kind: str, *args) -> None:
        try:
            super().__call__(kind, *args)
        except ConnectionError:
            pass


class EngineDownAfterFirstChunk:
    """The real engine for the first chunk of people, then unreachable."""

    def __init__(self, real):
        self.real, self.calls = real, 0

    def enroll(self, **kwargs):
        self.calls += 1
        if self.calls > 1:
            raise ConnectionError("engine unreachable")
        return self.real.enroll(**kwargs)

    def __getattr__(self, name):
        return getattr(self.real, name)


def test_dispatch_that_keeps_failing_ends_failed_keeping_what_was_sent(actor, monkeypatch, settings):
    settings.CHAIN_RUN_DISPATCH_MAX_ATTEMPTS = 3
    with time_machine.travel(at(2026, 9, 20), tick=False):
        nodes, _ = approved_chain(actor, shape="A>B", targets=4, root_schedule=ONE_PERIOD)
    A, B = nodes["A"], nodes["B"]
    monkeypatch.setattr(dispatch, "CHUNK", 2)
    engine = EngineDownAfterFirstChunk(dispatch.run_engine())
    monkeypatch.setattr(dispatch, "run_engine", lambda: engine)
    worker = CrashingWorker()

    tick(at(2026, 10, 1, 9, 0), send=worker)
    a10 = root_run(A, at(2026, 10, 1))
    assert a10.status == RunStatus.DISPATCHING and a10.dispatch_attempts == 1
    # Each tick after the lease passed hands the dispatch out again, until the attempts run out.
    for n in range(1, 6):
        tick(at(2026, 10, 1, 9, 0) + timedelta(minutes=11 * n), send=worker)
    a10.refresh_from_db()
    assert a10.status == RunStatus.FAILED
    assert a10.dispatch_attempts == 3
    assert a10.failure_reason == "DISPATCH_FAILED: 3 attempts, 2 of 4 sent"  # no control share here
    # What was sent stays sent and is what the run expects.
    assert a10.expected_execution_count == 2 == Execution.objects.filter(campaign=A).count()
    (b10,) = runs_of(B)
    assert (b10.status, b10.skip_reason) == (RunStatus.SKIPPED, SkipReason.SOURCE_SKIPPED)
    # No open run and no turn left: the chain finishes instead of staying IN_PROGRESS.
    A.refresh_from_db()
    B.refresh_from_db()
    assert (A.status, B.status) == (CampaignStatus.COMPLETED, CampaignStatus.COMPLETED)
    # Later ticks hand nothing out any more.
    again = CrashingWorker()
    tick(at(2026, 10, 2, 9, 0), send=again)
    assert again.sent == []


def _fail_after_first_chunk(actor, monkeypatch, settings, **chain_kwargs):
    """A one-period A>B chain whose first run sends its first chunk (2 people), then fails for good."""
    settings.CHAIN_RUN_DISPATCH_MAX_ATTEMPTS = 2
    with time_machine.travel(at(2026, 9, 20), tick=False):
        nodes, _ = approved_chain(actor, shape="A>B", root_schedule=ONE_PERIOD, **chain_kwargs)
    monkeypatch.setattr(dispatch, "CHUNK", 2)
    engine = EngineDownAfterFirstChunk(dispatch.run_engine())
    monkeypatch.setattr(dispatch, "run_engine", lambda: engine)
    worker = CrashingWorker()
    for n in range(4):
        tick(at(2026, 10, 1, 9, 0) + timedelta(minutes=11 * n), send=worker)
    run = root_run(nodes["A"], at(2026, 10, 1))
    assert run.status == RunStatus.FAILED
    return nodes, run


def test_a_failed_run_notifies_the_campaign_owner_once(actor, monkeypatch, settings):
    nodes, _ = _fail_after_first_chunk(actor, monkeypatch, settings, targets=4)
    tick(at(2026, 10, 2, 9, 0))
    tick(at(2026, 10, 3, 9, 0))
    (told,) = Notification.objects.filter(kind="chain_run_failed")
    assert told.recipient_id == actor.user.id
    assert told.title == f"اجرای کمپین «{nodes['A'].name}» ناموفق ماند"
    assert "۲ تلاش" in told.body and "۲ نفر از ۴ نفر" in told.body
    assert told.link == f"/chains/campaigns/{nodes['A'].id}/runs/"
    # the follow-up skipped with it is not told separately
    assert not Notification.objects.filter(kind="chain_run_skipped").exists()


def test_lift_of_a_failed_run_counts_only_the_members_that_were_sent(actor, monkeypatch, settings):
    nodes, a10 = _fail_after_first_chunk(actor, monkeypatch, settings, targets=6)
    sent = set(RunExecution.objects.filter(run=a10, execution_id__isnull=False).values_list("target_id", flat=True))
    members = set(a10.target_snapshot.members.values_list("target_id", flat=True))
    assert len(sent) == 2 and len(members) == 6
    # everyone converts: the 4 people the run never reached must not count as treated conversions
    for target_id in members:
        ConversionEvent.objects.create(
            workspace=actor.workspace, target_id=target_id, name="target_status:converted", occurred_at=a10.started_at
        )
    report = run_lift(a10)
    assert (report["treated"], report["treated_conversions"]) == (2, 2)
    assert campaign_lift(nodes["A"])["treated"] == 2


def test_lift_leaves_out_a_member_the_channel_refused(actor):
    with time_machine.travel(at(2026, 9, 20), tick=False):
        nodes, _ = approved_chain(actor, shape="A>B", targets=3)
    people = list(nodes["A"].source_target_list.targets.order_by("id"))
    people[0].__class__.objects.filter(pk=people[0].pk).update(mobile="")  # nothing to send to
    tick(at(2026, 10, 1, 9, 0))
    a10 = root_run(nodes["A"], at(2026, 10, 1))
    assert RunExecution.objects.filter(run=a10).exclude(refused_reason="").count() == 1
    assert run_lift(a10)["treated"] == 2


def test_late_approval_records_the_missed_period_as_skipped(actor):
    with time_machine.travel(at(2026, 9, 28), tick=False):
        nodes, _ = approved_chain(actor, shape="A>B", approve_at=at(2026, 10, 3))
    A, B = nodes["A"], nodes["B"]
    missed, first = runs_of(A)
    assert missed.planned_at == at(2026, 10, 1)
    assert (missed.status, missed.skip_reason) == (RunStatus.SKIPPED, SkipReason.APPROVED_LATE)
    assert missed.get_skip_reason_display() == "تأیید پس از زمان اجرا"
    assert missed.period_key == missed.id and missed.started_at is None
    assert (first.planned_at, first.status) == (at(2026, 11, 1), RunStatus.SCHEDULED)
    # Only the period that can still run gets its follow-up run; nothing is sent for the missed one.
    (b11,) = runs_of(B)
    assert b11.period_key == first.id
    tick(at(2026, 10, 3, 9, 5))
    assert len(runs_of(A)) == 2 and Execution.objects.filter(campaign=A).count() == 0


def test_approval_before_any_occurrence_records_no_missed_period(actor):
    with time_machine.travel(at(2026, 9, 20), tick=False):
        nodes, _ = approved_chain(actor, shape="A>B", approve_at=at(2026, 9, 25))
    (first,) = runs_of(nodes["A"])
    assert (first.planned_at, first.status) == (at(2026, 10, 1), RunStatus.SCHEDULED)


def test_run_log_lines_carry_attempt_people_and_duration(actor, caplog):
    with time_machine.travel(at(2026, 9, 20), tick=False):
        nodes, _ = approved_chain(actor, shape="A>B", targets=3)
    with caplog.at_level(logging.INFO, logger="campaigns.chains.runs"):
        tick(at(2026, 10, 1, 9, 0))
        settle(root_run(nodes["A"], at(2026, 10, 1)))
        tick(at(2026, 10, 1, 9, 5))
    lines = {r.getMessage(): r for r in caplog.records if r.name == "campaigns.chains.runs"}
    for event in ("run claim", "run dispatched", "run completed"):
        record = lines[event]
        assert (record.attempt, record.people) == (1, 3), event
    for event in ("audience frozen", "run dispatched", "run completed"):
        assert isinstance(lines[event].duration_ms, int) and lines[event].duration_ms >= 0, event
    assert lines["run completed"].duration_ms == 5 * 60 * 1000  # from the start of sending to completion
