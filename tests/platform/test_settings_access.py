"""Settings are read one way: ``settings.NAME`` (or a small accessor over it), defaults only in config/settings/
(and each app's own settings module, ``automation/settings.py``, ``sms/settings.py`` …).

The test reads the source (AST) of every app module and fails on a ``getattr(settings, "NAME", default)`` — a
second default that drifts from the one ``config/settings/`` declares — and on a ``settings.NAME`` that no
settings module defines (a typo reads nothing and fails only at run time).
"""

import ast

from django.conf import global_settings, settings

from .test_activation_guard import _modules  # every app module's AST

SETTINGS_NAMES = {"settings", "django_settings"}


def _is_settings(node: ast.AST) -> bool:
    return isinstance(node, ast.Name) and node.id in SETTINGS_NAMES


def _django_settings_aliases(tree: ast.AST) -> set[str]:
    """The names ``django.conf.settings`` is imported as in this module (a local ``settings`` may be a model)."""
    return {
        alias.asname or alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and node.module == "django.conf"
        for alias in node.names
        if alias.name == "settings"
    }


def test_no_getattr_defaults_for_settings():
    offending = [
        f"{module}:{node.lineno}"
        for module, tree in _modules()
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id in {"getattr", "hasattr"}
        and node.args
        and _is_settings(node.args[0])
        and node.args[0].id in _django_settings_aliases(tree)
    ]
    assert not offending, "read settings.NAME; the default belongs in config/settings/:\n" + "\n".join(offending)


def test_every_setting_read_is_defined():
    defined = set(dir(settings._wrapped)) | set(dir(global_settings))
    missing = []
    for module, tree in _modules():
        aliases = _django_settings_aliases(tree)
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Attribute)
                and isinstance(node.value, ast.Name)
                and node.value.id in aliases
                and node.attr.isupper()
                and node.attr not in defined
            ):
                missing.append(f"{module}:{node.lineno} {node.attr}")
    assert not missing, "settings read but defined nowhere:\n" + "\n".join(missing)


def _declared(tree: ast.Module) -> set[str]:
    """UPPER_CASE names a settings module assigns at its top level (inside ``if`` blocks too)."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.ClassDef):
            continue
        targets = (
            node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, ast.AnnAssign) else []
        )
        names |= {t.id for t in targets if isinstance(t, ast.Name) and t.id.isupper()}
    return names


def _extended(tree: ast.Module) -> set[str]:
    """Names a settings module takes from another one to extend (metrics add their middleware …)."""
    return {
        alias.name
        for node in tree.body
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("config.settings.")
        for alias in node.names
    }


def test_each_setting_is_declared_by_one_concern_module():
    """``config/settings/`` splits the settings by concern (each app's own beside it): a name declared in
    two modules would silently take the value of the one imported last; a module extends another's name only
    by importing it."""
    from pathlib import Path

    from tests.platform.test_docs import app_settings

    folder = Path(settings.BASE_DIR) / "config" / "settings"
    owners: dict[str, list[str]] = {}
    for path in [*sorted(folder.glob("*.py")), *app_settings()]:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for name in _declared(tree) - _extended(tree):
            owners.setdefault(name, []).append(path.name)
    twice = {name: modules for name, modules in owners.items() if len(modules) > 1}
    assert not twice, f"settings declared in more than one module: {twice}"
    assert {"DEBUG", "CELERY_BROKER_URL", "BROWSER_TASKS", "IMPORT_MAX_ROWS"} <= set(owners)
    assert owners["MIDDLEWARE"] == ["base.py"] and owners["REST_FRAMEWORK"] == ["api.py"]
