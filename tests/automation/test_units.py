"""Pure pieces: SendWindow, variables, conditions, retry strategies, GraphValidator."""

from datetime import UTC, datetime, timedelta
from types import SimpleNamespace
from zoneinfo import ZoneInfo

import pytest

from automation.engine.conditions import evaluate
from automation.engine.graph import Graph
from automation.engine.registry import RETRY_STRATEGIES
from automation.engine.validator import validate_graph
from automation.engine.variables import render, unknown_variables
from automation.engine.window import SendWindow, WindowError
from automation.services.workflows import with_fresh_keys
from sms.workflow_templates import BUILTIN_TEMPLATES

from .helpers import WINDOW_9_18, end_node, linear_graph, sms_node, wait_node

TEHRAN = ZoneInfo("Asia/Tehran")


# --- SendWindow ------------------------------------------------------------------------------------
def test_window_open_and_next_opening_in_tehran():
    window = SendWindow.from_config(WINDOW_9_18)
    assert window.is_open(datetime(2026, 11, 1, 10, 0, tzinfo=TEHRAN))
    assert not window.is_open(datetime(2026, 11, 1, 18, 0, tzinfo=TEHRAN))
    assert window.next_open_at(datetime(2026, 11, 1, 23, 0, tzinfo=TEHRAN)) == datetime(
        2026, 11, 2, 9, 0, tzinfo=TEHRAN
    )
    moment = datetime(2026, 11, 1, 12, 0, tzinfo=TEHRAN)
    assert window.next_open_at(moment) == moment


def test_window_several_intervals_closed_days_and_friday():
    window = SendWindow.from_config(
        {"timezone": "Asia/Tehran", "days": {"sat": [["09:00", "12:00"], ["16:00", "19:00"]], "fri": None}}
    )
    saturday_lunch = datetime(2026, 10, 31, 13, 0, tzinfo=TEHRAN)  # 2026-10-31 is a Saturday
    assert not window.is_open(saturday_lunch)
    assert window.next_open_at(saturday_lunch) == datetime(2026, 10, 31, 16, 0, tzinfo=TEHRAN)
    assert window.next_open_at(datetime(2026, 10, 31, 20, 0, tzinfo=TEHRAN)) == datetime(
        2026, 11, 7, 9, 0, tzinfo=TEHRAN
    )


def test_window_rejects_midnight_crossing_and_overlaps():
    with pytest.raises(WindowError):
        SendWindow.from_config({"days": {"sat": [["22:00", "02:00"]]}})
    with pytest.raises(WindowError):
        SendWindow.from_config({"days": {"sat": [["09:00", "12:00"], ["11:00", "13:00"]]}})
    with pytest.raises(WindowError):
        SendWindow.from_config({"timezone": "Mars/Base", "days": {}})


@pytest.mark.parametrize(
    "config",
    [
        {"timezone": 6.2e16, "days": {"sat": [["09:00", "17:00"]]}},
        {"days": ["sat"]},
        {"days": {"thu": "then"}},
        {"days": {"sat": 5}},
    ],
)
def test_window_of_the_wrong_json_types_is_a_window_error(config):
    """A time zone that is not text, days that are not an object of lists: refused (a 400), never a crash."""
    with pytest.raises(WindowError):
        SendWindow.from_config(config)


def test_window_dst_gap_and_other_zone():
    window = SendWindow.from_config({"timezone": "Europe/Berlin", "days": {"sun": [["02:30", "04:00"]]}})
    # 2026-03-29 02:30 does not exist in Berlin (clocks jump 02:00 → 03:00): opening is the gap's end.
    opening = window.next_open_at(datetime(2026, 3, 28, 23, 0, tzinfo=UTC))
    assert opening == datetime(2026, 3, 29, 1, 0, tzinfo=UTC)  # 03:00 CEST
    assert window.is_open(opening)
    ny = SendWindow.from_config({"timezone": "America/New_York", "days": {"sun": [["09:00", "17:00"]]}})
    # After the November fall-back, 09:00 local is 14:00 UTC.
    assert ny.next_open_at(datetime(2026, 11, 1, 0, 0, tzinfo=UTC)) == datetime(2026, 11, 1, 14, 0, tzinfo=UTC)


# --- variables --------------------------------------------------------------------------------------
def _scope(**target):
    base = {
        "first_name": "",
        "last_name": "",
        "name": "",
        "city": "",
        "province": "",
        "mobile": "+989121234567",
        "landline": None,
    }
    return SimpleNamespace(
        subject=SimpleNamespace(**{**base, **target}), campaign=SimpleNamespace(name="ک"), execution=None
    )


def test_variables_short_names_defaults_and_fallback():
    scope = _scope(name="شرکت نمونه", city="")
    assert render("سلام {target.first_name}", scope).text == "سلام شرکت نمونه"  # whole name, never split
    assert render("{first_name} از {city|شهر شما}", _scope(first_name="علی")).text == "علی از شهر شما"
    assert render("{phone}", scope).text == "0912 123 4567"
    missing = render("سلام {city} عزیز", scope, on_missing="skip")
    assert missing.missing == ["city"]


def test_unknown_variables_are_listed():
    assert unknown_variables("{target.first_name} {foo.bar} {x|y}") == ["foo.bar", "x"]


# --- conditions -------------------------------------------------------------------------------------
def test_condition_tree_all_any_nested():
    ctx = SimpleNamespace(
        subject=SimpleNamespace(status="interested", priority=3, attributes={"plan": "gold"}),
        execution=SimpleNamespace(cycle=2, metadata={"last_action_status": "success", "score": 7}),
    )
    tree = {
        "logic": "all",
        "rules": [
            {"field": "target.status", "operator": "in", "value": ["interested", "converted"]},
            {
                "logic": "any",
                "rules": [
                    {"field": "target.priority", "operator": "gt", "value": 5},
                    {"field": "target.attributes.plan", "operator": "eq", "value": "gold"},
                ],
            },
            {"field": "execution.metadata.score", "operator": "gte", "value": 7},
            {"field": "last_action.status", "operator": "eq", "value": "success"},
        ],
    }
    assert evaluate(tree, ctx) is True
    tree["rules"].append({"field": "execution.cycle", "operator": "lt", "value": 2})
    assert evaluate(tree, ctx) is False


# --- retry ------------------------------------------------------------------------------------------
def test_retry_strategies_bounds():
    fixed, exp = RETRY_STRATEGIES.get("fixed"), RETRY_STRATEGIES.get("exponential")
    assert fixed.delay_seconds(3, {"interval_seconds": 900}) == 900
    assert [exp.delay_seconds(n, {"interval_seconds": 900}) for n in (1, 2, 3)] == [900, 1800, 3600]
    assert exp.delay_seconds(1, {"interval_seconds": 10}) == 60
    assert exp.delay_seconds(20, {"interval_seconds": 900}) == 86400


# --- validator --------------------------------------------------------------------------------------
def _codes(graph):
    return {(e.node_key, e.code) for e in validate_graph(Graph.from_dict(graph))}


def test_valid_graph_and_builtin_templates_validate():
    assert _codes(linear_graph(sms_node("a"), wait_node("w"), sms_node("b"), end_node())) == set()
    for template in BUILTIN_TEMPLATES.values():
        assert _codes(with_fresh_keys(template["definition"])) == set()


def test_fresh_keys_are_new_and_consistent():
    copy = with_fresh_keys(BUILTIN_TEMPLATES["three_step_intro"]["definition"])
    keys = {n["node_key"] for n in copy["nodes"]}
    assert "sms1" not in keys and len(keys) == 7
    assert all(e["from"] in keys and e["to"] in keys for e in copy["edges"])


def test_validator_rules():
    graph = linear_graph(sms_node("a", body="سلام {nope}"), end_node())
    graph["nodes"].append(
        {
            "node_key": "orphan",
            "type": "wait",
            "subtype": "duration",
            "config": {"mode": "duration", "amount": 1, "unit": "days"},
        }
    )
    codes = _codes(graph)
    assert ("a", "UNKNOWN_VARIABLE") in codes
    assert ("orphan", "UNREACHABLE") in codes
    assert ("orphan", "PORT_NOT_CONNECTED") in codes
    graph["nodes"].append({"node_key": "start2", "type": "start", "subtype": "manual", "config": {}})
    assert (None, "START_COUNT") in _codes(graph)
    no_end = {
        "nodes": [{"node_key": "start", "type": "start", "subtype": "manual", "config": {}}],
        "edges": [],
        "settings": {},
    }
    assert (None, "NO_END") in _codes(no_end)


def test_validator_cycles_loops_goto_and_configs():
    cyclic = linear_graph(sms_node("a"), sms_node("b"), end_node())
    cyclic["edges"] = [e for e in cyclic["edges"] if e["from"] != "b"] + [{"from": "b", "to": "a", "port": "success"}]
    assert any(code == "CYCLE_WITHOUT_WAIT" for _, code in _codes(cyclic))
    with_wait = linear_graph(sms_node("a"), wait_node("w"), end_node())
    with_wait["edges"] = [e for e in with_wait["edges"] if e["from"] != "w"] + [
        {"from": "w", "to": "a", "port": "default"}
    ]
    assert not any(code == "CYCLE_WITHOUT_WAIT" for _, code in _codes(with_wait))
    fast_loop = linear_graph(sms_node("a"), end_node("l", "loop", to_node="a", delay={"amount": 10, "unit": "minutes"}))
    assert {("l", "LOOP_DELAY"), ("l", "LOOP_MAX_CYCLES")} <= _codes(fast_loop)
    goto = linear_graph(end_node("g", "goto_workflow"))
    assert ("g", "GOTO_WORKFLOW_RESERVED") in _codes(goto)
    bad = linear_graph(sms_node("a", body="", retry={"strategy": "random"}), end_node())
    assert {("a", "INVALID_ACTION_CONFIG"), ("a", "INVALID_RETRY")} <= _codes(bad)
    cond = {
        "nodes": [
            {"node_key": "start", "type": "start", "subtype": "manual", "config": {}},
            {
                "node_key": "c",
                "type": "condition",
                "subtype": "field_rules",
                "config": {"logic": "all", "rules": [{"field": "target.shoe", "operator": "eq"}]},
            },
            end_node(),
        ],
        "edges": [{"from": "start", "to": "c"}, {"from": "c", "to": "end", "port": "yes"}],
        "settings": {},
    }
    codes = _codes(cond)
    assert ("c", "INVALID_CONDITION") in codes and ("c", "PORT_NOT_CONNECTED") in codes
    bad_action = linear_graph({"node_key": "x", "type": "action", "subtype": "fax", "config": {}}, end_node())
    assert ("x", "UNKNOWN_ACTION") in _codes(bad_action)
    assert (None, "INVALID_SEND_WINDOW") in _codes(
        linear_graph(end_node(), settings={"send_window": {"days": {"sat": [["9", "x"]]}}})
    )


def test_wait_past_until_validates():
    node = {
        "node_key": "w",
        "type": "wait",
        "subtype": "until",
        "config": {"mode": "until", "at": (datetime.now() - timedelta(days=3)).isoformat(), "timezone": "Asia/Tehran"},
    }
    assert _codes(linear_graph(node, end_node())) == set()


# --- the collector while a job runs ------------------------------------------------------------------
def test_a_batch_runs_with_the_cyclic_collector_paused_and_leaves_it_as_it_was(monkeypatch):
    import gc

    from automation.engine import batch

    seen = []
    monkeypatch.setattr(batch.connection, "vendor", "postgresql")
    monkeypatch.setattr(batch, "process_batch_postgres", lambda items, now: seen.append(gc.isenabled()) or {})
    assert gc.isenabled()
    batch.process_batch([(1, "a"), (2, "b")], now=datetime(2026, 1, 1, tzinfo=UTC))
    assert seen == [False] and gc.isenabled()
    gc.disable()
    try:
        batch.process_batch([(1, "a"), (2, "b")], now=datetime(2026, 1, 1, tzinfo=UTC))
        assert not gc.isenabled()  # off before, off after
    finally:
        gc.enable()
