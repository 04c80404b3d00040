"""Settings that live beside the code that reads them: an app's ``AppConfig`` names the module of its own
settings (``settings_module = "automation.settings"``), and ``config/settings/apps.py`` gathers that module's
UPPER_CASE names into Django's settings before any app loads (after NetBox's ``PluginConfig.default_settings``).
One way for every app, channel or not: the engine (``automation/settings.py``), chains
(``campaigns/chains/settings.py``), the SMS and browser channels (``sms/settings.py``, ``workers/settings.py``).

Such a module reads the environment and imports nothing of Django's app registry; code reads its values from
``django.conf.settings``. This module imports nothing but the standard library and ``django.apps``, so settings
may import it.
"""

from __future__ import annotations

from collections.abc import Iterable
from importlib import import_module

from django.apps import AppConfig


def config_class(entry: str) -> type[AppConfig] | None:
    """The ``AppConfig`` class an ``INSTALLED_APPS`` entry names, without loading the app's models: the class a
    dotted path names, else the one its ``apps`` module marks ``default`` (or holds alone), as Django picks it."""
    module_name, _, attr = entry.rpartition(".")
    if attr[:1].isupper():
        return getattr(import_module(module_name), attr, None)
    try:
        module = import_module(f"{entry}.apps")
    except ImportError:
        return None
    found = [
        value
        for value in vars(module).values()
        if isinstance(value, type) and issubclass(value, AppConfig) and value.__module__ == module.__name__
    ]
    chosen = [value for value in found if getattr(value, "default", False)] or found
    return chosen[0] if len(chosen) == 1 else None


def settings_modules_in(installed_apps: Iterable[str]) -> tuple[str, ...]:
    """The settings modules the ``INSTALLED_APPS`` entries declare, in their order."""
    return tuple(
        name for entry in installed_apps if (name := getattr(config_class(entry), "settings_module", "") or "")
    )
