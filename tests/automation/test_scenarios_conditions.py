"""Routing through the graph: conditions, disabled nodes, the step budget (journeys.md "Tests")."""

from datetime import timedelta

import pytest
import time_machine

from automation.choices import EventType, ExecutionStatus
from automation.models import Execution, ExecutionEvent
from sms.models import SmsAttempt
from tests.conftest import make_target

from .helpers import (
    T0,
    CountingConsole,
    Driver,
    end_node,
    enroll,
    journey,
    linear_graph,
    setup_sms,
    sms_node,
)


@pytest.mark.django_db
def test_condition_routes_on_target_status(actor, workspace):
    setup_sms(workspace)
    graph = {
        "nodes": [
            {"node_key": "start", "type": "start", "subtype": "manual", "config": {}},
            {
                "node_key": "c",
                "type": "condition",
                "subtype": "field_rules",
                "config": {
                    "logic": "any",
                    "rules": [
                        {"field": "target.status", "operator": "in", "value": ["interested"]},
                        {"field": "target.attributes.vip", "operator": "eq", "value": True},
                    ],
                },
            },
            sms_node("yes", body="بله"),
            sms_node("no", body="خیر"),
            end_node("e1"),
            end_node("e2"),
        ],
        "edges": [
            {"from": "start", "to": "c", "port": "default"},
            {"from": "c", "to": "yes", "port": "yes"},
            {"from": "c", "to": "no", "port": "no"},
            {"from": "yes", "to": "e1", "port": "default"},
            {"from": "no", "to": "e2", "port": "default"},
        ],
        "settings": {},
    }
    with time_machine.travel(T0, tick=False):
        campaign = journey(actor, graph)
        a, b, c = (
            make_target(workspace, status="interested"),
            make_target(workspace, attributes={"vip": True}),
            make_target(workspace),
        )
        enroll(actor, campaign, [a, b, c])
    driver = Driver()
    driver.tick(T0 + timedelta(minutes=1))
    driver.tick(T0 + timedelta(minutes=2))
    texts = dict(SmsAttempt.objects.filter(campaign=campaign).values_list("subject_id", "message"))
    assert texts == {a.id: "بله", b.id: "بله", c.id: "خیر"}


@pytest.mark.django_db
def test_disabled_node_is_skipped_with_event(actor, workspace, monkeypatch):
    setup_sms(workspace)
    provider = CountingConsole(monkeypatch)
    disabled = sms_node("b")
    disabled["is_enabled"] = False
    with time_machine.travel(T0, tick=False):
        campaign = journey(actor, linear_graph(sms_node("a"), disabled, sms_node("c"), end_node()))
        enroll(actor, campaign, [make_target(workspace)])
    driver = Driver()
    for minutes in (1, 2, 3):
        driver.tick(T0 + timedelta(minutes=minutes))
    execution = Execution.objects.get(campaign=campaign)
    assert execution.status == ExecutionStatus.COMPLETED
    assert len(provider.calls) == 2
    skipped = ExecutionEvent.objects.get(execution=execution, type=EventType.SKIPPED)
    assert skipped.node.node_key == "b"


@pytest.mark.django_db
def test_step_budget_limits_nodes_per_job(actor, workspace):
    """A chain of 60 conditions is walked in two jobs (≤ 50 nodes each)."""
    setup_sms(workspace)
    nodes = [
        {
            "node_key": f"c{i}",
            "type": "condition",
            "subtype": "field_rules",
            "config": {"logic": "all", "rules": [{"field": "execution.cycle", "operator": "gte", "value": 1}]},
        }
        for i in range(60)
    ]
    edges = [{"from": "start", "to": "c0", "port": "default"}]
    edges += [{"from": f"c{i}", "to": f"c{i + 1}", "port": "yes"} for i in range(59)]
    edges += [{"from": "c59", "to": "end", "port": "yes"}]
    edges += [{"from": f"c{i}", "to": "end", "port": "no"} for i in range(60)]
    nodes.append(end_node())
    graph = {
        "nodes": [{"node_key": "start", "type": "start", "subtype": "manual", "config": {}}, *nodes],
        "edges": edges,
        "settings": {},
    }
    with time_machine.travel(T0, tick=False):
        campaign = journey(actor, graph)
        enroll(actor, campaign, [make_target(workspace)])
    driver = Driver()
    driver.tick(T0 + timedelta(minutes=1))
    execution = Execution.objects.get(campaign=campaign)
    assert execution.status == ExecutionStatus.ACTIVE
    assert execution.current_node.node_key == "c50"
    driver.tick(T0 + timedelta(minutes=2))
    execution.refresh_from_db()
    assert execution.status == ExecutionStatus.COMPLETED
