"""``enrollment.committed``: a reviewed batch's end fires one event with its counts by outcome (no target ids),
once however often the job runs again, and only to the batch's workspace."""

import pytest

from automation.services.enrollment_batches import (
    enrollment_batch_commit,
    enrollment_batch_preview,
    enrollment_batch_run,
)
from campaigns.platform.models import WebhookDelivery
from campaigns.platform.webhooks import webhook_endpoint_create
from tests.conftest import make_target, make_workspace

from .helpers import end_node, journey, linear_graph, setup_sms, sms_node

pytestmark = pytest.mark.django_db


def test_a_committed_batch_fires_once_with_its_counts(actor, workspace, settings):
    settings.WEBHOOK_ALLOWED_PRIVATE_HOSTS = ["127.0.0.1:9"]
    endpoint, _ = webhook_endpoint_create(
        workspace=workspace, url="http://127.0.0.1:9/hook", events=["enrollment.committed"]
    )
    webhook_endpoint_create(
        workspace=make_workspace("other"), url="http://127.0.0.1:9/hook", events=["enrollment.committed"]
    )
    setup_sms(workspace)
    campaign = journey(actor, linear_graph(sms_node("a"), end_node()), activate=False)
    targets = [make_target(workspace) for _ in range(3)]
    batch = enrollment_batch_preview(actor=actor, campaign_id=campaign.id, target_ids=[t.id for t in targets])
    done = enrollment_batch_commit(actor=actor, batch_id=batch.id)
    enrollment_batch_run(batch_id=batch.id)  # a repeated job: nothing more
    (event,) = WebhookDelivery.objects.filter(event_type="enrollment.committed")
    assert event.endpoint_id == endpoint.id and event.workspace_id == workspace.id
    assert event.payload["data"] == {
        "batch_id": batch.id,
        "campaign_id": campaign.id,
        "source": done.source,
        "total": 3,
        "result": {"added": 3},
        "committed_at": done.committed_at.isoformat(),
        "finished_at": done.finished_at.isoformat(),
    }
