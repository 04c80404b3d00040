"""Every list of the journey API reads its query through a FilterSet: a value that does not parse is a 400
VALIDATION_ERROR naming the parameter, never silently ignored; a good value filters."""

import pytest

from automation.services.enrollment import enroll_subjects
from automation.services.enrollment_batches import enrollment_batch_preview
from tests.conftest import make_target

from .helpers import end_node, journey, linear_graph, setup_sms, sms_node

pytestmark = pytest.mark.django_db

GRAPH = linear_graph(sms_node("s1"), end_node())


@pytest.mark.parametrize(
    ("param", "value"),
    [("campaign", "abc"), ("campaign", "1.5"), ("campaign", "-3"), ("status", "NOPE")],
)
def test_a_bad_execution_filter_is_a_validation_error(api, param, value):
    response = api.get("/api/v1/executions", {param: value})
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "VALIDATION_ERROR" and param in error["details"]


def test_a_bad_workflow_status_filter_is_a_validation_error(api):
    response = api.get("/api/v1/workflows", {"status": "NOPE"})
    assert response.status_code == 400 and "status" in response.json()["error"]["details"]


def test_executions_filter_by_campaign_and_status(api, actor, workspace):
    setup_sms(workspace)
    one, other = journey(actor, GRAPH), journey(actor, GRAPH)
    enroll_subjects(actor=actor, campaign_id=one.id, target_ids=[make_target(workspace).id])
    enroll_subjects(actor=actor, campaign_id=other.id, target_ids=[make_target(workspace).id])
    listed = api.get("/api/v1/executions", {"campaign": one.id}).json()
    assert [e["campaign_id"] for e in listed["results"]] == [one.id]
    assert api.get("/api/v1/executions", {"campaign": one.id, "status": "completed"}).json()["count"] == 0


def test_a_bad_enrollment_item_class_is_a_validation_error(api, actor, workspace):
    setup_sms(workspace)
    campaign = journey(actor, GRAPH, activate=False)
    batch = enrollment_batch_preview(actor=actor, campaign_id=campaign.id, target_ids=[make_target(workspace).id])
    response = api.get(f"/api/v1/enrollments/{batch.id}/items", {"class": "nope"})
    assert response.status_code == 400 and "class" in response.json()["error"]["details"]
    assert api.get(f"/api/v1/enrollments/{batch.id}/items", {"class": "ready"}).json()["count"] == 1
    assert api.get(f"/api/v1/enrollments/{batch.id}/items", {"class": "conflict"}).json()["count"] == 0
