"""Campaign and execution lifecycle: schedule, end, stop rules, blacklist, cancel, new versions."""

from datetime import timedelta

import pytest
import time_machine

from automation.choices import ExecutionStatus
from automation.engine.batch import process_batch
from automation.models import CampaignJourney, Execution, ExecutionEvent
from automation.services.executions import execution_control
from automation.services.workflows import workflow_graph_save, workflow_new_draft, workflow_publish
from campaigns.models import Notification
from sms.models import BlacklistEntry, SmsAttempt
from tests.conftest import make_target

from .helpers import (
    T0,
    CountingConsole,
    Driver,
    end_node,
    enroll,
    journey,
    linear_graph,
    setup_sms,
    sms_node,
    wait_node,
)


@pytest.mark.django_db
def test_scheduled_campaign_starts_and_activates_pending(actor, workspace):
    setup_sms(workspace)
    with time_machine.travel(T0, tick=False):
        campaign = journey(actor, linear_graph(sms_node("a"), end_node()), starts_at=T0 + timedelta(hours=1))
        assert campaign.status == "scheduled"
        enroll(actor, campaign, [make_target(workspace)])
    assert Execution.objects.get(campaign=campaign).status == ExecutionStatus.PENDING
    driver = Driver()
    driver.tick(T0 + timedelta(minutes=30))
    assert SmsAttempt.objects.count() == 0
    driver.tick(T0 + timedelta(hours=1, minutes=1))
    campaign.refresh_from_db()
    assert campaign.status == "active"
    assert Execution.objects.get(campaign=campaign).status == ExecutionStatus.COMPLETED


@pytest.mark.django_db
def test_campaign_end_cancels_live_executions(actor, workspace):
    setup_sms(workspace)
    with time_machine.travel(T0, tick=False):
        campaign = journey(
            actor,
            linear_graph(sms_node("a"), wait_node("w", 5, "days"), sms_node("b"), end_node()),
            ends_at=T0 + timedelta(days=2),
        )
        enroll(actor, campaign, [make_target(workspace) for _ in range(2)])
    driver = Driver()
    driver.tick(T0 + timedelta(minutes=1))
    driver.tick(T0 + timedelta(days=2, minutes=1))
    campaign.refresh_from_db()
    assert campaign.status == "completed"
    assert set(Execution.objects.filter(campaign=campaign).values_list("end_reason", flat=True)) == {"campaign_ended"}
    ended = Notification.objects.get(kind="campaign_finished")
    assert (ended.recipient_id, ended.link) == (actor.user.id, f"/automation/campaigns/{campaign.id}/")
    assert set(Execution.objects.filter(campaign=campaign).values_list("status", flat=True)) == {
        ExecutionStatus.CANCELLED
    }


@pytest.mark.django_db
def test_stop_status_and_deleted_target_cancel(actor, workspace):
    from campaigns.services.targets import target_delete

    setup_sms(workspace)
    with time_machine.travel(T0, tick=False):
        campaign = journey(
            actor,
            linear_graph(sms_node("a"), wait_node("w", 1, "hours"), sms_node("b"), end_node()),
            settings={"stop_when_target_status_in": ["interested"]},
        )
        interested, deleted = make_target(workspace), make_target(workspace)
        enroll(actor, campaign, [interested, deleted])
    driver = Driver()
    driver.tick(T0 + timedelta(minutes=1))
    interested.status = "interested"
    interested.save()
    target_delete(actor=actor, target_id=deleted.id)
    driver.tick(T0 + timedelta(hours=2))
    reasons = dict(Execution.objects.filter(campaign=campaign).values_list("subject_id", "end_reason"))
    assert reasons == {interested.id: "target_status_changed", deleted.id: "target_removed"}
    assert SmsAttempt.objects.filter(campaign=campaign).count() == 2


@pytest.mark.django_db
def test_blacklisted_mid_journey_stops_and_resumes_only_by_hand(actor, workspace):
    setup_sms(workspace)
    with time_machine.travel(T0, tick=False):
        campaign = journey(actor, linear_graph(sms_node("a"), wait_node("w", 1, "days"), sms_node("b"), end_node()))
        target = make_target(workspace)
        enroll(actor, campaign, [target])
    driver = Driver()
    driver.tick(T0 + timedelta(minutes=1))
    BlacklistEntry.objects.create(workspace=workspace, value=target.mobile, reason="opt_out", source="opt_out")
    for minutes in (1, 2, 3):
        driver.tick(T0 + timedelta(days=1, minutes=minutes))
    execution = Execution.objects.get(campaign=campaign)
    assert execution.status == ExecutionStatus.BLACKLISTED
    assert SmsAttempt.objects.filter(campaign=campaign).count() == 1
    driver.tick(T0 + timedelta(days=2))
    execution.refresh_from_db()
    assert execution.status == ExecutionStatus.BLACKLISTED  # no automatic resume
    BlacklistEntry.objects.filter(workspace=workspace).update(is_active=False)
    with time_machine.travel(T0 + timedelta(days=2, minutes=1), tick=False):
        execution_control(actor=actor, execution_id=execution.id, action="resume")
    driver.tick(T0 + timedelta(days=2, minutes=2))
    execution.refresh_from_db()
    assert execution.status == ExecutionStatus.COMPLETED
    assert SmsAttempt.objects.filter(campaign=campaign).count() == 2


@pytest.mark.django_db
def test_publishing_v2_keeps_running_executions_on_v1(actor, workspace):
    setup_sms(workspace)
    with time_machine.travel(T0, tick=False):
        campaign = journey(
            actor,
            linear_graph(
                sms_node("a", body="نسخه یک"), wait_node("w", 1, "hours"), sms_node("b", body="پایان یک"), end_node()
            ),
        )
        enroll(actor, campaign, [make_target(workspace)])
    driver = Driver()
    driver.tick(T0 + timedelta(minutes=1))
    workflow = campaign.journey.workflow
    with time_machine.travel(T0 + timedelta(minutes=5), tick=False):
        workflow_new_draft(actor=actor, workflow_id=workflow.id)
        v2 = linear_graph(sms_node("a", body="نسخه دو"), sms_node("b", body="پایان دو"), end_node())
        workflow_graph_save(actor=actor, workflow_id=workflow.id, graph_data=v2)
        workflow_publish(actor=actor, workflow_id=workflow.id)
    for minutes in (70, 71, 72):
        driver.tick(T0 + timedelta(minutes=minutes))
    texts = list(SmsAttempt.objects.filter(campaign=campaign).order_by("id").values_list("message", flat=True))
    assert texts == ["نسخه یک", "پایان یک"]
    assert CampaignJourney.objects.get(campaign=campaign).workflow_version.version_number == 1


@pytest.mark.django_db
def test_cancel_during_a_batched_step_wins_over_the_worker(actor, workspace, monkeypatch):
    """A person (or a target deletion) cancels while the worker is in the provider call: the worker's
    final write loses the race — no overwrite, no events — and nothing is sent twice."""
    from automation.engine.campaign_effects import cancel_live_executions

    setup_sms(workspace)
    with time_machine.travel(T0, tick=False):
        campaign = journey(actor, linear_graph(sms_node("a"), wait_node("w", 1, "hours"), sms_node("b"), end_node()))
        victim, other = make_target(workspace), make_target(workspace)
        enroll(actor, campaign, [victim, other])

    def cancel_victim(request):
        if request.phone == victim.mobile:
            cancel_live_executions(subject=victim, reason="target_removed", now=T0)
        return None

    CountingConsole(monkeypatch, cancel_victim)
    _, batch = Driver().tick(T0 + timedelta(minutes=1), process=False)
    counts = process_batch(batch, now=T0 + timedelta(minutes=1))
    assert counts == {"wait": 1, "lost_race": 1}
    executions = {e.subject_id: e for e in Execution.objects.filter(campaign=campaign)}
    assert executions[victim.id].status == ExecutionStatus.CANCELLED
    assert executions[other.id].status == ExecutionStatus.WAITING
    victim_events = list(ExecutionEvent.objects.filter(execution=executions[victim.id]).values_list("type", flat=True))
    assert "wait_started" not in victim_events
    assert SmsAttempt.objects.filter(campaign=campaign, status="submitted").count() == 2
