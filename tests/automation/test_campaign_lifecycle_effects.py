"""The journey's lifecycle effects run on every path that changes a campaign's status, and only on a won race."""

import pytest

from automation.choices import ExecutionStatus
from automation.models import Execution
from automation.services.campaigns import journey_campaign_transition
from automation.services.enrollment import enroll_subjects
from campaigns.models import Campaign, CampaignEvent
from campaigns.platform.errors import StaleRevision
from campaigns.services.campaigns import campaign_transition
from campaigns.services.lifecycle import campaign_status_change
from tests.conftest import make_target

from .helpers import end_node, journey, linear_graph, setup_sms, sms_node

GRAPH = linear_graph(sms_node("a"), end_node())
pytestmark = pytest.mark.django_db


@pytest.fixture
def draft(actor, workspace):
    setup_sms(workspace)
    campaign = journey(actor, GRAPH, activate=False)
    enroll_subjects(actor=actor, campaign_id=campaign.id, target_ids=[make_target(workspace).id])
    assert Execution.objects.get(campaign=campaign).status == ExecutionStatus.PENDING
    return campaign


def test_generic_start_and_cancel_of_a_journey_run_its_effects(actor, draft):
    """The generic control (the admin's path for kinds) starts and stops the journey's executions too."""
    campaign_transition(actor=actor, campaign_id=draft.id, transition="activate")
    execution = Execution.objects.get(campaign=draft)
    assert execution.status == ExecutionStatus.ACTIVE
    campaign_transition(actor=actor, campaign_id=draft.id, transition="cancel")
    execution.refresh_from_db()
    assert execution.status == ExecutionStatus.CANCELLED and execution.end_reason == "campaign_cancelled"


def test_a_lost_race_writes_no_event_and_runs_no_effect(actor, draft):
    stale = Campaign.objects.get(pk=draft.id)
    journey_campaign_transition(actor=actor, campaign_id=draft.id, action="activate")
    with pytest.raises(StaleRevision):
        campaign_status_change(campaign=stale, transition="cancel", actor=actor)
    assert Campaign.objects.get(pk=draft.id).status == "active"
    assert Execution.objects.get(campaign=draft).status == ExecutionStatus.ACTIVE
    events = CampaignEvent.objects.filter(campaign=draft, type="status_changed")
    assert list(events.values_list("to_status", flat=True)) == ["active"]


def test_pause_records_who_paused_and_resume_clears_it(actor, draft):
    journey_campaign_transition(actor=actor, campaign_id=draft.id, action="activate")
    paused = journey_campaign_transition(actor=actor, campaign_id=draft.id, action="pause")
    assert paused.paused_at is not None and paused.paused_by_id == actor.user.id
    resumed = journey_campaign_transition(actor=actor, campaign_id=draft.id, action="resume")
    assert resumed.paused_at is None and resumed.paused_by_id is None


def test_a_started_journey_is_ticked_right_after_the_commit(
    actor, draft, monkeypatch, django_capture_on_commit_callbacks
):
    """The first sends leave within seconds, not at the next minute's beat; a pause asks for no tick."""
    from automation.tasks import tick

    sent = []
    monkeypatch.setattr(tick, "apply_async", lambda *args, **options: sent.append(tick.name))
    with django_capture_on_commit_callbacks(execute=False) as started:
        journey_campaign_transition(actor=actor, campaign_id=draft.id, action="activate")
    assert sent == [] and len(started) == 1  # nothing before the commit
    started[0]()
    assert sent == ["automation.tick"]
    with django_capture_on_commit_callbacks(execute=True):
        journey_campaign_transition(actor=actor, campaign_id=draft.id, action="pause")
    assert sent == ["automation.tick"]
