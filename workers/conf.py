"""Settings of the browser channel with their defaults (``settings.BROWSER_TASKS``)."""

from django.conf import settings

DEFAULTS = {
    "DISPATCH_BATCH": 50,
    "CREATION_BATCH": 20,
    "LEASE_SECONDS": 600,
    "DEFAULT_CONCURRENCY_CAP": 50,
    "DEFAULT_PACING_SECONDS": 0,
    "DEFAULT_MAX_ATTEMPTS": 3,
    "DEFAULT_BACKOFF_SECONDS": 60,
    "PROXY_ERROR_THRESHOLD": 3.0,
    "PROXY_MARK_GOOD": 0.5,
    "PROXY_COOLDOWN_SECONDS": 60,
    "PROXY_RETRY_BUDGET": 3,
    "STEP_TIMEOUT_MS": 10000,
    "NAVIGATION_TIMEOUT_MS": 20000,
    "CONTEXT_POOL_SIZE": 16,
    "TASK_SOFT_TIME_LIMIT": 120,
    "RESULTS_QUEUE": "default",
    "QUEUE": "browser",
    "MAX_TASKS_PER_PLATFORM": 50000,
    "CREATION_CHUNK": 2000,
    "CREATION_ROWS_PER_RUN": 20000,
    "CREATION_BACKOFF_SECONDS": 60,
    "CREATION_BACKOFF_MAX_SECONDS": 3600,
    "DEADLINE_MARGIN_SECONDS": 15,
}


def setting(name: str):
    return getattr(settings, "BROWSER_TASKS", {}).get(name, DEFAULTS[name])


def chromium_path() -> str:
    return getattr(settings, "PLAYWRIGHT_CHROMIUM_PATH", "/usr/bin/chromium")


def chromium_args() -> list[str]:
    return list(getattr(settings, "PLAYWRIGHT_CHROMIUM_ARGS", []))
