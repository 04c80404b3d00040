"""The engine's back-pressure: a tick claims nothing more while AUTOMATION_MAX_QUEUED claimed executions wait
for a worker, so workers slower than the ticks never turn every claim into a reaped lease (the livelock a
loaded chaos run showed: claimed 300, reaped 300, tick after tick, nothing sent)."""

from datetime import UTC, datetime, timedelta

import pytest
import time_machine

from automation.choices import ExecutionStatus
from automation.engine.batch import process_batch
from automation.models import Execution
from automation.services.enrollment import enroll_subjects
from sms.models import SmsAttempt
from tests.conftest import make_target

from .helpers import Driver, end_node, journey, linear_graph, setup_sms, sms_node

T0 = datetime(2026, 11, 1, 7, 0, tzinfo=UTC)  # 10:30 Tehran

pytestmark = pytest.mark.django_db


@pytest.fixture
def ten_due(actor, workspace, settings):
    settings.AUTOMATION_MAX_QUEUED = 4
    settings.AUTOMATION_LEASE_SECONDS = 60
    setup_sms(workspace)
    with time_machine.travel(T0, tick=False):
        campaign = journey(actor, linear_graph(sms_node("a"), end_node()))
        ids = [make_target(workspace).id for _ in range(10)]
        enroll_subjects(actor=actor, campaign_id=campaign.id, target_ids=ids)
    return campaign


def queued(campaign) -> int:
    return Execution.objects.filter(campaign=campaign, status=ExecutionStatus.QUEUED).count()


def test_a_tick_claims_only_the_room_left_while_batches_wait_for_a_worker(ten_due):
    driver = Driver()
    report, batch = driver.tick(T0 + timedelta(seconds=10), process=False)  # the workers are busy elsewhere
    assert (report.claimed, report.room, len(batch)) == (4, 4, 4)
    report, batch = driver.tick(T0 + timedelta(seconds=20), process=False)
    assert (report.claimed, report.room, batch) == (0, 0, [])  # four wait for a worker: nothing more claimed
    assert queued(ten_due) == 4

    # a worker starts the first batch: room for four more
    process_batch(driver.dispatched[0], now=T0 + timedelta(seconds=25))
    report, _ = driver.tick(T0 + timedelta(seconds=30))
    assert (report.claimed, report.room) == (4, 4)
    report, _ = driver.tick(T0 + timedelta(seconds=40))
    assert report.claimed == 2
    assert Execution.objects.filter(campaign=ten_due, status=ExecutionStatus.COMPLETED).count() == 10
    assert SmsAttempt.objects.filter(campaign=ten_due).count() == 10  # each once


def test_claims_waiting_past_their_lease_are_taken_back_and_claimed_again_within_the_bound(ten_due):
    """A batch lost with the broker (Redis restarted): its rows come back after the lease, no more than the
    bound is claimed again, and the late batch — if it ever arrives — finds its rows taken and sends nothing."""
    driver = Driver()
    driver.tick(T0 + timedelta(seconds=10), process=False)
    lost = driver.dispatched[0]
    report, _ = driver.tick(T0 + timedelta(seconds=75), process=False)  # the lease (60 s) ran out
    assert (report.reaped, report.claimed) == (4, 4)
    assert queued(ten_due) == 4
    process_batch(lost, now=T0 + timedelta(seconds=76))  # the old tokens: nothing runs
    assert SmsAttempt.objects.filter(campaign=ten_due).count() == 0
    process_batch(driver.dispatched[1], now=T0 + timedelta(seconds=77))
    assert SmsAttempt.objects.filter(campaign=ten_due).count() == 4
