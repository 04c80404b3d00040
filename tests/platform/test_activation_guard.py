"""Only the campaign lifecycle applies Campaign status transitions and writes their events.

``campaigns/services/lifecycle.py`` runs the registered policies (chains: the approval/chain guard on every
start, chain control for a chain member's pause/resume/cancel) before each requested status change, and
the kind's effects after it. The test reads the source (AST) of every app module and fails when another
module applies an FSM transition to a Campaign itself, writes a ``status_changed`` event, or writes
``CampaignEvent`` rows outside ``campaigns/events.py`` — a path that would skip the policies or the effects.
"""

import ast
from pathlib import Path

from django.conf import settings

APPS = ("automation", "campaigns", "sms", "workers")
LIFECYCLE = "campaigns/services/lifecycle.py"
EVENTS = "campaigns/events.py"
WRITES = {"create", "bulk_create", "update", "get_or_create", "update_or_create", "delete"}


def _modules():
    base = Path(settings.BASE_DIR)
    for app in APPS:
        for path in sorted((base / app).rglob("*.py")):
            if "migrations" not in path.parts:
                yield path.relative_to(base).as_posix(), ast.parse(path.read_text(encoding="utf-8"))


def _called_name(call: ast.Call) -> str:
    func = call.func
    return func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""


def _functions(tree: ast.AST):
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            yield node


def _root_name(node: ast.AST) -> str:
    """``Model`` of ``Model.objects.filter(…).get()`` / ``get_scoped(Model, …)``; "" when unknown."""
    while isinstance(node, ast.Call | ast.Attribute):
        if isinstance(node, ast.Call):
            if _called_name(node) == "get_scoped" and node.args:
                return _root_name(node.args[0])
            node = node.func
        else:
            node = node.value
    return node.id if isinstance(node, ast.Name) else ""


def _bound_models(func: ast.FunctionDef, name: str) -> set[str]:
    """The model classes ``name`` is bound to in ``func`` (assignments and annotated parameters)."""
    models = set()
    for arg in func.args.args + func.args.kwonlyargs:
        if arg.arg == name and arg.annotation is not None:
            models.add(_root_name(arg.annotation))
    for node in ast.walk(func):
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in node.targets):
            models.add(_root_name(node.value))
    return models


def _fsm_calls():
    """(module, function, model names the instance may be) for every ``fsm_apply`` call."""
    for module, tree in _modules():
        for func in _functions(tree):
            for call in (n for n in ast.walk(func) if isinstance(n, ast.Call)):
                if _called_name(call) == "fsm_apply" and call.args:
                    arg = call.args[0]
                    models = _bound_models(func, arg.id) if isinstance(arg, ast.Name) else {""}
                    yield module, func.name, models or {""}


def test_only_the_lifecycle_applies_campaign_transitions():
    calls = list(_fsm_calls())
    assert any(m == LIFECYCLE for m, *_ in calls), "the scan must see the lifecycle's own compare-and-set"
    assert any(m == "workers/services/accounts.py" for m, *_ in calls), "the scan must see other models' FSMs"
    offending = [
        f"{module}:{func} (instance of {sorted(models)})"
        for module, func, models in calls
        if module != LIFECYCLE and (models & {"Campaign", ""})
    ]
    assert not offending, (
        "Campaign status changes go through campaigns.services.lifecycle.campaign_status_change; "
        "fsm_apply on a Campaign (or on an instance whose model the test cannot tell) in:\n" + "\n".join(offending)
    )


def test_only_the_lifecycle_writes_status_events_and_only_events_writes_campaign_events():
    offending = []
    for module, tree in _modules():
        for call in (n for n in ast.walk(tree) if isinstance(n, ast.Call)):
            name = _called_name(call)
            if name == "campaign_status_changed_event" and module not in (LIFECYCLE, EVENTS):
                offending.append(f"{module}: {name}")
            if name in WRITES and module != EVENTS and _root_name(call.func) == "CampaignEvent":
                offending.append(f"{module}: CampaignEvent.…{name}")
    assert not offending, "campaign events are written by campaigns/events.py only:\n" + "\n".join(offending)
