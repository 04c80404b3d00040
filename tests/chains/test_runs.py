"""Chain runs (story 446): the seed's A→B→C example with simulated time, periods, audiences, completion."""

from __future__ import annotations

from datetime import timedelta

import pytest
import time_machine
from django.utils import timezone

from automation.models import Execution, WorkflowNode
from campaigns.chains.models import ChainNode
from campaigns.chains.run_models import CampaignRun, ConversionEvent, RunAudienceMember, RunExecution
from campaigns.chains.runs.choices import RunStatus, RunType, SkipReason
from campaigns.chains.runs.dispatch import run_dispatch
from campaigns.choices import CampaignStatus
from campaigns.models import Notification
from sms.choices import AttemptStatus
from sms.delivery import attempt_status_apply
from sms.models import SmsAttempt

from ..conftest import make_list, make_target
from .runs_helpers import Recorder, approved_chain, at, root_run, runs_of, settle, tick

pytestmark = pytest.mark.django_db


@pytest.fixture
def seed_chain(actor):
    with time_machine.travel(at(2026, 9, 20), tick=False):
        return approved_chain(actor)


def test_approval_creates_first_root_run_and_its_period_for_every_child(seed_chain):
    nodes, _ = seed_chain
    a10 = root_run(nodes["A"], at(2026, 10, 1))
    assert a10.period_key == a10.id and a10.status == RunStatus.SCHEDULED
    (b10,) = runs_of(nodes["B"])
    (c10,) = runs_of(nodes["C"])
    assert (b10.run_type, b10.period_key, b10.source_run_id) == (RunType.INHERITED, a10.id, a10.id)
    assert (c10.period_key, c10.source_run_id) == (a10.id, b10.id)
    # AFTER_INTERVAL: nothing planned while the source has not started.
    assert b10.planned_at is None and b10.scheduled_at is None


def test_seed_example_a_b_c_in_the_right_period(seed_chain):
    nodes, people = seed_chain
    A, B, C = nodes["A"], nodes["B"], nodes["C"]
    tick(at(2026, 9, 30))
    assert runs_of(A)[0].status == RunStatus.SCHEDULED  # not due yet

    tick(at(2026, 10, 1, 9, 0))
    a10 = root_run(A, at(2026, 10, 1))
    assert a10.status == RunStatus.DISPATCHED
    assert a10.started_at == at(2026, 10, 1)
    assert a10.expected_execution_count == 4 == Execution.objects.filter(campaign=A).count()
    A.refresh_from_db()
    assert A.status == CampaignStatus.ACTIVE  # IN_PROGRESS from the first run start
    b10 = runs_of(B)[0]
    tick(at(2026, 10, 1, 9, 5))
    b10.refresh_from_db()
    # B: planned once, 2 days after A-10 *started*; deadline 48 h later.
    assert b10.planned_at == at(2026, 10, 3) == b10.scheduled_at
    assert b10.wait_deadline_at == at(2026, 10, 5)

    settle(a10, {people[0].id: "failed"})
    ConversionEvent.objects.create(
        workspace=A.workspace, target=people[1], name="target_status:converted", occurred_at=at(2026, 10, 2)
    )
    tick(at(2026, 10, 1, 10, 0))
    a10.refresh_from_db()
    assert a10.status == RunStatus.COMPLETED

    tick(at(2026, 10, 3, 9, 0))
    b10.refresh_from_db()
    assert b10.status == RunStatus.DISPATCHED
    # NOT_CONVERTED of A-10: successful send and no conversion (failed person and converter excluded).
    assert sorted(RunExecution.objects.filter(run=b10).values_list("target_id", flat=True)) == sorted(
        [people[2].id, people[3].id]
    )
    assert b10.selection_rule_snapshot["sourceRunId"] == a10.id
    assert b10.selection_rule_snapshot["inheritType"] == "NOT_CONVERTED"

    tick(at(2026, 10, 3, 9, 5))
    c10 = runs_of(C)[0]
    assert c10.planned_at == at(2026, 10, 4)  # 1 day after B-10 started
    settle(b10)
    tick(at(2026, 10, 4, 9, 0))
    c10.refresh_from_db()
    assert c10.status == RunStatus.DISPATCHED and c10.source_run_id == b10.id

    # Next period: A-11 on 1 Nov opens period A-11; B-11 reads A-11 only.
    settle(c10)
    tick(at(2026, 11, 1, 9, 0))
    a11 = root_run(A, at(2026, 11, 1))
    assert a11.period_key == a11.id and a11.status == RunStatus.DISPATCHED
    b11 = CampaignRun.objects.get(campaign=B, period_key=a11.id)
    assert b11.source_run_id == a11.id
    settle(a11)
    tick(at(2026, 11, 3, 9, 0))
    b11.refresh_from_db()
    assert b11.selection_rule_snapshot["sourceRunId"] == a11.id  # A-11 never reads A-10
    # One execution per target per run: B-11 has the four of A-11 (none converted in its window).
    assert RunExecution.objects.filter(run=b11).count() == 4


def test_audience_emptied_after_approval_skips_reviews_and_tells_the_owner_once(actor):
    with time_machine.travel(at(2026, 9, 20), tick=False):
        nodes, _ = approved_chain(actor, targets=2, created_by=actor.user)
    root = nodes["A"]
    assert not ChainNode.objects.get(pk=root.id).needs_review
    root.source_target_list.targets.clear()  # a late change: the list is emptied after approval
    tick(at(2026, 10, 1, 9, 0))
    a10 = root_run(root, at(2026, 10, 1))
    assert (a10.status, a10.skip_reason) == (RunStatus.SKIPPED, SkipReason.EMPTY_AUDIENCE)
    b10, c10 = runs_of(nodes["B"])[0], runs_of(nodes["C"])[0]
    assert (b10.status, b10.skip_reason) == (RunStatus.SKIPPED, SkipReason.SOURCE_SKIPPED)
    assert (c10.status, c10.skip_reason) == (RunStatus.SKIPPED, SkipReason.SOURCE_SKIPPED)
    assert Execution.objects.count() == 0
    fresh = ChainNode.objects.get(pk=root.id)
    assert fresh.needs_review and [r["code"] for r in fresh.needs_review_reasons] == ["AUDIENCE_EMPTY"]
    tick(at(2026, 10, 1, 9, 5))
    tick(at(2026, 10, 2, 9, 0))
    (notice,) = Notification.objects.filter(kind="chain_run_skipped")  # once, for the root run only
    assert notice.recipient_id == actor.user.id and SkipReason.EMPTY_AUDIENCE.label in notice.body
    assert notice.link == f"/chains/campaigns/{root.id}/runs/"


def test_root_run_freezes_only_the_filtered_part_of_its_list(actor):
    with time_machine.travel(at(2026, 9, 20), tick=False):
        lst = make_list(actor.workspace)
        tehran = [make_target(actor.workspace, city="تهران", priority=5) for _ in range(3)]
        low = make_target(actor.workspace, city="تهران", priority=1)
        other = make_target(actor.workspace, city="شیراز", priority=9)
        for person in [*tehran, low, other]:
            person.lists.add(lst)
        nodes, _ = approved_chain(
            actor, targets=0, source_target_list=lst, audience_filters={"city": "تهران", "priority_min": "3"}
        )
    tick(at(2026, 10, 1, 9, 0))
    a10 = root_run(nodes["A"], at(2026, 10, 1))
    frozen = set(RunAudienceMember.objects.filter(snapshot=a10.target_snapshot).values_list("target_id", flat=True))
    assert frozen == {p.id for p in tehran} and a10.audience_count == 3
    assert a10.selection_rule_snapshot["targetFilters"] == {"city": "تهران", "priority_min": "3"}


def test_empty_child_audience_is_skipped_empty_audience(seed_chain):
    nodes, people = seed_chain
    tick(at(2026, 10, 1, 9, 0))
    a10 = root_run(nodes["A"], at(2026, 10, 1))
    settle(a10, {p.id: "failed" for p in people})  # nobody received it: no NOT_CONVERTED
    tick(at(2026, 10, 3, 9, 0))
    b10 = runs_of(nodes["B"])[0]
    assert (b10.status, b10.skip_reason) == (RunStatus.SKIPPED, SkipReason.EMPTY_AUDIENCE)
    assert b10.target_snapshot is not None and b10.audience_count == 0


def test_replayed_dispatch_creates_no_duplicate_execution(seed_chain):
    nodes, _ = seed_chain
    recorder = Recorder()
    tick(at(2026, 10, 1, 9, 0), send=recorder)  # build handed over, never ran
    _kind, run_id, build_id = recorder.sent[0]
    from campaigns.chains.runs.build import run_audience_build

    with time_machine.travel(at(2026, 10, 1, 9, 1), tick=False):
        run_audience_build(run_id=run_id, build_id=build_id, send=Recorder())
        run = CampaignRun.objects.get(pk=run_id)
        assert run.status == RunStatus.READY_TO_DISPATCH
        assert run_dispatch(run_id=run_id) == "dispatched"
    # The same trigger delivered again, and a worker replaying the claim after its lease expired.
    with time_machine.travel(at(2026, 10, 1, 9, 2), tick=False):
        assert run_dispatch(run_id=run_id) == "not_claimed"
        CampaignRun.objects.filter(pk=run_id).update(status=RunStatus.DISPATCHING, lease_expires_at=timezone.now())
        run_dispatch(run_id=run_id)
    assert Execution.objects.filter(campaign=nodes["A"]).count() == 4
    assert RunExecution.objects.filter(run_id=run_id).count() == 4


def test_lost_dispatch_trigger_is_emitted_again_by_the_scheduler(seed_chain):
    _nodes, _ = seed_chain
    recorder = Recorder()
    tick(at(2026, 10, 1, 9, 0), send=recorder)
    _, run_id, build_id = recorder.sent[0]
    from campaigns.chains.runs.build import run_audience_build

    with time_machine.travel(at(2026, 10, 1, 9, 1), tick=False):
        run_audience_build(run_id=run_id, build_id=build_id, send=Recorder())  # dispatch trigger lost
    again = Recorder()
    tick(at(2026, 10, 1, 9, 30), send=again)
    assert ("dispatch", run_id) in again.sent


def test_build_that_lost_its_lease_is_never_published(seed_chain):
    _nodes, _ = seed_chain
    first = Recorder()
    tick(at(2026, 10, 1, 9, 0), send=first)
    _, run_id, old_build = first.sent[0]
    second = Recorder()
    tick(at(2026, 10, 1, 9, 30), send=second)  # lease expired: reclaim with a new attempt
    _, _, new_build = second.sent[0]
    assert new_build != old_build
    from campaigns.chains.runs.build import run_audience_build

    with time_machine.travel(at(2026, 10, 1, 9, 31), tick=False):
        assert run_audience_build(run_id=run_id, build_id=old_build, send=Recorder()) in ("gone", "lease_lost")
        assert run_audience_build(run_id=run_id, build_id=new_build, send=Recorder()) == "frozen"
    run = CampaignRun.objects.get(pk=run_id)
    assert str(run.target_snapshot.build_id) == new_build and run.target_snapshot.attempt_no == 2


def test_waiting_source_over_48_hours_is_skipped_source_timeout(seed_chain, actor):
    nodes, _ = seed_chain
    nodes["B"].created_by = actor.user
    nodes["B"].save(update_fields=["created_by"])
    tick(at(2026, 10, 1, 9, 0))  # A-10 dispatched, never settles
    tick(at(2026, 10, 3, 9, 0))
    b10 = runs_of(nodes["B"])[0]
    assert (b10.status, b10.wait_reason) == (RunStatus.WAITING_SOURCE, "SOURCE_PROCESSING")
    assert b10.postponement_notified_at is not None
    postponed = Notification.objects.filter(kind="chain_run_postponed")
    assert [n.link for n in postponed] == [f"/chains/campaigns/{nodes['B'].id}/runs/"]  # once, to the creator
    tick(at(2026, 10, 5, 9, 0))
    b10.refresh_from_db()
    assert (b10.status, b10.skip_reason) == (RunStatus.SKIPPED, SkipReason.SOURCE_TIMEOUT)
    c10 = runs_of(nodes["C"])[0]
    assert (c10.status, c10.skip_reason) == (RunStatus.SKIPPED, SkipReason.SOURCE_SKIPPED)


@pytest.mark.parametrize("gone_how", ["deactivated", "left the workspace", "deleted", "still here"])
def test_the_postponement_notice_goes_to_the_owners_when_the_creator_is_gone(seed_chain, actor, workspace, gone_how):
    from django.contrib.auth import get_user_model

    from campaigns.choices import Role
    from campaigns.models import Membership

    nodes, _ = seed_chain
    creator = get_user_model().objects.create_user(username="the-creator", password="x")
    Membership.objects.create(workspace=workspace, user=creator, role=Role.MANAGER)
    nodes["B"].created_by = creator
    nodes["B"].save(update_fields=["created_by"])
    if gone_how == "deactivated":
        get_user_model().objects.filter(pk=creator.pk).update(is_active=False)
    elif gone_how == "left the workspace":
        Membership.objects.filter(workspace=workspace, user=creator).delete()
    elif gone_how == "deleted":
        creator.delete()  # the campaign keeps no creator
    former_owner = get_user_model().objects.create_user(username="former-owner", password="x", is_active=False)
    Membership.objects.create(workspace=workspace, user=former_owner, role=Role.OWNER)  # deactivated: told nothing
    tick(at(2026, 10, 1, 9, 0))  # A-10 dispatched, never settles
    tick(at(2026, 10, 3, 9, 0))  # B-10 waits for its source: postponed
    postponed = Notification.objects.filter(kind="chain_run_postponed")
    expected = creator.pk if gone_how == "still here" else actor.user.id  # else the owner, never someone gone
    assert [n.recipient_id for n in postponed] == [expected]


def test_new_period_skips_old_unsent_child_runs(actor):
    long_wait = {
        "B": {"type": "NOT_CONVERTED", "schedule": {"type": "AFTER_INTERVAL", "offset_days": 20, "run_time": "09:00"}},
        "C": {"type": "NOT_CONVERTED", "schedule": {"type": "AFTER_INTERVAL", "offset_days": 1, "run_time": "09:00"}},
    }
    with time_machine.travel(at(2026, 9, 20), tick=False):
        nodes, _ = approved_chain(actor, child_schedules=long_wait)
    tick(at(2026, 10, 1, 9, 0))
    b10 = runs_of(nodes["B"])[0]
    # A-10 never completes; B-10 waits past its slot, then A-11 starts sending.
    tick(at(2026, 10, 21, 9, 0))
    tick(at(2026, 11, 1, 9, 0))
    b10.refresh_from_db()
    assert (b10.status, b10.skip_reason) == (RunStatus.SKIPPED, SkipReason.NEW_PERIOD)


def test_completion_waits_for_pending_and_never_fakes_completed(seed_chain):
    nodes, _people = seed_chain
    tick(at(2026, 10, 1, 9, 0))
    a10 = root_run(nodes["A"], at(2026, 10, 1))
    tick(at(2026, 10, 1, 9, 10))
    a10.refresh_from_db()
    assert a10.status == RunStatus.DISPATCHED  # executions still live
    tick(at(2026, 10, 5, 9, 10))
    a10.refresh_from_db()
    assert a10.status == RunStatus.DISPATCHED and a10.operational_error.startswith("COMPLETION_OVERDUE")


def test_mixed_success_and_failure_is_still_completed(seed_chain):
    nodes, people = seed_chain
    tick(at(2026, 10, 1, 9, 0))
    a10 = root_run(nodes["A"], at(2026, 10, 1))
    settle(a10, {people[0].id: "failed", people[1].id: "unknown"})
    tick(at(2026, 10, 1, 9, 10))
    a10.refresh_from_db()
    assert a10.status == RunStatus.COMPLETED and a10.completed_at is not None


def _failed_delivery_chain_sent(actor):
    """A → B where B takes A's failed deliveries; A's October run sent (its results not settled yet)."""
    shape = {
        "B": {"type": "FAILED_DELIVERY", "schedule": {"type": "AFTER_INTERVAL", "offset_days": 2, "run_time": "09:00"}},
    }
    with time_machine.travel(at(2026, 9, 20), tick=False):
        nodes, people = approved_chain(actor, shape="A>B", child_schedules=shape)
    tick(at(2026, 10, 1, 9, 0))
    return nodes, people, root_run(nodes["A"], at(2026, 10, 1))


def test_failed_delivery_child_takes_only_failed_recipients(actor):
    nodes, people, a10 = _failed_delivery_chain_sent(actor)
    settle(a10, {people[0].id: "failed", people[1].id: "rejected"})
    tick(at(2026, 10, 3, 9, 0))
    b10 = runs_of(nodes["B"])[0]
    targets = set(RunExecution.objects.filter(run=b10).values_list("target_id", flat=True))
    assert targets == {people[0].id, people[1].id}


def test_failed_delivery_child_takes_a_send_reported_undelivered_after_it_was_accepted(actor):
    """chains.md: FAILED_DELIVERY = final message result FAILED/BOUNCED — a delivery report that arrives after
    the step recorded the provider's acceptance decides, not the step's own result."""
    nodes, people, a10 = _failed_delivery_chain_sent(actor)
    settle(a10)  # every send accepted
    bounced = Execution.objects.get(pk=RunExecution.objects.get(run=a10, target=people[2]).execution_id)
    node = WorkflowNode.objects.get(version_id=bounced.version_id, type="action", subtype="send_sms")
    attempt = SmsAttempt.objects.create(
        workspace_id=bounced.workspace_id,
        execution=bounced,
        workflow_id=bounced.workflow_id,
        campaign_id=bounced.campaign_id,
        subject_type_id=bounced.subject_type_id,
        subject_id=bounced.subject_id,
        node=node,
        phone=people[2].mobile,
        message="سلام",
        idempotency_key=f"test:{bounced.id}",
        status=AttemptStatus.SUBMITTED,
        request_at=at(2026, 10, 1, 9, 0),
    )
    assert attempt_status_apply(
        attempt_id=attempt.id,
        workspace_id=bounced.workspace_id,
        status=AttemptStatus.FAILED,
        event="delivery_status",
        provider_status="undelivered",
        dedupe_key="webhook:undelivered",
    )
    tick(at(2026, 10, 3, 9, 0))
    b10 = runs_of(nodes["B"])[0]
    assert set(RunExecution.objects.filter(run=b10).values_list("target_id", flat=True)) == {people[2].id}


def test_frozen_child_audience_unchanged_by_later_conversions(seed_chain):
    nodes, people = seed_chain
    tick(at(2026, 10, 1, 9, 0))
    a10 = root_run(nodes["A"], at(2026, 10, 1))
    settle(a10)
    tick(at(2026, 10, 3, 9, 0))
    b10 = runs_of(nodes["B"])[0]
    before = list(b10.target_snapshot.members.values_list("target_id", flat=True))
    ConversionEvent.objects.create(
        workspace=a10.workspace, target=people[0], name="target_status:converted", occurred_at=at(2026, 10, 3, 10)
    )
    tick(at(2026, 10, 3, 11, 0))
    b10.refresh_from_db()
    assert list(b10.target_snapshot.members.values_list("target_id", flat=True)) == before


def test_finished_when_schedule_exhausted_and_no_open_run(actor):
    with time_machine.travel(at(2026, 9, 20), tick=False):
        nodes, _ = approved_chain(
            actor, shape="A>B", root_schedule={"type": "MONTHLY", "day": 1, "time": "09:00", "end_date": "2026-10-15"}
        )
    tick(at(2026, 10, 1, 9, 0))
    a10 = root_run(nodes["A"], at(2026, 10, 1))
    settle(a10)
    tick(at(2026, 10, 1, 9, 5))
    nodes["A"].refresh_from_db()
    assert nodes["A"].status == CampaignStatus.COMPLETED  # no occurrence left, no open run
    nodes["B"].refresh_from_db()
    assert nodes["B"].status == CampaignStatus.SCHEDULED  # B still has its turn in this period
    tick(at(2026, 10, 3, 9, 0))
    b10 = runs_of(nodes["B"])[0]
    settle(b10)
    tick(at(2026, 10, 3, 9, 5))
    nodes["B"].refresh_from_db()
    assert nodes["B"].status == CampaignStatus.COMPLETED


def test_occurrence_timing(seed_chain):
    nodes, _ = seed_chain
    assert root_run(nodes["A"], at(2026, 10, 1)).scheduled_at - at(2026, 10, 1) == timedelta(0)


def test_two_creators_of_the_same_child_run_get_one_run(seed_chain):
    from campaigns.chains.runs.scheduler import _create_child_run

    nodes, _ = seed_chain
    a10 = root_run(nodes["A"], at(2026, 10, 1))
    (b10,) = runs_of(nodes["B"])
    again, created = _create_child_run(nodes["B"], nodes["A"], a10, a10)
    assert (again.id, created) == (b10.id, False)  # the unique index won; the existing run is read


def test_crash_while_creating_children_is_repaired_with_only_the_missing_ones(seed_chain):
    from campaigns.chains.runs.scheduler import root_runs_reconcile

    nodes, _ = seed_chain
    (b10,) = runs_of(nodes["B"])
    CampaignRun.objects.filter(campaign=nodes["C"]).delete()  # the process died before C-10 was written
    with time_machine.travel(at(2026, 9, 21), tick=False):
        root_runs_reconcile(now=timezone.now())
    assert [r.id for r in runs_of(nodes["B"])] == [b10.id]
    (c10,) = runs_of(nodes["C"])
    assert c10.source_run_id == b10.id


def test_chain_pause_skips_runs_not_started_and_resume_never_reopens_them(seed_chain, actor):
    from campaigns.chains.services.approval import chain_control_set

    nodes, _ = seed_chain
    root = nodes["A"]
    with time_machine.travel(at(2026, 9, 25), tick=False):
        chain_control_set(actor=actor, campaign_id=root.id, action="pause", expected_chain_revision=root.chain_revision)
    a10 = root_run(root, at(2026, 10, 1))
    assert (a10.status, a10.skip_reason) == (RunStatus.SKIPPED, SkipReason.CHAIN_PAUSED)
    assert {r.status for r in runs_of(nodes["B"]) + runs_of(nodes["C"])} == {RunStatus.SKIPPED}
    root.refresh_from_db()
    with time_machine.travel(at(2026, 9, 26), tick=False):
        chain_control_set(
            actor=actor, campaign_id=root.id, action="resume", expected_chain_revision=root.chain_revision
        )
    a10.refresh_from_db()
    assert a10.status == RunStatus.SKIPPED
    tick(at(2026, 10, 1, 9, 0))
    # The next occurrence after the skipped one is scheduled; nothing sent for the paused turn.
    assert Execution.objects.filter(campaign=root).count() == 0
    assert root_run(root, at(2026, 11, 1)).status == RunStatus.SCHEDULED


def test_control_group_gets_no_execution_and_is_never_inherited(actor):
    with time_machine.travel(at(2026, 9, 20), tick=False):
        nodes, _people = approved_chain(
            actor, shape="A>B", targets=20, chain_action={"channel": "sms", "content": "سلام", "control_percent": 50}
        )
    tick(at(2026, 10, 1, 9, 0))
    a10 = root_run(nodes["A"], at(2026, 10, 1))
    assert 0 < a10.control_count < 20
    controls = set(a10.target_snapshot.members.filter(is_control=True).values_list("target_id", flat=True))
    executed = set(RunExecution.objects.filter(run=a10).values_list("target_id", flat=True))
    assert not controls & executed and a10.expected_execution_count == 20 - a10.control_count
    settle(a10)
    tick(at(2026, 10, 3, 9, 0))
    b10 = runs_of(nodes["B"])[0]
    assert not controls & set(b10.target_snapshot.members.values_list("target_id", flat=True))


def test_the_runs_page_refreshes_itself_only_while_a_run_moves_or_is_due_soon():
    from types import SimpleNamespace

    from campaigns.chains.views import _runs_moving

    now = timezone.now()

    def run(status, scheduled_at=None):
        return SimpleNamespace(status=status, scheduled_at=scheduled_at)

    assert _runs_moving([run(RunStatus.DISPATCHED)])
    assert _runs_moving([run(RunStatus.SCHEDULED, now + timedelta(minutes=5))])
    assert not _runs_moving([run(RunStatus.SCHEDULED, now + timedelta(days=20))])  # next month's run: no polling
    assert not _runs_moving([run(RunStatus.COMPLETED), run(RunStatus.SKIPPED), run(RunStatus.FAILED)])
