"""Run edges the seed names: a child turn after the end date is SKIPPED PAST_END_DATE, and the conversion job
keeps recording status-goal conversions for runs of finished or cancelled campaigns inside their window."""

import pytest
import time_machine

from campaigns.chains.models import ChainNode
from campaigns.chains.run_models import ConversionEvent
from campaigns.chains.runs.choices import RunStatus, SkipReason
from campaigns.chains.runs.conversions import conversions_evaluate
from campaigns.choices import CampaignStatus
from campaigns.models import Target

from .runs_helpers import approved_chain, at, root_run, runs_of, settle, tick

pytestmark = pytest.mark.django_db


def test_a_child_turn_after_the_end_date_is_skipped_past_end_date(actor):
    schedule = {"type": "MONTHLY", "day": 1, "time": "09:00", "end_date": "2026-10-02"}
    with time_machine.travel(at(2026, 9, 20), tick=False):
        nodes, _ = approved_chain(actor, shape="A>B", root_schedule=schedule)
    tick(at(2026, 10, 1, 9, 0))
    a10 = root_run(nodes["A"], at(2026, 10, 1))
    settle(a10)
    tick(at(2026, 10, 1, 9, 5))  # B is planned two days after A: 3 October, past the end of 2 October
    (b10,) = runs_of(nodes["B"])
    assert (b10.status, b10.skip_reason) == (RunStatus.SKIPPED, SkipReason.PAST_END_DATE)


@pytest.mark.parametrize("final", [CampaignStatus.COMPLETED, CampaignStatus.CANCELLED])
def test_the_conversion_job_records_for_finished_and_cancelled_campaigns(actor, final):
    with time_machine.travel(at(2026, 9, 20), tick=False):
        nodes, people = approved_chain(actor, shape="A>B", targets=3)
    tick(at(2026, 10, 1, 9, 0))
    a10 = root_run(nodes["A"], at(2026, 10, 1))
    settle(a10)
    tick(at(2026, 10, 1, 9, 5))
    ChainNode.objects.filter(pk=nodes["A"].pk).update(status=final)  # the campaign ended meanwhile
    converted = people[0]
    with time_machine.travel(at(2026, 10, 2, 12, 0), tick=False):
        Target.objects.filter(pk=converted.pk).update(status="converted", updated_at=at(2026, 10, 2, 12, 0))
        assert conversions_evaluate(now=at(2026, 10, 2, 12, 5)) >= 1
    (event,) = ConversionEvent.objects.filter(name="target_status:converted")
    assert event.target_id == converted.id and event.occurred_at == at(2026, 10, 2, 12, 0)
    # outside the 7-day window nothing more is recorded
    with time_machine.travel(at(2026, 10, 20), tick=False):
        Target.objects.filter(pk=people[1].pk).update(status="converted", updated_at=at(2026, 10, 20))
        conversions_evaluate(now=at(2026, 10, 20, 0, 5))
    assert ConversionEvent.objects.filter(name="target_status:converted").count() == 1
