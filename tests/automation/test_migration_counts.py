"""The migration step reads who stands where from the kept step numbers (journey_counts ``at:`` keys), so it
stays flat however many executions are in flight; the numbers match a fresh count."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from automation import journey_counts
from automation.choices import HELD_UNKNOWN, ExecutionStatus
from automation.live_edits import versions_with_live
from automation.models import Execution, Workflow

from .test_version_migrations import _ids, publish_v2, running_at_wait, v1_graph

pytestmark = pytest.mark.django_db


def test_the_migration_step_counts_from_kept_numbers_not_from_executions(owner, actor, workspace):
    campaign, _ = running_at_wait(actor, workspace, n=4)
    held = Execution.objects.filter(campaign=campaign).order_by("id").first()
    Execution.objects.filter(pk=held.pk).update(
        status=ExecutionStatus.PAUSED, metadata={**held.metadata, HELD_UNKNOWN: held.current_node_id}
    )
    publish_v2(actor, campaign, v1_graph(wait_amount=2))
    workflow_id, old = _ids(campaign)
    assert journey_counts.differences(campaign_id=campaign.id) == {}
    assert [(v.id, n) for v, n in versions_with_live(Workflow.objects.get(pk=workflow_id))] == [(old.id, 4)]

    client = Client()
    client.force_login(owner)
    with CaptureQueriesContext(connection) as queries:
        page = client.get(f"/automation/workflows/{workflow_id}/migrate/")
    assert page.status_code == 200
    node = page.context["preview"].nodes
    by_key = {n.node_key: n for n in node}
    assert (by_key["w"].live, by_key["w"].held, by_key["w"].busy) == (4, 1, 0)
    on_executions = [q["sql"] for q in queries.captured_queries if 'FROM "automation_execution"' in q["sql"]]
    # Only the sends held after an unknown outcome are read from the rows (the paused ones, by index).
    assert on_executions and all('"automation_execution"."status" = ' in sql for sql in on_executions), on_executions


def test_a_campaign_on_an_older_version_with_nobody_in_flight_can_still_take_the_new_one(owner, actor, workspace):
    """Everyone finished version 1, then version 2 was published: the campaign's banner sends staff to the
    migration step, which offers to enroll the campaign's next targets into version 2 (it moves nobody)."""
    from automation.models import CampaignJourney

    campaign, _ = running_at_wait(actor, workspace, n=2)
    Execution.objects.filter(campaign=campaign).update(status=ExecutionStatus.COMPLETED)
    publish_v2(actor, campaign, v1_graph(second_text="متن تازه"))
    workflow_id, old = _ids(campaign)
    client = Client()
    client.force_login(owner)
    banner = client.get(f"/automation/campaigns/{campaign.id}/").content.decode()
    assert 'data-testid="newer-version"' in banner
    assert "این کمپین هنوز روی نسخهٔ ۱ است" in banner and "مانده‌اند" not in banner  # nobody is in flight
    url = f"/automation/workflows/{workflow_id}/migrate/?from={old.id}&campaign={campaign.id}"
    page = client.get(url).content.decode()
    assert 'data-testid="nothing-to-migrate"' not in page and 'data-testid="pinned-only"' in page
    assert "از این پس نسخهٔ ۲ برای این کمپین" in page
    assert client.post(url, {}).status_code == 302
    journey_row = CampaignJourney.objects.get(pk=campaign.pk)
    assert journey_row.workflow_version_id == Workflow.objects.get(pk=workflow_id).published_version_id
    assert 'data-testid="newer-version"' not in client.get(f"/automation/campaigns/{campaign.id}/").content.decode()
