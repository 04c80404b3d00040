"""Inside an app no module imports from a layer above its own: models < selectors < services < api / views.

A module's layer comes from its name: ``models``/``*_models`` (0), ``selectors``/``*_selectors`` (1),
``services``/``services/`` (2), ``api/``, ``views``/``*_views`` and ``admin`` (3); other modules (choices,
errors, events, the engine, tasks …) are not placed. Imports inside functions count too.
"""

import ast
from pathlib import Path

from django.conf import settings

APPS = ("automation", "campaigns", "sms", "workers")
NAMES = ("models", "selectors", "services", "api / views")
KNOWN: set[tuple[str, str]] = set()  # (module, imported name) pairs allowed for now: none


def layer(module: str) -> int | None:
    parts = module.split(".")
    last = parts[-1]
    if "api" in parts[1:] or last in ("views", "admin") or last.endswith("_views"):
        return 3
    if "services" in parts[1:]:
        return 2
    if last == "selectors" or last.endswith("_selectors"):
        return 1
    if "models" in parts[1:] or last.endswith("_models"):
        return 0
    return None


def _imports(tree: ast.AST):
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            yield node.lineno, [node.module, *(f"{node.module}.{alias.name}" for alias in node.names)]
        elif isinstance(node, ast.Import):
            yield node.lineno, [alias.name for alias in node.names]


def upward_imports() -> list[tuple[str, str, int]]:
    base = Path(settings.BASE_DIR)
    found = []
    for app in APPS:
        for path in sorted((base / app).rglob("*.py")):
            if {"migrations", "management"} & set(path.parts):
                continue
            parts = path.relative_to(base).with_suffix("").parts
            module = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
            own = layer(module)
            if own is None:
                continue
            for line, names in _imports(ast.parse(path.read_text(encoding="utf-8"))):
                for name in names:
                    target = layer(name)
                    if name.split(".")[0] == app and target is not None and target > own:
                        found.append((module, name, line))
                        break
    return found


def test_the_layers_are_told_apart():
    assert [layer(m) for m in ("sms.models", "sms.selectors", "sms.services", "sms.api.views")] == [0, 1, 2, 3]
    assert layer("campaigns.chains.services.approval") == 2 and layer("automation.workflow_selectors") == 1


def test_no_module_imports_from_a_layer_above_it():
    found = upward_imports()
    offending = [f"{m} ({NAMES[layer(m)]}) imports {t} line {line}" for m, t, line in found if (m, t) not in KNOWN]
    assert not offending, "a lower layer imports a higher one:\n" + "\n".join(offending)
    assert {(m, t) for m, t, _ in found} >= KNOWN, "a known exception is gone: remove it from KNOWN"
