"""Every path that starts a campaign goes through the one approval/chain guard.

The test reads the source (AST) of every app module and finds each place that applies a Campaign FSM
transition that starts a campaign — a transition into ``active``, or from ``draft`` straight to
``scheduled`` (which the lifecycle job later turns active) — through ``fsm_apply`` or a helper that
passes a transition name on to it. The function doing so must call the guard itself:

* ``assert_can_activate_directly`` for a start (chain members → 409 ``CHAIN_MEMBER``, workspaces whose
  campaigns need approval → 409 ``APPROVAL_REQUIRED``);
* ``route_campaign_control`` for a resume (a chain member's resume → chain control / 409);

or be listed in ``SYSTEM_PATHS`` with the reason it needs no guard (it only continues what a guarded
path or an approval already allowed). A new activation path without the guard fails here.
"""

import ast
from pathlib import Path

from django.conf import settings

from campaigns.choices import CampaignStatus
from campaigns.models import Campaign

APPS = ("automation", "campaigns", "sms", "workers")
START_GUARD = "assert_can_activate_directly"
RESUME_GUARD = "route_campaign_control"

# (module, function) → why it may start a campaign without calling the guard itself.
SYSTEM_PATHS = {
    ("automation/engine/scheduler.py", "run_lifecycle"): "scheduled → active at starts_at; only the guarded "
    "schedule or an approval makes a journey campaign scheduled",
    ("workers/services/creation.py", "scheduled_campaigns_activate"): "scheduled → active at the platform's "
    "start date; the browser create that scheduled it is guarded",
    ("campaigns/chains/services/approval.py", "package_approve"): "the chain approval itself",
    ("campaigns/chains/runs/dispatch.py", "_campaign_started"): "a run of an approved chain package",
    ("campaigns/chains/runs/completion.py", "_finish"): "closing a run of an approved chain package",
    ("campaigns/chains/runs/control.py", "chain_control_effects"): "the chain control resumes are routed to",
}


def _starting_transitions() -> tuple[set[str], set[str]]:
    """(transitions that start a campaign, transitions that resume one), from the model's FSM."""
    field = Campaign._meta.get_field("status")
    start, resume = set(), set()
    for t in field.get_all_transitions(Campaign):
        if t.target == CampaignStatus.ACTIVE and t.source == CampaignStatus.PAUSED:
            resume.add(t.name)
        elif t.target == CampaignStatus.ACTIVE or (
            t.target == CampaignStatus.SCHEDULED and t.source == CampaignStatus.DRAFT
        ):
            start.add(t.name)
    return start, resume


def _strings(node: ast.AST) -> set[str]:
    """String constants an argument may evaluate to (``"a"``, ``"a" if x else "b"``)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return {node.value}
    if isinstance(node, ast.IfExp):
        return _strings(node.body) | _strings(node.orelse)
    return set()


def _called_name(call: ast.Call) -> str:
    func = call.func
    return func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""


def _modules():
    base = Path(settings.BASE_DIR)
    for app in APPS:
        for path in sorted((base / app).rglob("*.py")):
            if "migrations" not in path.parts:
                yield path.relative_to(base).as_posix(), ast.parse(path.read_text(encoding="utf-8"))


def _functions(tree: ast.AST):
    """Top-level functions and methods (nested functions and lambdas belong to their outer function)."""
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef | ast.Module):
            for child in node.body:
                if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
                    yield child


def _wrappers(modules) -> set[str]:
    """Functions that hand a transition name they received on to ``fsm_apply`` (``_apply(c, "activate")``)."""
    names = set()
    for _, tree in modules:
        for func in _functions(tree):
            params = {a.arg for a in func.args.args + func.args.kwonlyargs}
            for call in (n for n in ast.walk(func) if isinstance(n, ast.Call)):
                if _called_name(call) == "fsm_apply" and len(call.args) > 1:
                    arg = call.args[1]
                    if isinstance(arg, ast.Name) and arg.id in params:
                        names.add(func.name)
    return names


def _activation_sites():
    """(module, function, transition names, names the function calls) for every starting/resuming call."""
    modules = list(_modules())
    appliers = {"fsm_apply"} | _wrappers(modules)
    start, resume = _starting_transitions()
    for module, tree in modules:
        for func in _functions(tree):
            calls = [n for n in ast.walk(func) if isinstance(n, ast.Call)]
            called = {_called_name(c) for c in calls}
            for call in calls:
                if _called_name(call) not in appliers:
                    continue
                args = [*call.args, *(k.value for k in call.keywords)]
                names = set().union(*(_strings(a) for a in args)) & (start | resume)
                if names:
                    yield module, func.name, names & start, names & resume, called


def test_finds_the_known_activation_paths():
    """The scan sees the paths it must see (a scan that finds nothing would pass for nothing)."""
    found = {(m, f) for m, f, *_ in _activation_sites()}
    assert ("automation/services/campaigns.py", "journey_campaign_transition") in found
    assert ("workers/services/creation.py", "scheduled_campaigns_activate") in found
    assert any(m == "workers/services/campaigns.py" for m, _ in found)  # browser create
    start, resume = _starting_transitions()
    assert {"activate", "schedule"} <= start and resume == {"resume"}


def test_every_activation_path_calls_the_guard():
    missing = []
    for module, func, starts, resumes, called in _activation_sites():
        if (module, func) in SYSTEM_PATHS:
            continue
        if starts and START_GUARD not in called:
            missing.append(f"{module}:{func} applies {sorted(starts)} without {START_GUARD}")
        if resumes and RESUME_GUARD not in called:
            missing.append(f"{module}:{func} applies {sorted(resumes)} without {RESUME_GUARD}")
    assert not missing, "activation paths that skip the approval/chain guard:\n" + "\n".join(missing)


def test_system_paths_still_exist():
    """An allowance for a function that no longer activates anything is removed, not kept silently."""
    found = {(m, f) for m, f, *_ in _activation_sites()}
    stale = sorted(set(SYSTEM_PATHS) - found)
    assert not stale, f"SYSTEM_PATHS names paths that no longer start a campaign: {stale}"
