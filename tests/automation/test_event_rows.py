"""One event row per step outcome (journeys.md "Decisions"): the timeline stays complete without the engine's
own claimed/processing rows — the outcome row records the claim and the move to processing."""

from datetime import datetime, timedelta

import pytest
import time_machine

from automation.choices import ExecutionStatus
from automation.engine.batch import process_batch
from automation.engine.runner import process_execution
from automation.models import Execution, ExecutionEvent
from tests.conftest import make_target

from .helpers import T0, Driver, end_node, enroll, journey, linear_graph, setup_sms, sms_node, wait_node

S = ExecutionStatus


def _timeline(execution):
    return list(
        ExecutionEvent.objects.filter(execution=execution)
        .order_by("id")
        .values_list("type", "from_status", "to_status", "node__node_key", "data", "occurred_at")
    )


def _run_journey(actor, workspace, *, targets: int):
    setup_sms(workspace)
    with time_machine.travel(T0, tick=False):
        campaign = journey(actor, linear_graph(sms_node("a"), wait_node("w", 1, "hours"), sms_node("b"), end_node()))
        enroll(actor, campaign, [make_target(workspace) for _ in range(targets)])
    driver = Driver()
    claimed_at = T0 + timedelta(minutes=1)
    for now in (claimed_at, T0 + timedelta(hours=2), T0 + timedelta(hours=2, minutes=1)):
        driver.tick(now)
    return campaign, claimed_at


@pytest.mark.django_db
@pytest.mark.parametrize("targets", [1, 3], ids=["per-row job", "batched job"])
def test_each_step_outcome_is_one_row_that_records_claim_and_processing(actor, workspace, targets):
    campaign, claimed_at = _run_journey(actor, workspace, targets=targets)
    for execution in Execution.objects.filter(campaign=campaign):
        assert execution.status == S.COMPLETED
        rows = _timeline(execution)
        assert [(t, f, to, node) for t, f, to, node, _, _ in rows] == [
            ("enrolled", "", S.ACTIVE, "a"),
            ("action_attempt", "", "", "a"),
            ("node_entered", "", "", "w"),
            ("wait_started", S.PROCESSING, S.WAITING, "w"),  # the wait node's own event is the outcome row
            ("wait_finished", "", "", "w"),
            ("node_entered", S.PROCESSING, S.ACTIVE, "b"),  # back to the scheduler, which budgets sends
            ("action_attempt", "", "", "b"),
            ("completed", S.PROCESSING, S.COMPLETED, "end"),  # reaching the end step is its completion row
        ]
        outcomes = [(data, at) for _, f, _, _, data, at in rows if f == S.PROCESSING]
        # When the scheduler claimed it (data) and when processing started (occurred_at) — each job's own.
        claims = [datetime.fromisoformat(data["claimed_at"]) for data, _ in outcomes]
        assert claims[0] == claimed_at and all(c <= at for c, (_, at) in zip(claims, outcomes, strict=True))
        assert outcomes[0][0]["until"]  # the merged wait_started row keeps the wait's own data
        assert not [t for t, *_ in rows if t in ("claimed", "processing")]


@pytest.mark.django_db
def test_a_claim_whose_job_never_ran_shows_in_the_lease_expired_row(actor, workspace, settings):
    setup_sms(workspace)
    with time_machine.travel(T0, tick=False):
        campaign = journey(actor, linear_graph(sms_node("a"), end_node()))
        enroll(actor, campaign, [make_target(workspace)])
    driver = Driver()
    driver.tick(T0 + timedelta(minutes=1), process=False)  # claimed; the job is lost
    driver.tick(T0 + timedelta(seconds=settings.AUTOMATION_LEASE_SECONDS + 120), process=False)
    execution = Execution.objects.get(campaign=campaign)
    assert [(t, f, to) for t, f, to, *_ in _timeline(execution)][-1] == ("lease_expired", S.QUEUED, S.WAITING)


@pytest.mark.django_db
@pytest.mark.parametrize("batched", [False, True], ids=["per-row job", "batched job"])
def test_a_stale_job_writes_nothing(actor, workspace, batched):
    setup_sms(workspace)
    with time_machine.travel(T0, tick=False):
        campaign = journey(actor, linear_graph(sms_node("a"), end_node()))
        enroll(actor, campaign, [make_target(workspace) for _ in range(2)])
    _, batch = Driver().tick(T0 + timedelta(minutes=1), process=False)
    stale = [(pk, "00000000-0000-0000-0000-000000000000") for pk, _ in batch]
    before = ExecutionEvent.objects.count()
    if batched:
        assert process_batch(stale, now=T0 + timedelta(minutes=1)) == {"stale": 2}
    else:
        assert process_execution(*stale[0], now=T0 + timedelta(minutes=1)) == "stale"
    assert ExecutionEvent.objects.count() == before
    assert set(Execution.objects.filter(campaign=campaign).values_list("status", "revision")) == {(S.QUEUED, 2)}


@pytest.mark.django_db
def test_a_step_deferred_by_the_limit_shows_queued_for_sending(actor, workspace):
    from automation.engine.context import automation_settings
    from automation.journey_stats import journey_stats

    setup_sms(workspace)
    with time_machine.travel(T0, tick=False):
        campaign = journey(actor, linear_graph(sms_node("a"), end_node()), daily_limit=10)
        enroll(actor, campaign, [make_target(workspace) for _ in range(2)])
    now = T0 + timedelta(hours=7)  # 10:30 Tehran
    _, batch = Driver().tick(now, process=False)  # both claimed before the workspace limit is set
    settings = automation_settings(workspace)
    settings.global_daily_limit = 1
    settings.save()
    process_batch(batch, now=now)
    deferred = Execution.objects.get(campaign=campaign, status=S.WAITING)
    assert [(t, f, to) for t, f, to, *_ in _timeline(deferred)][-1] == ("deferred_limit", S.PROCESSING, S.WAITING)
    stats = journey_stats(actor=actor, campaign_id=campaign.id, now=now)
    assert [(s["execution_id"], s["next_run_at"], s["queued_for_sending"]) for s in stats["next_sends"]] == [
        (deferred.id, None, True)
    ]
    assert stats["queued_for_sending"] == 1 and deferred.deferred_by_limit  # flagged with the step's outcome
    tomorrow = now + timedelta(days=1)
    Driver().tick(tomorrow)  # the next day's budget: it is sent, and no longer reads as put off by the limit
    deferred.refresh_from_db()
    assert deferred.status == S.COMPLETED and not deferred.deferred_by_limit
    assert journey_stats(actor=actor, campaign_id=campaign.id, now=tomorrow)["queued_for_sending"] == 0


@pytest.mark.django_db
def test_a_due_send_behind_a_spent_limit_shows_no_past_time(actor, workspace):
    """«ارسال‌های بعدی» does not promise a send at a time already past while today's limit holds it."""
    from automation.journey_stats import journey_stats

    setup_sms(workspace)
    with time_machine.travel(T0, tick=False):
        campaign = journey(actor, linear_graph(sms_node("a"), end_node()), daily_limit=1)
        enroll(actor, campaign, [make_target(workspace)])
    now = T0 + timedelta(hours=7)
    Driver().tick(now)  # the one send of the day
    with time_machine.travel(now, tick=False):
        enroll(actor, campaign, [make_target(workspace)])
    later = now + timedelta(minutes=5)  # due since `now`, not ticked: today's limit is spent
    stats = journey_stats(actor=actor, campaign_id=campaign.id, now=later)
    assert stats["limits"]["remaining_today"] == 0
    assert [(s["next_run_at"], s["queued_for_sending"]) for s in stats["next_sends"]] == [(None, True)]
    assert stats["queued_for_sending"] == 1


@pytest.mark.django_db
def test_one_execution_stepped_alone_is_flagged_and_unflagged_like_a_batch(actor, workspace):
    """The single-execution path (``process_execution``) writes the limit flag with the step's outcome too."""
    from automation.engine.context import automation_settings

    setup_sms(workspace)
    with time_machine.travel(T0, tick=False):
        campaign = journey(actor, linear_graph(sms_node("a"), end_node()), daily_limit=10)
        enroll(actor, campaign, [make_target(workspace)])
    now = T0 + timedelta(hours=7)
    _, batch = Driver().tick(now, process=False)  # claimed before the workspace limit is set
    settings = automation_settings(workspace)
    settings.global_daily_limit = 0
    settings.save()
    process_execution(*batch[0], now=now)
    execution = Execution.objects.get(campaign=campaign)
    assert (execution.status, execution.deferred_by_limit) == (S.WAITING, True)
    settings.global_daily_limit = None
    settings.save()
    later = now + timedelta(days=1)
    _, batch = Driver().tick(later, process=False)
    process_execution(*batch[0], now=later)
    execution.refresh_from_db()
    assert (execution.status, execution.deferred_by_limit) == (S.COMPLETED, False)


@pytest.mark.django_db
def test_the_migration_flags_the_waiting_executions_whose_last_event_is_a_limit_deferral(actor, workspace):
    """Rows written before the flag existed: a waiting send whose last event is the limit's deferral is flagged,
    one deferred by the window (or deferred by the limit earlier, then something else) is not."""
    import importlib

    from django.apps import apps

    from automation.choices import EventType

    flag = importlib.import_module("automation.migrations.0021_execution_deferred_by_limit").flag_limit_deferred
    setup_sms(workspace)
    with time_machine.travel(T0, tick=False):
        campaign = journey(actor, linear_graph(sms_node("a"), end_node()))
        enroll(actor, campaign, [make_target(workspace) for _ in range(3)])
    rows = list(Execution.objects.filter(campaign=campaign).order_by("id"))
    Execution.objects.filter(campaign=campaign).update(status=S.WAITING, needs_budget=True)
    latest = {0: [EventType.DEFERRED_LIMIT], 1: [EventType.DEFERRED_WINDOW], 2: [EventType.DEFERRED_LIMIT, "resumed"]}
    for index, types in latest.items():
        for minute, type_ in enumerate(types):
            ExecutionEvent.objects.create(
                workspace=workspace,
                execution=rows[index],
                campaign=campaign,
                subject_type_id=rows[index].subject_type_id,
                subject_id=rows[index].subject_id,
                type=type_,
                occurred_at=T0 + timedelta(hours=1, minutes=minute),
            )
    flag(apps, None)
    flagged = dict(Execution.objects.filter(campaign=campaign).values_list("id", "deferred_by_limit"))
    assert flagged == {rows[0].id: True, rows[1].id: False, rows[2].id: False}
