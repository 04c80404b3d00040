"""Only the system paths named in ``campaigns.services.lifecycle.UNGUARDED`` change a Campaign's status with
``guarded=False`` (skipping the policies and the approval gate), each with its reason.

A person's request always passes the registered policies (chains: approval, chain membership); the paths
below only continue what a request or an approval already allowed. The scan reads every app module (AST)
and fails on any other call of the lifecycle with ``guarded`` not literally ``True``, or with ``**kwargs``.
"""

import ast

from campaigns.services.lifecycle import UNGUARDED
from tests.platform.test_activation_guard import LIFECYCLE, _called_name, _modules

CALLS = {"campaign_status_change", "campaign_status_change_all"}
ALLOWED = UNGUARDED  # each path and why it skips the policies: campaigns.services.lifecycle


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
    assert not unexpected, "guarded=False outside the system paths of campaigns.services.lifecycle.UNGUARDED:\n" + (
        "\n".join(f"{m}:{f}" for m, f in unexpected)
    )
    assert not set(ALLOWED) - found, f"listed paths that no longer skip the policies: {set(ALLOWED) - found}"
