"""The builder's step-list model: compile to the engine graph, decompile back, undrawable graphs, problems."""

from __future__ import annotations

import copy
import dataclasses
import itertools

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from automation.builder import (
    Condition,
    End,
    Retry,
    Send,
    SequenceError,
    Start,
    Undrawable,
    Wait,
    WorkflowSequence,
    decompile,
    format_path,
    graphs_equivalent,
    parse_path,
    problems_by_step,
    try_decompile,
    validate_sequence,
)
from automation.engine.graph import Graph, graph_of_version
from automation.engine.validator import validate_graph
from automation.services.workflows import draft_of, with_fresh_keys, workflow_create, workflow_graph_save
from sms.workflow_templates import BUILTIN_TEMPLATES

from .helpers import end_node, linear_graph, sms_node, wait_node

PROPERTY = settings(max_examples=200, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])


def sms_step(key: str, body: str, **kwargs) -> Send:
    return Send.message(key, body, action="send_sms", **kwargs)


RULES = [{"field": "target.status", "operator": "in", "value": ["interested"]}]


# --- generated sequences -----------------------------------------------------------------------

json_scalars = st.none() | st.booleans() | st.integers(-1000, 1000) | st.text(max_size=8)
json_values = st.recursive(
    json_scalars,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=6,
)
configs = st.dictionaries(st.text(max_size=8), json_values, max_size=4)
names = st.text(max_size=12)


@st.composite
def any_sequences(draw):
    """Any shape the list can hold — open lists, empty branches, disabled steps, arbitrary configs."""
    counter = itertools.count(1)

    def key():
        return f"n{next(counter)}"

    def step_list(depth: int) -> list:
        steps = []
        for _ in range(draw(st.integers(0, 3))):
            kind = draw(st.sampled_from(["send", "wait"]))
            common = {"name": draw(names), "config": draw(configs), "enabled": draw(st.booleans())}
            if kind == "send":
                failure = step_list(depth - 1) if depth > 0 and draw(st.booleans()) else []
                action = draw(st.sampled_from(["send_sms", "create_followup"]))
                steps.append(Send(key=key(), action=action, on_failure=failure, **common))
            else:
                steps.append(Wait(key=key(), subtype=draw(st.sampled_from(["duration", "until"])), **common))
        closer = draw(st.sampled_from(["end", "condition", "open"] if depth > 0 else ["end", "open"]))
        common = {"name": draw(names), "config": draw(configs), "enabled": draw(st.booleans())}
        if closer == "end":
            subtype = draw(st.sampled_from(["complete", "stop", "loop", "restart"]))
            steps.append(End(key=key(), subtype=subtype, **common))
        elif closer == "condition":
            steps.append(Condition(key=key(), yes=step_list(depth - 1), no=step_list(depth - 1), **common))
        return steps

    start = Start(key=draw(st.sampled_from(["start", "s0"])), name=draw(names), config=draw(configs))
    settings_ = draw(st.dictionaries(st.text(max_size=8), json_values, max_size=2))
    return WorkflowSequence(steps=step_list(3), start=start, settings=settings_)


@st.composite
def valid_sequences(draw):
    """Complete sequences with valid configs: what a user can publish."""
    counter = itertools.count(1)
    loops = []

    def key():
        return f"n{next(counter)}"

    def sms():
        retry = Retry(max_attempts=draw(st.integers(0, 3)), on_exhausted=draw(st.sampled_from(["fail", "continue"])))
        body = draw(st.sampled_from(["سلام {target.first_name|دوست}", "یادآوری", "{campaign.name} منتظر شماست"]))
        return sms_step(key(), body, title=draw(names), retry=retry, on_missing_variable="blank")

    def step_list(depth: int) -> list:
        steps = []
        for _ in range(draw(st.integers(0, 3))):
            if draw(st.booleans()):
                failure = step_list(depth - 1) if depth > 0 and draw(st.booleans()) else []
                steps.append(dataclasses.replace(sms(), on_failure=failure))
            else:
                steps.append(Wait.duration(key(), draw(st.integers(1, 90)), draw(st.sampled_from(["hours", "days"]))))
        closer = draw(st.sampled_from(["complete", "stop", "loop", "restart", "condition"][: 5 if depth > 0 else 4]))
        if closer == "complete":
            steps.append(End.complete(key()))
        elif closer == "stop":
            steps.append(End.stop(key()))
        elif closer == "restart":
            steps.append(End.restart(key(), amount=draw(st.integers(1, 30)), max_cycles=draw(st.integers(1, 5))))
        elif closer == "loop":
            end = End.loop(key(), "PLACEHOLDER", amount=2, unit="hours", max_cycles=3)
            loops.append(end.key)
            steps.append(end)
        else:
            steps.append(Condition.when(key(), RULES, yes=step_list(depth - 1), no=step_list(depth - 1)))
        return steps

    steps = step_list(2)  # at most 125 nodes: within the validator's size cap
    sequence = WorkflowSequence(steps=steps)
    first = sequence.steps[0].key  # a loop goes back to the first step
    for path, step in list(sequence.walk()):
        if step.key in loops:
            sequence = sequence.replace_step(
                path, End(step.key, subtype="loop", config={**step.config, "to_node": first})
            )
    return sequence


@PROPERTY
@given(any_sequences())
def test_decompile_of_compile_is_the_same_sequence(sequence):
    assert decompile(sequence.compile()) == sequence
    assert WorkflowSequence.decompile(sequence.compile_graph()) == sequence


@PROPERTY
@given(valid_sequences())
def test_compiled_complete_sequences_pass_the_publish_validator(sequence):
    graph = sequence.compile()
    assert [e.as_dict() for e in validate_graph(Graph.from_dict(graph))] == []
    assert validate_sequence(sequence) == []
    assert decompile(graph) == sequence


# --- built-in templates --------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(BUILTIN_TEMPLATES))
def test_every_builtin_template_decompiles_and_recompiles_to_an_equivalent_graph(name):
    definition = BUILTIN_TEMPLATES[name]["definition"]
    sequence = decompile(definition)
    assert graphs_equivalent(sequence.compile(), definition)
    assert validate_graph(sequence.compile_graph()) == []
    fresh = with_fresh_keys(definition)  # as copied into a workspace
    assert graphs_equivalent(decompile(fresh).compile(), fresh)


def test_template_with_a_condition_reads_as_two_branch_lists():
    sequence = decompile(BUILTIN_TEMPLATES["follow_up_unless_interested"]["definition"])
    sms1, wait1, cond = sequence.steps
    assert (type(sms1), type(wait1), type(cond)) == (Send, Wait, Condition)
    assert [s.key for s in cond.yes] == ["end"]
    assert [s.key for s in cond.no] == ["sms2", "end2"]
    assert sms1.retry == Retry(max_attempts=2, on_exhausted="continue")
    assert sequence.path_of("sms2") == (2, "no", 0)


@pytest.mark.django_db
def test_a_saved_draft_reads_back_as_the_sequence_that_was_compiled(actor):
    workflow = workflow_create(actor=actor, name="سفر", template="three_step_intro")
    sequence = decompile(graph_of_version(draft_of(workflow)))
    # a condition before the last end: the end becomes its "yes" list, the "no" list is left open
    edited = sequence.insert_after((4,), Condition.when("c1", RULES, no=[sms_step("s_no", "پیام دیگر")]))
    assert edited.path_of(sequence.steps[-1].key) == (5, "yes", 0)
    _, errors = workflow_graph_save(actor=actor, workflow_id=workflow.id, graph_data=edited.compile())
    assert decompile(graph_of_version(draft_of(workflow))) == edited
    assert [(e.node_key, e.code) for e in errors] == [("s_no", "PORT_NOT_CONNECTED")]


# --- undrawable graphs ----------------------------------------------------------------------------


def _graph(nodes, edges):
    return {"nodes": [{"node_key": "start", "type": "start", "subtype": "manual"}, *nodes], "edges": edges}


def _e(a, b, port="default"):
    return {"from": a, "to": b, "port": port}


def test_a_cycle_of_plain_edges_is_undrawable_with_its_reason():
    cond = {"node_key": "c", "type": "condition", "subtype": "field_rules", "config": {"logic": "all", "rules": RULES}}
    graph = _graph(
        [sms_node("sms1"), wait_node("wait1"), cond, end_node("end")],
        [_e("start", "sms1"), _e("sms1", "wait1"), _e("wait1", "c"), _e("c", "end", "yes"), _e("c", "sms1", "no")],
    )
    assert validate_graph(Graph.from_dict(graph)) == []  # the engine runs it (the cycle has a timed wait)
    with pytest.raises(Undrawable) as info:
        decompile(graph)
    assert info.value.code == "CYCLE"
    assert "حلقه" in info.value.message


def test_a_shared_merge_point_is_undrawable():
    cond = {"node_key": "c", "type": "condition", "subtype": "field_rules", "config": {"logic": "all", "rules": RULES}}
    graph = _graph(
        [cond, sms_node("a"), sms_node("b"), end_node("end")],
        [_e("start", "c"), _e("c", "a", "yes"), _e("c", "b", "no"), _e("a", "end"), _e("b", "end")],
    )
    sequence, reason = try_decompile(graph)
    assert sequence is None
    assert (reason.code, reason.node_key) == ("MERGE_POINT", "end")
    assert reason.as_dict()["message"]


@pytest.mark.parametrize(
    ("graph", "code"),
    [
        (_graph([end_node("end"), end_node("x")], [_e("start", "end")]), "UNREACHABLE"),
        ({**_graph([end_node("end")], [_e("start", "end")]), "nodes": [end_node("end")]}, "START_COUNT"),
        (_graph([end_node("end"), sms_node("s")], [_e("start", "end"), _e("end", "s")]), "INVALID_PORT"),
        (_graph([wait_node("w"), end_node("end")], [_e("start", "w"), _e("w", "end", "yes")]), "INVALID_PORT"),
        (
            _graph(
                [sms_node("s"), end_node("a"), end_node("b")],
                [_e("start", "s"), _e("s", "a"), _e("s", "b", "success")],
            ),
            "SUCCESS_AND_DEFAULT",
        ),
        (_graph([end_node("end")], [_e("start", "end"), _e("start", "start")]), "DUPLICATE_PORT"),
        (_graph([sms_node("s")], [_e("start", "s"), _e("s", "start")]), "EDGE_TO_START"),
        (_graph([{"node_key": "x", "type": "goto", "subtype": "x"}], [_e("start", "x")]), "UNKNOWN_NODE_TYPE"),
        (_graph([end_node("end")], [_e("start", "nowhere")]), "EDGE_UNKNOWN_NODE"),
    ],
)
def test_graphs_the_list_cannot_draw_say_why(graph, code):
    with pytest.raises(Undrawable) as info:
        decompile(graph)
    assert info.value.code == code
    assert info.value.message


def test_loop_and_restart_ends_are_drawn():
    graph = linear_graph(sms_node("sms1"), wait_node("w"), end_node("end", "loop", to_node="sms1", max_cycles=2))
    sequence = decompile(graph)
    assert sequence.steps[-1].behavior == "loop"
    assert sequence.steps[-1].config["to_node"] == "sms1"


def test_success_port_reads_as_the_next_step_and_failure_as_its_own_list():
    graph = _graph(
        [sms_node("s"), sms_node("apology"), end_node("e1"), end_node("e2")],
        [_e("start", "s"), _e("s", "e1", "success"), _e("s", "apology", "failure"), _e("apology", "e2")],
    )
    sequence = decompile(graph)
    (send, end) = sequence.steps
    assert end.key == "e1"
    assert [s.key for s in send.on_failure] == ["apology", "e2"]
    assert graphs_equivalent(sequence.compile(), graph)
    assert sequence.path_of("e2") == (0, "failure", 1)


def test_decompiled_sequence_does_not_share_configs_with_the_graph():
    definition = copy.deepcopy(BUILTIN_TEMPLATES["single_message"]["definition"])
    sequence = decompile(definition)
    definition["nodes"][1]["config"]["body"] = "changed"
    assert sequence.steps[0].config["body"] != "changed"


# --- list rules and editing -----------------------------------------------------------------------


def test_an_end_or_condition_must_close_its_list():
    with pytest.raises(SequenceError):
        WorkflowSequence(steps=[End.complete("e"), sms_step("s", "x")])
    with pytest.raises(SequenceError):
        WorkflowSequence(steps=[Condition.when("c", RULES), Wait.duration("w", 1)])
    with pytest.raises(SequenceError):
        WorkflowSequence(steps=[sms_step("s", "x"), End.complete("s")])


def test_a_condition_inserted_before_steps_takes_them_as_its_yes_branch():
    sequence = WorkflowSequence(steps=[sms_step("s1", "a"), Wait.duration("w", 3), End.complete("e")])
    edited = sequence.insert_after((0,), Condition.when("c", RULES, no=[End.stop("e2")]))
    (s1, cond) = edited.steps
    assert s1.key == "s1"
    assert [s.key for s in cond.yes] == ["w", "e"]
    assert [s.key for s in cond.no] == ["e2"]
    with pytest.raises(SequenceError):
        sequence.insert_after((0,), End.complete("e3"))  # an end cannot sit before other steps
    assert edited.remove((1, "yes", 0)).path_of("e") == (1, "yes", 0)
    assert edited.remove((1,)).steps == (s1,)
    assert sequence.insert_after((), Wait.duration("w0", 1)).steps[0].key == "w0"
    with pytest.raises(SequenceError):
        sequence.step_at((0, "yes", 0))


def test_retry_editor_round_trip():
    send = sms_step("s", "x").with_retry(Retry(strategy="exponential", max_attempts=4, on_exhausted="skip_step"))
    assert send.retry == Retry(strategy="exponential", max_attempts=4, on_exhausted="skip_step")
    assert send.with_retry(None).retry is None
    assert send.send_only_in_window is True


def test_paths_format_and_parse():
    for path in [(), (0,), (2, "no", 0), (1, "failure", 3, "yes", 0)]:
        assert parse_path(format_path(path)) == path
    for bad in ["", "x", "1.maybe.0", "1.yes"]:
        with pytest.raises(SequenceError):
            parse_path(bad)


# --- validator problems on steps ------------------------------------------------------------------


def test_validator_problems_link_to_their_steps():
    sequence = WorkflowSequence(
        steps=[
            sms_step("s1", "سلام {target.first_name}"),
            Condition.when("c", RULES, yes=[End.complete("e")], no=[sms_step("s2", "{nope}"), Wait.duration("w", 0)]),
        ]
    )
    problems = validate_sequence(sequence)
    by_code = {(p.code, p.anchor) for p in problems}
    assert ("UNKNOWN_VARIABLE", "1.no.0") in by_code
    assert ("INVALID_WAIT", "1.no.1") in by_code
    assert ("PORT_NOT_CONNECTED", "1.no.1") in by_code  # the "no" list is still open
    assert all(p.path is not None for p in problems)


def test_problems_without_a_step_belong_to_the_whole_journey():
    sequence = WorkflowSequence(steps=[sms_step("s1", "x"), End.complete("e")])
    errors = [
        {"node_key": None, "code": "INVALID_SEND_WINDOW", "message": "…"},
        {"node_key": "e", "code": "X", "message": "…"},
        {"node_key": "start", "code": "Y", "message": "…"},
    ]
    placed = problems_by_step(sequence, errors)
    assert [(p.path, p.anchor) for p in placed] == [(None, ""), ((1,), "1"), ((), "start")]


def test_branches_nested_too_deep_for_the_list_are_refused_not_crashed():
    depth = 1500
    nodes = [
        {"node_key": f"c{i}", "type": "condition", "subtype": "field_rules", "config": {"logic": "all", "rules": RULES}}
        for i in range(depth)
    ] + [end_node(f"e{i}") for i in range(depth + 1)]
    edges = [_e("start", "c0")]
    for i in range(depth):
        edges += [_e(f"c{i}", f"c{i + 1}" if i + 1 < depth else f"e{depth}", "yes"), _e(f"c{i}", f"e{i}", "no")]
    sequence, reason = try_decompile(_graph(nodes, edges))
    assert sequence is None
    assert reason.code == "TOO_DEEP"


def test_a_new_wait_takes_the_nearest_timed_wait_above_it_else_the_journeys_first_else_one_day():
    from automation.builder.editing import journey_wait, new_step
    from automation.builder.sequence import Condition, End, Wait, WorkflowSequence

    seq = WorkflowSequence(
        steps=(
            sms_step("s1", "a"),
            Wait.duration("w1", 30, "days"),
            sms_step("s2", "b"),
            Wait.duration("w2", 6, "hours"),
            Condition.when(
                "c",
                [{"field": "target.status", "operator": "in", "value": ["new"]}],
                yes=(End.complete("e1"),),
                no=(sms_step("s3", "c"), End.complete("e2")),
            ),
        )
    )
    assert journey_wait(seq, (2,)) == (30, "days")  # after the first wait, before the second
    assert journey_wait(seq, (4, "no", 1)) == (6, "hours")  # inside a branch: the lists that hold it
    assert journey_wait(seq, (0,)) == (30, "days")  # nothing above: the journey's first wait
    assert journey_wait(WorkflowSequence(steps=(End.complete("e"),)), (0,)) == (1, "days")
    step = new_step("wait", sequence=seq, at=(4, "no", 0))
    assert step.config == {"mode": "duration", "amount": 6, "unit": "hours"}


@pytest.mark.parametrize("text", ["²", "0.yes.²", "9" * 5000])
def test_a_step_path_of_digits_int_refuses_is_not_a_step_path(text):
    # str.isdigit() takes them, int() refuses them: the builder's POST answered 500
    from automation.builder.sequence import SequenceError, parse_path

    with pytest.raises(SequenceError):
        parse_path(text)
