"""Node types come from one registry: a new type is one handler + one registration, no engine change."""

from datetime import UTC, datetime

import pytest
import time_machine

from automation.choices import EventType, ExecutionStatus, Port
from automation.engine.graph import Graph
from automation.engine.nodes import NODE_TYPES, NodeHandler, node_ports, node_type_choices
from automation.engine.validator import validate_graph
from automation.models import Execution, ExecutionEvent
from automation.services.enrollment import enroll_subjects
from tests.automation.helpers import Driver, end_node, journey, linear_graph
from tests.conftest import make_target

T0 = datetime(2026, 3, 1, 8, 0, tzinfo=UTC)


class NoteNode(NodeHandler):
    """A type the engine has never heard of: records a note and follows its default port."""

    key = "note"
    label = "یادداشت"
    ports = frozenset({Port.DEFAULT})

    def validate(self, node, config, check) -> None:
        if not str(config.get("text") or "").strip():
            check.add(node, "NOTE_EMPTY", "متن یادداشت لازم است.")
        check.require(node, Port.DEFAULT)

    def run(self, run, node, step):
        run.event(EventType.NODE_ENTERED, node, node.config["text"])
        return run.after_move(run.move(node, Port.DEFAULT), step)


def note_node(key="note1", text="سلام"):
    return {"node_key": key, "type": "note", "subtype": "note", "config": {"text": text}}


@pytest.fixture
def note_type():
    with NODE_TYPES.added("note", NoteNode()):
        yield


def test_the_built_in_types_are_registered_with_their_ports():
    assert {key for key, _ in node_type_choices()} >= {"start", "action", "wait", "condition", "end"}
    assert node_ports("condition") == {"yes", "no"} and node_ports("end") == frozenset()
    assert node_ports("no_such_type") == frozenset()


def test_an_unregistered_type_is_refused_at_publish():
    errors = validate_graph(Graph.from_dict(linear_graph(note_node(), end_node())))
    assert "UNKNOWN_NODE_TYPE" in {e.code for e in errors}


def test_a_registered_type_is_validated_by_its_handler(note_type):
    errors = validate_graph(Graph.from_dict(linear_graph(note_node(text=" "), end_node())))
    assert [(e.node_key, e.code) for e in errors] == [("note1", "NOTE_EMPTY")]
    graph = linear_graph(note_node(), end_node())
    graph["edges"][1]["port"] = "yes"  # a port the type does not declare
    assert "INVALID_PORT" in {e.code for e in validate_graph(Graph.from_dict(graph))}


@pytest.mark.django_db
def test_a_registered_type_is_published_and_run_without_an_engine_change(note_type, actor, workspace, api):
    with time_machine.travel(T0, tick=False):
        campaign = journey(actor, linear_graph(note_node(text="یادداشت آزمایشی"), end_node()))
        target = make_target(workspace)
        enroll_subjects(actor=actor, campaign_id=campaign.id, target_ids=[target.id])
    Driver().tick(T0)
    execution = Execution.objects.get(campaign=campaign)
    assert execution.status == ExecutionStatus.COMPLETED
    assert ExecutionEvent.objects.filter(execution=execution, message="یادداشت آزمایشی").exists()
    catalog = api.get("/api/v1/automation/catalog").json()
    assert {"key": "note", "label": "یادداشت", "ports": ["default"]} in catalog["node_types"]
