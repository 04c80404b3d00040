"""Settings of the browser channel (docs/browser-tasks.md): Chromium, the ``BROWSER_TASKS`` thresholds, the
private hosts a worker may reach. Every value can be overridden from the environment.

The app declares this module (``AppConfig.settings_module``); ``config/settings/apps.py`` gathers its UPPER_CASE
names into Django's settings before any app loads, so it imports nothing of Django's app registry. Code reads
the values from ``django.conf.settings`` (``workers.conf``)."""

import os

from workers import chromium


def _env_list(name: str, default: str = "") -> list[str]:
    """A comma-separated environment value (as ``config.env.env_list``; the product imports nothing of config)."""
    return [item.strip() for item in os.environ.get(name, default).split(",") if item.strip()]


# The environment's path, else the one `make` chose and recorded (workers/chromium.py), else the system one.
PLAYWRIGHT_CHROMIUM_PATH = os.environ.get("PLAYWRIGHT_CHROMIUM_PATH") or chromium.recorded() or "/usr/bin/chromium"
# Flags that work in a closed network (no sandbox inside containers, no background calls home).
PLAYWRIGHT_CHROMIUM_ARGS = _env_list(
    "PLAYWRIGHT_CHROMIUM_ARGS",
    "--headless,--no-sandbox,--disable-gpu,--disable-quic,--no-first-run,--disable-background-networking,"
    "--disable-component-update,--disable-sync",
)
BROWSER_TASKS = {
    "DISPATCH_BATCH": int(os.environ.get("BROWSER_DISPATCH_BATCH", "50")),
    "CREATION_BATCH": int(os.environ.get("BROWSER_CREATION_BATCH", "20")),
    "LEASE_SECONDS": int(os.environ.get("BROWSER_LEASE_SECONDS", "600")),
    # At most this many tasks dispatched and not finished, all platforms together: payloads beyond what the
    # workers can start within a lease would only wait in the broker, expire and be dispatched again.
    "MAX_IN_FLIGHT": int(os.environ.get("BROWSER_MAX_IN_FLIGHT", "500")),
    "DEFAULT_CONCURRENCY_CAP": int(os.environ.get("BROWSER_CONCURRENCY_CAP", "50")),
    "DEFAULT_PACING_SECONDS": int(os.environ.get("BROWSER_PACING_SECONDS", "0")),
    "DEFAULT_MAX_ATTEMPTS": int(os.environ.get("BROWSER_MAX_ATTEMPTS", "3")),
    "DEFAULT_BACKOFF_SECONDS": int(os.environ.get("BROWSER_BACKOFF_SECONDS", "60")),
    "PROXY_ERROR_THRESHOLD": float(os.environ.get("BROWSER_PROXY_ERROR_THRESHOLD", "3")),
    "PROXY_MARK_GOOD": float(os.environ.get("BROWSER_PROXY_MARK_GOOD", "0.5")),
    "PROXY_COOLDOWN_SECONDS": int(os.environ.get("BROWSER_PROXY_COOLDOWN_SECONDS", "60")),
    "PROXY_RETRY_BUDGET": int(os.environ.get("BROWSER_PROXY_RETRY_BUDGET", "3")),
    "STEP_TIMEOUT_MS": int(os.environ.get("BROWSER_STEP_TIMEOUT_MS", "10000")),
    "NAVIGATION_TIMEOUT_MS": int(os.environ.get("BROWSER_NAVIGATION_TIMEOUT_MS", "20000")),
    "CONTEXT_POOL_SIZE": int(os.environ.get("BROWSER_CONTEXT_POOL_SIZE", "16")),
    "TASK_SOFT_TIME_LIMIT": int(os.environ.get("BROWSER_TASK_SOFT_TIME_LIMIT", "120")),
    "RESULTS_QUEUE": os.environ.get("BROWSER_RESULTS_QUEUE", "default"),  # where workers send results
    "QUEUE": os.environ.get("BROWSER_QUEUE", "browser"),  # where payloads go (chosen here, never by a tenant)
    "MAX_TASKS_PER_PLATFORM": int(os.environ.get("BROWSER_MAX_TASKS_PER_PLATFORM", "50000")),
    "CREATION_CHUNK": int(os.environ.get("BROWSER_CREATION_CHUNK", "2000")),
    "CREATION_ROWS_PER_RUN": int(os.environ.get("BROWSER_CREATION_ROWS_PER_RUN", "20000")),
    "CREATION_BACKOFF_SECONDS": int(os.environ.get("BROWSER_CREATION_BACKOFF_SECONDS", "60")),
    "CREATION_BACKOFF_MAX_SECONDS": int(os.environ.get("BROWSER_CREATION_BACKOFF_MAX_SECONDS", "3600")),
    "DEADLINE_MARGIN_SECONDS": int(os.environ.get("BROWSER_DEADLINE_MARGIN_SECONDS", "15")),
}
# "host:port" entries a browser worker may reach although they resolve to a loopback/private address
# (workers.netguard). Empty by default; the embedded default (no DATABASE_URL) adds the demo site.
BROWSER_ALLOWED_PRIVATE_HOSTS = _env_list("BROWSER_ALLOWED_PRIVATE_HOSTS")
if "DATABASE_URL" not in os.environ:
    # `make run`'s demo site and demo proxy (workers demo_site)
    BROWSER_ALLOWED_PRIVATE_HOSTS += ["127.0.0.1:8766", "127.0.0.1:8767"]
