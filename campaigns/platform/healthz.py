"""``GET /healthz`` for operations: database, broker and the beat heartbeat, ok or failing — nothing more.

No login, no details (no host names, counts or errors): ``{"status": "ok|failing", "checks":
{"database": "ok|failing", "broker": "…", "beat": "…"}}`` with 200 when every check is ok, else 503.
Rate limited per client address (``HEALTHZ_RATE_PER_MINUTE``, default 60) so it cannot be used to load
the database or the broker; the address is the login throttle's (``client_ip``: the socket's, or the
``X-Forwarded-For`` entry of the nearest of ``TRUSTED_PROXY_COUNT`` proxies).
"""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.core.cache import cache
from django.db import connection
from django.http import JsonResponse
from django.utils import timezone
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

from campaigns.platform.login_throttle import client_ip

BEAT_HEARTBEAT = "beat"  # written every minute by the ``campaigns.heartbeat`` beat job


def _database() -> bool:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            return cursor.fetchone() == (1,)
    except Exception:  # any failure is "failing"
        return False


def _broker() -> bool:
    from celery import current_app  # the project's app (configured in config/celery.py)

    try:
        with current_app.connection_for_write() as conn:
            conn.ensure_connection(max_retries=1, timeout=2)
        return True
    except Exception:
        return False


def _beat() -> bool:
    from campaigns.platform.models import PlatformHeartbeat

    max_age = timedelta(seconds=settings.HEALTHZ_BEAT_MAX_AGE_SECONDS)
    try:
        beat = PlatformHeartbeat.objects.filter(name=BEAT_HEARTBEAT).values_list("beat_at", flat=True).first()
    except Exception:
        return False
    return beat is not None and beat >= timezone.now() - max_age


def _limited(request) -> bool:
    limit = settings.HEALTHZ_RATE_PER_MINUTE
    key = f"healthz:{client_ip(request)}:{int(timezone.now().timestamp() // 60)}"
    if cache.add(key, 1, 120):
        return False
    try:
        return cache.incr(key) > limit
    except ValueError:
        return False


@never_cache
@require_GET
def healthz(request):
    if _limited(request):
        return JsonResponse({"status": "rate_limited"}, status=429)
    database = _database()
    checks = {"database": database, "broker": _broker(), "beat": database and _beat()}
    ok = all(checks.values())
    return JsonResponse(
        {"status": "ok" if ok else "failing", "checks": {k: "ok" if v else "failing" for k, v in checks.items()}},
        status=200 if ok else 503,
    )
