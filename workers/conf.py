"""Settings of the browser channel (defaults and environment names in ``workers/settings.py``)."""

from django.conf import settings


def setting(name: str):
    """One value of ``settings.BROWSER_TASKS``."""
    return settings.BROWSER_TASKS[name]


def chromium_path() -> str:
    return settings.PLAYWRIGHT_CHROMIUM_PATH


def chromium_args() -> list[str]:
    return list(settings.PLAYWRIGHT_CHROMIUM_ARGS)
