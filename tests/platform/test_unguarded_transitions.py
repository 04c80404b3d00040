"""Only the listed system paths change a Campaign's status with ``guarded=False`` (skipping the policies).

A person's request always passes the registered policies (chains: approval, chain membership); the paths
below only continue what a request or an approval already allowed. The scan reads every app module (AST)
and fails on any other call of the lifecycle with ``guarded`` not literally ``True``, or with ``**kwargs``.
"""

import ast

from tests.platform.test_activation_guard import LIFECYCLE, _called_name, _modules

CALLS = {"campaign_status_change", "campaign_status_change_all"}
ALLOWED = {
    ("automation/engine/scheduler.py", "_campaign_transition"): "the journey scheduler at starts_at / ends_at",
    ("workers/services/creation.py", "scheduled_campaigns_activate"): "the browser creation job at the start date",
    ("workers/services/campaigns.py", "campaign_follow_platforms"): "a browser campaign follows its platforms",
    ("campaigns/chains/services/approval.py", "campaign_submit"): "a chain submits as one package",
    ("campaigns/chains/services/approval.py", "_single_submit"): "single approval's own submit",
    ("campaigns/chains/services/approval.py", "package_approve"): "chain approval",
    ("campaigns/chains/services/approval.py", "_close"): "chain approval: reject / withdraw a package",
    ("campaigns/chains/services/approval.py", "_single_decide"): "single approval's decision",
    ("campaigns/chains/services/common.py", "withdraw_current_package"): "an edit returns a package to draft",
    ("campaigns/chains/runs/dispatch.py", "_campaign_started"): "the first chain run starts its campaign",
    ("campaigns/chains/runs/completion.py", "_finish"): "the chain's schedule is exhausted",
    ("campaigns/chains/runs/control.py", "chain_control_effects"): "chain control (pause / resume / stop)",
}


def _unguarded_calls():
    for module, tree in _modules():
        if module == LIFECYCLE:
            continue
        for func in (n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)):
            for call in (n for n in ast.walk(func) if isinstance(n, ast.Call) and _called_name(n) in CALLS):
                guard = next((k.value for k in call.keywords if k.arg == "guarded"), None)
                spread = any(k.arg is None for k in call.keywords)
                if spread or (guard is not None and not (isinstance(guard, ast.Constant) and guard.value is True)):
                    yield module, func.name


def test_only_listed_system_paths_skip_the_policies():
    found = set(_unguarded_calls())
    assert len(found) >= 8, "the scan must see the system paths"
    unexpected = sorted(found - set(ALLOWED))
    assert not unexpected, "guarded=False outside the listed system paths (tests/platform/" + (
        "test_unguarded_transitions.py ALLOWED):\n" + "\n".join(f"{m}:{f}" for m, f in unexpected)
    )
    assert not set(ALLOWED) - found, f"listed paths that no longer skip the policies: {set(ALLOWED) - found}"
