"""Security: HTTPS and proxies, the login throttle, API keys."""

import os

from config.env import env_bool, env_list
from config.settings.api import REST_FRAMEWORK

# `manage.py check --deploy` fails, and the WSGI/ASGI app refuses to load, when DEBUG=0 runs on the
# development SECRET_KEY or a FIELD_ENCRYPTION_KEY derived from it (campaigns/checks.py).
SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", False)
SECURE_HSTS_SECONDS = int(os.environ.get("SECURE_HSTS_SECONDS", "0"))
SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", False)
SECURE_HSTS_PRELOAD = env_bool("SECURE_HSTS_PRELOAD", False)
# Reverse proxies in front of the app that append to X-Forwarded-For (0: use the socket address).
TRUSTED_PROXY_COUNT = int(os.environ.get("TRUSTED_PROXY_COUNT", "0"))
# Trust X-Forwarded-Proto only behind a proxy that sets it itself (default: on when a proxy is trusted).
if env_bool("SECURE_PROXY_SSL_HEADER", TRUSTED_PROXY_COUNT > 0):
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
REST_FRAMEWORK["NUM_PROXIES"] = TRUSTED_PROXY_COUNT
# Login throttle: failures per username (from any address) and per client address, then an
# exponential back-off (base seconds, doubled per failure over the limit, capped) instead of a lock-out.
LOGIN_FAILURES_PER_USERNAME = int(os.environ.get("LOGIN_FAILURES_PER_USERNAME", "5"))
LOGIN_FAILURES_PER_IP = int(os.environ.get("LOGIN_FAILURES_PER_IP", "30"))
LOGIN_BACKOFF_SECONDS = int(os.environ.get("LOGIN_BACKOFF_SECONDS", "2"))
LOGIN_BACKOFF_MAX_SECONDS = int(os.environ.get("LOGIN_BACKOFF_MAX_SECONDS", "900"))
API_TOKEN_TTL_DAYS = int(os.environ.get("API_TOKEN_TTL_DAYS", "90"))
# Outbound webhooks (campaigns.platform.webhooks): "host:port" entries a webhook may reach although they resolve
# to a private/loopback address; the wait for an answer; attempts before a delivery fails; how long a rotated
# secret keeps signing beside the new one.
WEBHOOK_ALLOWED_PRIVATE_HOSTS = env_list("WEBHOOK_ALLOWED_PRIVATE_HOSTS")
WEBHOOK_TIMEOUT_SECONDS = float(os.environ.get("WEBHOOK_TIMEOUT_SECONDS", "10"))
WEBHOOK_MAX_ATTEMPTS = int(os.environ.get("WEBHOOK_MAX_ATTEMPTS", "8"))
WEBHOOK_SECRET_OVERLAP_HOURS = int(os.environ.get("WEBHOOK_SECRET_OVERLAP_HOURS", "24"))
# Manual sends to a receiver (a test event, a replay) per minute, page and API together: a member's, and the
# whole workspace's (its admins together).
WEBHOOK_MANUAL_SENDS_PER_MINUTE = int(os.environ.get("WEBHOOK_MANUAL_SENDS_PER_MINUTE", "10"))
WEBHOOK_MANUAL_SENDS_PER_WORKSPACE_PER_MINUTE = int(
    os.environ.get("WEBHOOK_MANUAL_SENDS_PER_WORKSPACE_PER_MINUTE", "20")
)
