"""``chain.run_completed``: the one completion function fires it once, in the run's DISPATCHED → COMPLETED
transaction (later ticks fire nothing), only to the chain's workspace."""

import pytest
import time_machine

from campaigns.chains.runs.choices import RunStatus
from campaigns.platform.models import WebhookDelivery
from campaigns.platform.webhooks import webhook_endpoint_create

from ..conftest import make_workspace
from .runs_helpers import approved_chain, at, root_run, settle, tick

pytestmark = pytest.mark.django_db


def test_a_completed_run_fires_once(actor, workspace, settings):
    settings.WEBHOOK_ALLOWED_PRIVATE_HOSTS = ["127.0.0.1:9"]
    endpoint, _ = webhook_endpoint_create(
        workspace=workspace, url="http://127.0.0.1:9/hook", events=["chain.run_completed"]
    )
    webhook_endpoint_create(
        workspace=make_workspace("other"), url="http://127.0.0.1:9/hook", events=["chain.run_completed"]
    )
    with time_machine.travel(at(2026, 9, 20), tick=False):
        nodes, people = approved_chain(actor)
    tick(at(2026, 10, 1, 9, 0))
    run = root_run(nodes["A"], at(2026, 10, 1))
    assert not WebhookDelivery.objects.filter(event_type="chain.run_completed").exists()  # still sending
    settle(run, {people[0].id: "failed", people[1].id: "unknown"})
    tick(at(2026, 10, 1, 9, 10))
    tick(at(2026, 10, 1, 9, 20))
    run.refresh_from_db()
    assert run.status == RunStatus.COMPLETED
    (event,) = WebhookDelivery.objects.filter(event_type="chain.run_completed")
    assert event.endpoint_id == endpoint.id and event.workspace_id == workspace.id
    data = event.payload["data"]
    assert (data["run_id"], data["campaign_id"], data["run_type"]) == (run.id, nodes["A"].id, run.run_type)
    assert data["completed_at"] == run.completed_at.isoformat() and data["started_at"] == run.started_at.isoformat()
    assert data["expected_executions"] == data["settled_executions"] == run.expected_execution_count
