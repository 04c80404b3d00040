"""A three-step journey end to end: SMS → wait 1 day → SMS → end."""

from datetime import UTC, datetime, timedelta

import pytest
import time_machine

from automation.choices import ExecutionStatus
from automation.models import Execution
from automation.services.enrollment import enroll_subjects
from sms.models import SmsAttempt
from tests.conftest import make_target

from .helpers import Driver, end_node, journey, linear_graph, setup_sms, sms_node, wait_node

T0 = datetime(2026, 11, 1, 7, 0, tzinfo=UTC)  # 10:30 Tehran, a Sunday


@pytest.mark.django_db
def test_three_step_journey_completes(actor, workspace):
    setup_sms(workspace)
    with time_machine.travel(T0, tick=False):
        campaign = journey(actor, linear_graph(sms_node("a"), wait_node("w"), sms_node("b"), end_node()))
        targets = [make_target(workspace, first_name="علی") for _ in range(3)]
        report = enroll_subjects(actor=actor, campaign_id=campaign.id, target_ids=[t.id for t in targets])
    assert len(report.added) == 3
    driver = Driver()
    driver.tick(T0 + timedelta(minutes=1))
    assert SmsAttempt.objects.filter(campaign=campaign, status="submitted").count() == 3
    assert set(Execution.objects.filter(campaign=campaign).values_list("status", flat=True)) == {
        ExecutionStatus.WAITING
    }
    driver.tick(T0 + timedelta(hours=23))
    assert SmsAttempt.objects.filter(campaign=campaign).count() == 3
    driver.tick(T0 + timedelta(days=1, minutes=2))  # wait over → active (budget step goes back to the scheduler)
    driver.tick(T0 + timedelta(days=1, minutes=3))
    assert SmsAttempt.objects.filter(campaign=campaign, status="submitted").count() == 6
    assert set(Execution.objects.filter(campaign=campaign).values_list("status", flat=True)) == {
        ExecutionStatus.COMPLETED
    }
    message = SmsAttempt.objects.filter(campaign=campaign).first().message
    assert message == "سلام علی"
