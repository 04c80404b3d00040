"""Node types come from one registry: a new type is one folder (handler + builder step) and one registration,
with no engine or builder change."""

from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import ClassVar

import pytest
import time_machine

from automation.builder import Undrawable, decompile, editing
from automation.builder.diff import version_diff
from automation.choices import EventType, ExecutionStatus, Port
from automation.engine.graph import Graph
from automation.engine.nodes import NODE_TYPES, NodeHandler, node_ports, node_type_choices
from automation.engine.nodes.step import Step, form_text
from automation.engine.validator import validate_graph
from automation.models import Execution, ExecutionEvent
from automation.services.enrollment import enroll_subjects
from tests.automation.helpers import Driver, end_node, journey, linear_graph
from tests.conftest import make_target

T0 = datetime(2026, 3, 1, 8, 0, tzinfo=UTC)


@dataclass(frozen=True)
class NoteStep(Step):
    """The builder's side of the type (its folder's ``step.py``)."""

    key: str
    name: str = ""
    subtype: str = "note"
    config: dict = field(default_factory=dict)
    enabled: bool = True

    node_type: ClassVar[str] = "note"
    kind: ClassVar[str] = "note"
    label: ClassVar[str] = "یادداشت"
    menu_label: ClassVar[str] = "یادداشت"
    menu_order: ClassVar[int] = 15
    editor_template: ClassVar[str] = "automation/_editor_note.html"

    @classmethod
    def new(cls, key):
        return cls(key=key, name="یادداشت", config={"text": ""})

    @classmethod
    def read(cls, node, common, ports, read_list):
        return cls(**common), ports.get(Port.DEFAULT)

    def summary(self):
        return self.config.get("text") or "(خالی)"

    @staticmethod
    def describe(node, config):
        return [("یادداشت", config.get("text", ""))]

    def from_form(self, data, *, name, enabled, timezone):
        return replace(self, name=name, enabled=enabled, config={"text": form_text(data, "text").strip()})


class NoteNode(NodeHandler):
    """A type the engine has never heard of: records a note and follows its default port."""

    key = "note"
    label = "یادداشت"
    ports = frozenset({Port.DEFAULT})
    step = NoteStep

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


def test_the_builder_draws_edits_and_compares_a_registered_type_from_its_folder(note_type):
    kinds = editing.step_kinds()
    assert ("note", "یادداشت", False) in kinds
    assert [k for k, *_ in kinds[-4:]] == ["wait", "note", "condition", "end"]  # menu_order places it
    sequence = decompile(linear_graph(note_node(text="اول"), end_node()))
    note = sequence.steps[0]
    assert isinstance(note, NoteStep) and note.config == {"text": "اول"}
    card = editing.step_cards(sequence, [])[0]
    assert (card.kind, card.badge, card.summary, card.editor_template) == (
        "note",
        "یادداشت",
        "اول",
        "automation/_editor_note.html",
    )
    assert card.add_after == "1"  # not a terminator: steps may follow it
    edited = editing.step_from_form(note, {"name": "یادداشت دوم", "text": " دوم "})
    changed = sequence.replace_step((0,), edited)
    assert decompile(changed.compile()) == changed
    [diff] = version_diff(Graph.from_dict(sequence.compile()), Graph.from_dict(changed.compile()))
    assert {(line.label, line.old, line.new) for line in diff.lines} >= {("یادداشت", "اول", "دوم")}
    assert isinstance(editing.new_step("note"), NoteStep)
    graph = linear_graph(note_node(), end_node())
    graph["edges"][1]["port"] = "yes"  # the handler's ports are the ones the builder draws
    with pytest.raises(Undrawable, match="درگاه"):
        decompile(graph)


def test_a_type_without_a_builder_step_is_shown_read_only(note_type):
    with NODE_TYPES.replaced("note", type("BareNote", (NoteNode,), {"step": None})()):
        with pytest.raises(Undrawable) as exc:
            decompile(linear_graph(note_node(), end_node()))
    assert exc.value.code == "UNKNOWN_NODE_TYPE"


def test_an_untitled_step_is_named_by_its_types_kind_never_its_key(note_type):
    from automation.choices import Port
    from automation.engine.nodes import step_display_name

    graph = linear_graph({**note_node(key="n_untitled"), "name": ""}, end_node())
    card = editing.step_cards(decompile(graph), [])[0]
    assert card.title == "یادداشت"
    assert step_display_name("note", "note", "") == "یادداشت"
    assert step_display_name("action", "send_sms", "") == editing.ACTIONS.get("send_sms").label
    assert step_display_name("wait", "duration", "  ") == "انتظار"
    assert step_display_name("no_such_type") == "گام"
    note_row = editing.graph_rows(Graph.from_dict(graph))[1]
    assert (note_row.title, note_row.kind) == ("یادداشت", "یادداشت")
    end_label = editing.step_type_label("end")
    assert note_row.links == [f"{Port.DEFAULT.label} ← ۳. {end_label}"] and "n_untitled" not in str(note_row)
