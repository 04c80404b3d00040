"""Bounded work in the engine: graph and condition size caps, paginated event lists, and a scheduler tick
that goes on when one campaign fails."""

import logging
import sys
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta

import pytest
import time_machine
from celery.exceptions import SoftTimeLimitExceeded

from automation.choices import EventType, ExecutionStatus
from automation.engine import scheduler
from automation.engine.conditions import MAX_CONDITION_DEPTH, tree_errors
from automation.engine.graph import MAX_NODES, Graph
from automation.engine.validator import validate_graph
from automation.models import Execution, ExecutionEvent, WorkflowNode
from automation.services.enrollment import enroll_subjects
from automation.services.workflows import workflow_create, workflow_graph_save
from campaigns.models import CampaignEvent
from campaigns.platform.errors import ValidationFailed
from sms.models import SmsAttempt
from tests.conftest import make_target

from .helpers import Driver, end_node, journey, linear_graph, setup_sms, sms_node, start_node, wait_node

T0 = datetime(2026, 11, 1, 7, 0, tzinfo=UTC)  # 10:30 Tehran


def _chain_graph(count: int) -> dict:
    """start → wait × (count - 2) → end: a path as long as the graph."""
    waits = [wait_node(f"w{i}", amount=1, unit="minutes") for i in range(count - 2)]
    return linear_graph(*waits, end_node())


def _condition(depth: int) -> dict:
    """A condition tree nested ``depth`` groups deep (built without recursion)."""
    tree = {"logic": "all", "rules": [{"field": "target.status", "operator": "eq", "value": "new"}]}
    for _ in range(depth - 1):
        tree = {"logic": "any", "rules": [tree]}
    return tree


def _condition_graph(depth: int) -> dict:
    condition = {"node_key": "c", "type": "condition", "subtype": "rules", "config": _condition(depth)}
    return {
        "nodes": [start_node(), condition, end_node("yes"), end_node("no")],
        "edges": [
            {"from": "start", "to": "c", "port": "default"},
            {"from": "c", "to": "yes", "port": "yes"},
            {"from": "c", "to": "no", "port": "no"},
        ],
        "settings": {},
    }


@contextmanager
def _recursion_headroom(frames: int):
    """Only ``frames`` more Python frames allowed: a recursive walk of a longer path raises RecursionError."""
    depth, frame = 0, sys._getframe()
    while frame is not None:
        depth, frame = depth + 1, frame.f_back
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(depth + frames)
    try:
        yield
    finally:
        sys.setrecursionlimit(old)


# --- graph node count -----------------------------------------------------------------------------------
@pytest.mark.django_db
def test_1000_node_graph_is_refused_with_a_validation_error_not_a_recursion_error(api):
    wid = api.post("/api/v1/workflows", {"name": "بزرگ"}, format="json").json()["id"]
    response = api.put(f"/api/v1/workflows/{wid}/graph", _chain_graph(1000), format="json")
    assert response.status_code == 400, response.content
    assert response.json()["error"]["code"] == "VALIDATION_ERROR"
    assert "nodes" in response.json()["error"]["details"]
    assert WorkflowNode.objects.filter(version__workflow_id=wid).count() == 2  # the blank draft is kept


@pytest.mark.django_db
def test_1000_node_graph_is_refused_by_the_service_before_anything_is_stored(actor):
    workflow = workflow_create(actor=actor, name="بزرگ")
    with pytest.raises(ValidationFailed) as caught:
        workflow_graph_save(actor=actor, workflow_id=workflow.id, graph_data=_chain_graph(1000))
    assert "graph" in caught.value.details
    assert WorkflowNode.objects.filter(version__workflow=workflow).count() == 2


def test_1000_node_graph_validates_to_one_size_error():
    errors = validate_graph(Graph.from_dict(_chain_graph(1000)))
    assert {e.code for e in errors} == {"GRAPH_TOO_LARGE"}  # nodes and edges; nothing else was walked


def test_graph_at_the_node_cap_is_validated_without_recursion():
    graph = Graph.from_dict(_chain_graph(MAX_NODES))
    with _recursion_headroom(60):  # far fewer frames than the path has nodes
        errors = validate_graph(graph)
    assert errors == []


# --- condition depth ------------------------------------------------------------------------------------
@pytest.mark.django_db
def test_condition_deeper_than_the_cap_is_refused(api):
    wid = api.post("/api/v1/workflows", {"name": "شرط"}, format="json").json()["id"]
    url = f"/api/v1/workflows/{wid}/graph"
    refused = api.put(url, _condition_graph(MAX_CONDITION_DEPTH + 1), format="json")
    assert refused.status_code == 400, refused.content
    assert refused.json()["error"]["code"] == "VALIDATION_ERROR"
    saved = api.put(url, _condition_graph(MAX_CONDITION_DEPTH), format="json")
    assert saved.status_code == 200, saved.content
    assert saved.json()["errors"] == []


def test_very_deep_condition_gives_a_size_error_not_a_recursion_error():
    graph = Graph.from_dict(_condition_graph(5000))
    errors = validate_graph(graph)
    assert [(e.node_key, e.code) for e in errors] == [("c", "CONDITION_TOO_LARGE")]
    assert len(tree_errors(_condition(5000))) == 1


def test_condition_checks_keep_document_order():
    tree = {
        "logic": "all",
        "rules": [
            {"field": "nope.a", "operator": "eq"},
            {"logic": "any", "rules": [{"field": "target.city", "operator": "bogus"}]},
            {"field": "target.city", "operator": "eq"},
            "junk",
        ],
    }
    assert tree_errors(tree) == ["فیلد «nope.a» ناشناخته است.", "عملگر «bogus» ناشناخته است.", "قاعده نامعتبر است."]


# --- execution events ----------------------------------------------------------------------------------
@pytest.mark.django_db
def test_execution_events_list_is_paginated_with_count_page_size(api, actor, workspace):
    setup_sms(workspace)
    campaign = journey(actor, linear_graph(sms_node("a"), end_node()))
    enroll_subjects(actor=actor, campaign_id=campaign.id, target_ids=[make_target(workspace).id])
    execution = Execution.objects.get(campaign=campaign)
    for minute in range(1, 5):
        ExecutionEvent.objects.create(
            workspace=workspace,
            execution=execution,
            campaign=campaign,
            subject_type=execution.subject_type,
            subject_id=execution.subject_id,
            type=EventType.PAUSED,
            occurred_at=execution.created_at + timedelta(minutes=minute),
        )
    url = f"/api/v1/executions/{execution.id}/events"
    page = api.get(url, {"page": 2, "size": 2}).json()
    assert (page["count"], page["page"], page["size"]) == (5, 2, 2)
    assert [e["type"] for e in page["results"]] == ["paused", "paused"]
    first = api.get(url, {"size": 2}).json()
    assert first["page"] == 1 and first["results"][0]["type"] == "enrolled"  # oldest first
    assert api.get(url, {"size": 200}).json()["size"] == 200
    assert api.get(url, {"size": 100000}).status_code == 400  # above the maximum: refused, not clamped


# --- scheduler tick -----------------------------------------------------------------------------------
@pytest.mark.django_db
def test_campaign_whose_processing_raises_does_not_stop_other_campaigns_in_the_same_tick(
    actor, workspace, monkeypatch, caplog
):
    setup_sms(workspace)
    with time_machine.travel(T0, tick=False):
        broken = journey(actor, linear_graph(sms_node("a"), end_node()))
        healthy = journey(actor, linear_graph(sms_node("a"), end_node()))
        for campaign in (broken, healthy):
            enroll_subjects(actor=actor, campaign_id=campaign.id, target_ids=[make_target(workspace).id])
    real = scheduler.effective_window
    secret = "+98912" + "7654321"  # stands for row data an exception message may carry

    def effective_window(campaign, *args):
        if campaign.id == broken.id:  # after this campaign's pending executions were activated
            raise RuntimeError(f"bad data: {secret}")
        return real(campaign, *args)

    monkeypatch.setattr(scheduler, "effective_window", effective_window)
    broken_before = Execution.objects.get(campaign=broken)
    with caplog.at_level(logging.ERROR, logger="automation.engine.scheduler"):
        report, batch = Driver().tick(T0 + timedelta(minutes=1))
    assert report.failed_campaigns == [broken.id]
    assert {Execution.objects.get(pk=pk).campaign_id for pk, _ in batch} == {healthy.id}
    assert Execution.objects.get(campaign=healthy).status == ExecutionStatus.COMPLETED
    assert SmsAttempt.objects.filter(campaign=healthy).count() == 1
    # The broken campaign's part of the tick rolled back as a whole; its failure is recorded with ids only.
    broken_after = Execution.objects.get(campaign=broken)
    assert (broken_after.status, broken_after.revision) == (broken_before.status, broken_before.revision)
    assert set(ExecutionEvent.objects.filter(execution=broken_after).values_list("type", flat=True)) == {"enrolled"}
    assert not SmsAttempt.objects.filter(campaign=broken).exists()
    event = CampaignEvent.objects.get(campaign=broken, type="tick_failed")
    assert event.data == {"step": "schedule", "error": "RuntimeError"}
    assert f"campaign {broken.id} (workspace {workspace.id})" in caplog.text
    assert secret not in caplog.text  # frames are logged, the exception's message is not
    Driver().tick(T0 + timedelta(minutes=2))  # the same failure again: no second event
    assert CampaignEvent.objects.filter(campaign=broken, type="tick_failed").count() == 1


@pytest.mark.django_db
def test_soft_time_limit_still_stops_the_tick(actor, workspace, monkeypatch):
    setup_sms(workspace)
    with time_machine.travel(T0, tick=False):
        campaign = journey(actor, linear_graph(sms_node("a"), end_node()))
        enroll_subjects(actor=actor, campaign_id=campaign.id, target_ids=[make_target(workspace).id])

    def out_of_time(*args, **kwargs):
        raise SoftTimeLimitExceeded()

    monkeypatch.setattr(scheduler, "effective_window", out_of_time)
    with pytest.raises(SoftTimeLimitExceeded):
        Driver().tick(T0 + timedelta(minutes=1))
    assert not CampaignEvent.objects.filter(type="tick_failed").exists()
