"""Settings are read one way: ``settings.NAME`` (or a small accessor over it), defaults only in config/settings.py.

The test reads the source (AST) of every app module and fails on a ``getattr(settings, "NAME", default)`` — a
second default that drifts from the one ``config/settings.py`` declares — and on a ``settings.NAME`` that no
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
    assert not offending, "read settings.NAME; the default belongs in config/settings.py:\n" + "\n".join(offending)


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
