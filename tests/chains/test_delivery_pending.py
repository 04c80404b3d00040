"""DELIVERY_DATA_PENDING: a FAILED_DELIVERY follow-up waits for its source run's delivery reports before it
freezes its audience, at most CHAIN_DELIVERY_REPORT_WINDOW_HOURS after the source run completed (time travel)."""

from __future__ import annotations

from datetime import timedelta

import pytest
import time_machine
from django.contrib.contenttypes.models import ContentType

from automation.models import Execution, WorkflowNode
from campaigns.chains.run_models import RunExecution
from campaigns.chains.runs.choices import RunStatus, WaitReason
from sms.choices import AttemptStatus
from sms.delivery import attempt_status_apply
from sms.models import SmsAttempt

from .runs_helpers import approved_chain, at, root_run, runs_of, settle, tick

pytestmark = pytest.mark.django_db

FAILED_DELIVERY_AFTER_2 = {
    "B": {"type": "FAILED_DELIVERY", "schedule": {"type": "AFTER_INTERVAL", "offset_days": 2, "run_time": "09:00"}},
}


def _accepted(execution: Execution, phone: str) -> SmsAttempt:
    """The provider accepted the send; its delivery report has not come yet."""
    node = WorkflowNode.objects.get(version_id=execution.version_id, type="action", subtype="send_sms")
    return SmsAttempt.objects.create(
        workspace_id=execution.workspace_id,
        execution=execution,
        workflow_id=execution.workflow_id,
        campaign_id=execution.campaign_id,
        subject_type=ContentType.objects.get_for_id(execution.subject_type_id),
        subject_id=execution.subject_id,
        node=node,
        phone=phone,
        message="سلام",
        idempotency_key=f"test:{execution.id}",
        status=AttemptStatus.SUBMITTED,
        request_at=at(2026, 10, 1, 9, 0),
    )


def _report(attempt: SmsAttempt, status: str) -> None:
    assert attempt_status_apply(
        attempt_id=attempt.id,
        workspace_id=attempt.workspace_id,
        status=status,
        event="delivery_status",
        provider_status="undelivered" if status == AttemptStatus.FAILED else "delivered",
        dedupe_key=f"webhook:{attempt.id}:{status}",
    )


def _source_sent_with_reports_pending(actor, child_schedules=FAILED_DELIVERY_AFTER_2):
    """A → B (B = A's failed deliveries, 2 days after A unless told). A's October run completed with three sends
    accepted and their delivery reports outstanding."""
    with time_machine.travel(at(2026, 9, 20), tick=False):
        nodes, people = approved_chain(actor, shape="A>B", targets=3, child_schedules=child_schedules)
    tick(at(2026, 10, 1, 9, 0))
    a10 = root_run(nodes["A"], at(2026, 10, 1))
    settle(a10)  # every step saw the provider accept its send
    attempts = {}
    for person in people:
        execution = Execution.objects.get(pk=RunExecution.objects.get(run=a10, target=person).execution_id)
        attempts[person.id] = _accepted(execution, person.mobile)
    tick(at(2026, 10, 1, 9, 10))
    a10.refresh_from_db()
    assert a10.status == RunStatus.COMPLETED  # sending processed; delivery data is not complete
    return nodes, people, a10, attempts


def test_a_failed_delivery_child_waits_until_its_source_reports_are_settled(actor, settings):
    settings.CHAIN_DELIVERY_REPORT_WINDOW_HOURS = 72  # B's time (2 days after A) is inside A's report window
    nodes, people, a10, attempts = _source_sent_with_reports_pending(actor)
    tick(at(2026, 10, 3, 9, 0))  # B's time: two reports still outstanding after one arrives
    _report(attempts[people[0].id], AttemptStatus.FAILED)
    tick(at(2026, 10, 3, 9, 1))
    (b10,) = runs_of(nodes["B"], period_key=a10.id)
    assert (b10.status, b10.wait_reason) == (RunStatus.WAITING_SOURCE, WaitReason.DELIVERY_DATA_PENDING)
    assert b10.target_snapshot_id is None  # nothing frozen while the reports are pending

    _report(attempts[people[1].id], AttemptStatus.DELIVERED)
    _report(attempts[people[2].id], AttemptStatus.FAILED)
    tick(at(2026, 10, 3, 9, 10))
    b10.refresh_from_db()
    assert b10.status not in (RunStatus.WAITING_SOURCE, RunStatus.SCHEDULED, RunStatus.SKIPPED)
    assert b10.target_snapshot.selection_rule_snapshot["deliveryReportsPending"] == 0
    frozen = set(b10.target_snapshot.members.values_list("target_id", flat=True))
    assert frozen == {people[0].id, people[2].id}  # the two reported undelivered, not the delivered one


def test_the_default_report_window_has_passed_by_a_follow_up_two_days_later(actor):
    nodes, people, a10, attempts = _source_sent_with_reports_pending(actor)
    _report(attempts[people[0].id], AttemptStatus.FAILED)
    tick(at(2026, 10, 3, 9, 0))  # 30 h after A completed the window ended: B freezes at its own time
    (b10,) = runs_of(nodes["B"], period_key=a10.id)
    assert b10.target_snapshot_id is not None
    assert set(b10.target_snapshot.members.values_list("target_id", flat=True)) == {people[0].id}


def test_when_the_report_window_ends_the_child_freezes_with_what_is_known(actor, settings):
    settings.CHAIN_DELIVERY_REPORT_WINDOW_HOURS = 60
    nodes, people, a10, attempts = _source_sent_with_reports_pending(actor)
    _report(attempts[people[0].id], AttemptStatus.FAILED)
    tick(at(2026, 10, 3, 9, 0))
    tick(at(2026, 10, 3, 21, 0))  # 59 h 50 min after A completed: still inside the window
    (b10,) = runs_of(nodes["B"], period_key=a10.id)
    assert (b10.status, b10.wait_reason) == (RunStatus.WAITING_SOURCE, WaitReason.DELIVERY_DATA_PENDING)
    assert b10.next_check_at <= a10.completed_at + timedelta(hours=60)

    tick(at(2026, 10, 3, 21, 15))  # the window ended: two reports never came
    b10.refresh_from_db()
    assert b10.status not in (RunStatus.WAITING_SOURCE, RunStatus.SKIPPED)
    rule = b10.target_snapshot.selection_rule_snapshot
    assert rule["deliveryReportsPending"] == 2 and rule["inheritType"] == "FAILED_DELIVERY"
    frozen = set(b10.target_snapshot.members.values_list("target_id", flat=True))
    assert frozen == {people[0].id}  # an unreported send counts as sent, never as failed


def test_a_not_converted_child_does_not_wait_for_delivery_reports(actor, settings):
    settings.CHAIN_DELIVERY_REPORT_WINDOW_HOURS = 72
    with time_machine.travel(at(2026, 9, 20), tick=False):
        nodes, people = approved_chain(actor, shape="A>B", targets=2)
    tick(at(2026, 10, 1, 9, 0))
    a10 = root_run(nodes["A"], at(2026, 10, 1))
    settle(a10)
    for person in people:
        link = RunExecution.objects.get(run=a10, target=person)
        _accepted(Execution.objects.get(pk=link.execution_id), person.mobile)
    tick(at(2026, 10, 3, 9, 0))
    (b10,) = runs_of(nodes["B"], period_key=a10.id)
    assert b10.wait_reason != WaitReason.DELIVERY_DATA_PENDING and b10.target_snapshot_id is not None


def test_a_follow_up_a_day_later_still_waits_for_reports_iranian_operators_send_up_to_30_hours_late(actor):
    # The default window is 30 h: a report 24–30 h late (operators keep them intermediate that long) still
    # reaches a FAILED_DELIVERY follow-up planned a day after its source.
    after_1 = {"B": {**FAILED_DELIVERY_AFTER_2["B"], "schedule": {**FAILED_DELIVERY_AFTER_2["B"]["schedule"]}}}
    after_1["B"]["schedule"]["offset_days"] = 1
    nodes, people, a10, attempts = _source_sent_with_reports_pending(actor, child_schedules=after_1)
    tick(at(2026, 10, 2, 9, 1))  # B's time
    tick(at(2026, 10, 2, 12, 0))  # 27 h after A completed: still inside the window
    (b10,) = runs_of(nodes["B"], period_key=a10.id)
    assert (b10.status, b10.wait_reason) == (RunStatus.WAITING_SOURCE, WaitReason.DELIVERY_DATA_PENDING)
    _report(attempts[people[0].id], AttemptStatus.FAILED)  # 28 h late
    tick(at(2026, 10, 2, 15, 20))  # past 30 h: frozen with what is known
    b10.refresh_from_db()
    assert b10.target_snapshot_id is not None
    assert set(b10.target_snapshot.members.values_list("target_id", flat=True)) == {people[0].id}
