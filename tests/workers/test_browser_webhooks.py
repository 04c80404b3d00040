"""``browser.task_completed``: the result of the lease the platform holds fires it once (a repeated or late
result fires nothing), with the task's ids and its finish time; another workspace's endpoint gets nothing.
``browser.task_failed``: a failed attempt fires it once, with the task's ids, the error code and the attempt."""

import pytest

from campaigns.platform.models import WebhookDelivery
from campaigns.platform.webhooks import webhook_endpoint_create
from workers.models import BrowserTask
from workers.services import creation
from workers.services.dispatch import dispatch_due_tasks
from workers.services.results import result_apply

from ..conftest import make_workspace
from .conftest import make_account, make_browser_campaign

LINK = "http://127.0.0.1:9/post/1"

pytestmark = pytest.mark.django_db


def test_a_completed_task_fires_once_for_its_workspace(
    actor, workspace, published, django_capture_on_commit_callbacks, settings
):
    settings.WEBHOOK_ALLOWED_PRIVATE_HOSTS = ["127.0.0.1:9"]
    endpoint, _ = webhook_endpoint_create(
        workspace=workspace, url="http://127.0.0.1:9/hook", events=["browser.task_completed"]
    )
    webhook_endpoint_create(
        workspace=make_workspace("other"), url="http://127.0.0.1:9/hook", events=["browser.task_completed"]
    )
    campaign = make_browser_campaign(actor, accounts=[make_account(workspace)], links=[LINK], max_attempts=1)
    creation.due_platforms_create_tasks()
    with django_capture_on_commit_callbacks(execute=True):
        dispatch_due_tasks()
    (task,) = published
    message = {
        "task_id": task["task_id"],
        "attempt": 1,
        "lease_id": task["lease_id"],
        "status": "completed",
        "result_data": {},
    }
    assert result_apply(message=message) == "completed"
    assert result_apply(message=message) == "ignored"  # delivered twice by the queue: applied once
    (event,) = WebhookDelivery.objects.filter(event_type="browser.task_completed")
    row = BrowserTask.objects.get(pk=task["task_id"])
    assert event.endpoint_id == endpoint.id and event.workspace_id == workspace.id
    assert event.payload["data"] == {
        "task_id": row.pk,
        "campaign_id": campaign.pk,
        "account_id": row.account_id,
        "attempt": 1,
        "finished_at": row.finished_at.isoformat(),
    }


def test_a_failed_attempt_fires_once_with_its_error_code(
    actor, workspace, published, django_capture_on_commit_callbacks, settings
):
    settings.WEBHOOK_ALLOWED_PRIVATE_HOSTS = ["127.0.0.1:9"]
    endpoint, _ = webhook_endpoint_create(
        workspace=workspace, url="http://127.0.0.1:9/hook", events=["browser.task_failed"]
    )
    webhook_endpoint_create(
        workspace=make_workspace("other"), url="http://127.0.0.1:9/hook", events=["browser.task_failed"]
    )
    campaign = make_browser_campaign(actor, accounts=[make_account(workspace)], links=[LINK], max_attempts=1)
    creation.due_platforms_create_tasks()
    with django_capture_on_commit_callbacks(execute=True):
        dispatch_due_tasks()
    (task,) = published
    message = {
        "task_id": task["task_id"],
        "attempt": 1,
        "lease_id": task["lease_id"],
        "status": "failed",
        "error_code": "ELEMENT_NOT_FOUND",
        "error_reason": "no like button",
        "result_data": {},
    }
    assert result_apply(message=message) == "failed"
    assert result_apply(message=message) == "ignored"  # delivered twice by the queue: applied once
    (event,) = WebhookDelivery.objects.filter(event_type="browser.task_failed")
    assert event.endpoint_id == endpoint.id and event.workspace_id == workspace.id
    assert event.payload["type"] == "browser.task_failed"
    assert event.payload["data"] == {
        "task_id": task["task_id"],
        "campaign_id": campaign.pk,
        "error_code": "ELEMENT_NOT_FOUND",
        "attempt": 1,
    }
    assert not WebhookDelivery.objects.filter(event_type="browser.task_completed").exists()
