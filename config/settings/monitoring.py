"""Logs, metrics and health: the log format, Prometheus metrics (off unless ``METRICS_TOKEN`` is set) and
``/healthz``."""

import os

from config.settings.base import DATABASES, INSTALLED_APPS, MIDDLEWARE

LOG_FORMAT = os.environ.get("LOG_FORMAT", "plain")  # "json": one JSON object per line (campaigns/platform/logs.py)
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {
        "plain": {"format": "%(asctime)s %(levelname)s %(name)s %(message)s"},
        "json": {"()": "campaigns.platform.logs.JsonFormatter"},
    },
    "handlers": {
        "console": {"class": "logging.StreamHandler", "formatter": "json" if LOG_FORMAT == "json" else "plain"}
    },
    "filters": {"webhook_tokens": {"()": "campaigns.platform.logs.WebhookTokenFilter"}},
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "INFO")},
    "loggers": {
        "django.db.backends": {"level": "WARNING"},
        # a 4xx/5xx answer's path is logged: a webhook's token in it is masked
        "django.request": {"filters": ["webhook_tokens"]},
    },
}

# --- metrics (campaigns/platform/metrics.py): off unless METRICS_TOKEN is set ---
METRICS_TOKEN = os.environ.get("METRICS_TOKEN", "")
# scrapes per client address per minute (a Prometheus scraping every 15 s asks 4): past it, 429
METRICS_RATE_PER_MINUTE = int(os.environ.get("METRICS_RATE_PER_MINUTE", "30"))
if METRICS_TOKEN:
    INSTALLED_APPS.append("django_prometheus")
    MIDDLEWARE = [
        MIDDLEWARE[0],  # unknown methods are answered before the metrics label anything with them
        "django_prometheus.middleware.PrometheusBeforeMiddleware",
        *MIDDLEWARE[1:],
        "django_prometheus.middleware.PrometheusAfterMiddleware",
    ]
    if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
        DATABASES["default"]["ENGINE"] = "django_prometheus.db.backends.postgresql"

# /healthz: the beat heartbeat may be this old before the check fails; requests per client address per minute.
HEALTHZ_BEAT_MAX_AGE_SECONDS = int(os.environ.get("HEALTHZ_BEAT_MAX_AGE_SECONDS", "300"))
HEALTHZ_RATE_PER_MINUTE = int(os.environ.get("HEALTHZ_RATE_PER_MINUTE", "60"))
