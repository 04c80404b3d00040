"""A journey's numbers (executions per status, failed sends, retries, unknown outcomes) are kept with the writes
on every path — enrollment, the engine's batches, manual and bulk control, events written one by one or in bulk —
and always equal a fresh count of the rows; folding keeps them, the repair command finds and fixes a wrong one."""

import re
import threading
from collections import Counter
from datetime import timedelta

import pytest
from django.core.management import call_command
from django.db import connection, connections
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from automation import journey_counts
from automation.choices import EventType
from automation.engine.batch import process_batch
from automation.engine.scheduler import schedule_campaign
from automation.models import Execution, ExecutionEvent, JourneyCount
from automation.services.executions import execution_control
from campaigns.models import Campaign
from tests.conftest import make_target

from .helpers import Driver, end_node, enroll, journey, linear_graph, setup_sms, sms_node, wait_node

pytestmark = pytest.mark.django_db

# Counts by status grouped over executions, or any count over the history: what the kept numbers replace.
AGGREGATE = re.compile(
    r'^SELECT [^()]*COUNT\([^)]*\)[^()]* FROM "automation_executionevent" '
    r'|^SELECT [^()]*COUNT\([^)]*\)[^()]* FROM "automation_execution" .* GROUP BY'
)
GRAPH = linear_graph(sms_node("a"), wait_node("w", amount=1, unit="days"), sms_node("b"), end_node())


def by_status(campaign) -> dict[str, int]:
    return dict(Counter(Execution.objects.filter(campaign=campaign).values_list("status", flat=True)))


def stats(api, campaign) -> dict:
    return api.get(f"/api/v1/campaigns/{campaign.id}/journey/stats").json()


def add_events(campaign, *rows) -> None:
    """(type, result, occurred_at) rows on the campaign's first execution, in one bulk insert."""
    execution = Execution.objects.filter(campaign=campaign).order_by("id").first()
    ExecutionEvent.objects.bulk_create(
        [
            ExecutionEvent(
                workspace_id=execution.workspace_id,
                execution=execution,
                campaign_id=campaign.id,
                subject_type_id=execution.subject_type_id,
                subject_id=execution.subject_id,
                type=kind,
                data={"result": result} if result else {},
                occurred_at=at,
            )
            for kind, result, at in rows
        ]
    )


@pytest.fixture
def running(actor, workspace):
    setup_sms(workspace)
    campaign = journey(actor, GRAPH)
    enroll(actor, campaign, [make_target(workspace) for _ in range(6)])
    return campaign


def test_status_counts_follow_enrollment_the_engine_and_control(api, actor, running):
    campaign = running
    enrolled = by_status(campaign)
    assert sum(enrolled.values()) == 6
    assert journey_counts.status_counts([campaign.id])[campaign.id] == enrolled
    now = timezone.now()
    Driver().tick(now + timedelta(seconds=1))  # sends the first step, then waits a day
    executions = list(Execution.objects.filter(campaign=campaign).order_by("id"))
    execution_control(actor=actor, execution_id=executions[0].id, action="pause")
    execution_control(actor=actor, execution_id=executions[1].id, action="remove")
    counted = by_status(campaign)
    assert sum(counted.values()) == 6 and counted.get("paused") == 1
    assert journey_counts.status_counts([campaign.id])[campaign.id] == counted
    data = stats(api, campaign)
    assert (data["total"], data["paused"], data["cancelled"]) == (6, 1, counted.get("cancelled", 0))
    assert data["waiting"] == counted.get("waiting", 0)
    assert journey_counts.differences(campaign_id=campaign.id) == {}


def test_cancelling_the_campaign_moves_every_count_in_one_statement(actor, running):
    from automation.services.campaigns import journey_campaign_transition

    journey_campaign_transition(actor=actor, campaign_id=running.id, action="cancel")
    assert journey_counts.status_counts([running.id])[running.id] == by_status(running)
    assert journey_counts.differences(campaign_id=running.id) == {}


def test_failed_sends_retries_and_unknown_outcomes_by_day(api, running):
    campaign = running
    now = timezone.now()
    add_events(
        campaign,
        (EventType.ACTION_RESULT, "failed", now),
        (EventType.ACTION_ATTEMPT, "rejected", now),
        (EventType.ACTION_RESULT, "sent", now),  # not a failure
        (EventType.RETRY_SCHEDULED, "", now),
        (EventType.RETRY_SCHEDULED, "", now - timedelta(days=3)),
        (EventType.ACTION_RESULT, "failed", now - timedelta(days=60)),  # only in the totals
        (EventType.UNKNOWN_OUTCOME, "", now - timedelta(days=1)),
    )
    ExecutionEvent.objects.create(  # written one by one (a service path)
        workspace_id=campaign.workspace_id,
        execution=Execution.objects.filter(campaign=campaign).first(),
        campaign_id=campaign.id,
        subject_type_id=Execution.objects.filter(campaign=campaign).first().subject_type_id,
        subject_id=1,
        type=EventType.RETRY_SCHEDULED,
        occurred_at=now,
    )
    data = stats(api, campaign)
    assert data["send_failed"] == {"today": 2, "total": 3}
    assert data["retried"] == {"today": 2, "total": 3}
    assert data["unknown_outcomes"] == 1
    series = {row["day"]: row for row in data["series"]}
    assert sum(row["failed"] for row in series.values()) == 2
    assert sum(row["retried"] for row in series.values()) == 3
    assert data["series"][-1]["retried"] == 2
    assert journey_counts.differences(campaign_id=campaign.id) == {}

    assert journey_counts.fold() > 0  # the deltas become one row per number; old slots one row without a slot
    assert stats(api, campaign) == data
    assert JourneyCount.objects.filter(campaign_id=campaign.id, slot__lt=now - timedelta(days=45)).count() == 0
    rows = JourneyCount.objects.filter(campaign_id=campaign.id).values_list("key", "slot")
    assert len(rows) == len(set(rows))
    assert journey_counts.fold() == 0  # nothing left to fold


def test_the_dashboard_reads_the_counts_in_fixed_queries(client, owner, actor, workspace, running):
    client.force_login(owner)
    url = f"/automation/campaigns/{running.id}/"
    client.get(url)  # warm-up
    with CaptureQueriesContext(connection) as captured:
        assert client.get(url).status_code == 200
    few = len(captured)
    enroll(actor, running, [make_target(workspace) for _ in range(20)])
    now = timezone.now()
    add_events(running, *[(EventType.ACTION_RESULT, "failed", now - timedelta(days=d)) for d in range(10)])
    with CaptureQueriesContext(connection) as captured:
        assert client.get(url).status_code == 200
    assert len(captured) == few
    assert not [q["sql"] for q in captured.captured_queries if AGGREGATE.search(q["sql"])]


def test_the_campaign_list_reads_the_counts(client, owner, running):
    client.force_login(owner)
    with CaptureQueriesContext(connection) as captured:
        page = client.get("/automation/campaigns/").content.decode()
    assert "۶" in page
    assert not [q["sql"] for q in captured.captured_queries if AGGREGATE.search(q["sql"])]


def test_the_repair_command_finds_and_fixes_wrong_counts(running, capsys):
    JourneyCount.objects.create(workspace_id=running.workspace_id, campaign_id=running.id, key="status:active", n=5)
    with pytest.raises(SystemExit) as exited:
        call_command("journey_counts", "--check")
    assert exited.value.code == 1
    assert f"campaign {running.id}: status:active stored 11, counted 6" in capsys.readouterr().out
    call_command("journey_counts")
    assert journey_counts.status_counts([running.id])[running.id] == by_status(running)
    call_command("journey_counts", "--check")


pg_only = pytest.mark.skipif(connection.vendor != "postgresql", reason="concurrent transactions need PostgreSQL")


@pg_only
@pytest.mark.django_db(transaction=True)
def test_two_workers_moving_one_campaign_at_once_keep_the_counts_exact(actor, workspace):
    setup_sms(workspace)
    campaign = journey(actor, GRAPH)
    enroll(actor, campaign, [make_target(workspace) for _ in range(300)])
    now = timezone.now() + timedelta(seconds=1)
    fresh = Campaign.objects.select_related("workspace", "journey__workflow_version").get(pk=campaign.pk)
    barrier, errors = threading.Barrier(3), []

    def work():
        try:
            barrier.wait()
            claimed = schedule_campaign(fresh, now, limit=150)[0]
            process_batch(claimed, now=now)
        except Exception as exc:
            errors.append(exc)
        finally:
            connections.close_all()

    def fold():
        try:
            barrier.wait()
            for _ in range(5):
                journey_counts.fold()
        except Exception as exc:
            errors.append(exc)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=fn) for fn in (work, work, fold)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert journey_counts.status_counts([campaign.id])[campaign.id] == by_status(campaign)
    assert journey_counts.differences(campaign_id=campaign.id) == {}
