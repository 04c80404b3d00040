"""Prometheus metrics for ops: ``GET /metrics`` with ``Authorization: Bearer <METRICS_TOKEN>``.

Off by default: without ``METRICS_TOKEN`` the endpoint answers 404 like any unknown path, and so does a
wrong token. With it, each client address may ask ``METRICS_RATE_PER_MINUTE`` times a minute (counted before
the token is compared); past that it gets 429 ``RATE_LIMITED`` in the API's envelope with ``Retry-After``.
With it, django-prometheus adds the web and database metrics (config/settings/monitoring.py), and these
counters come from the engine and the workers:

- ``platform_tasks_total{task, state}``: Celery tasks finished (success, failure, retry, revoked);
- ``automation_claims_total`` / ``automation_reaped_total``: executions claimed by scheduler ticks, and
  executions whose lease ran out (their worker died or stalled);
- ``sms_sends_total{provider, result}``: provider send calls by result (submitted, failed, unknown, …);
- ``sms_unknown_aged_total{provider}``: SMS attempts whose outcome stayed unknown past the alarm age (6 h);
- ``celery_queue_depth{queue}``: messages waiting in each broker queue (Redis), read at each scrape.

Web and workers are separate processes: set ``PROMETHEUS_MULTIPROC_DIR`` (an empty folder shared by
gunicorn and the workers of one host) so one scrape of the web process adds up every process's counters.
"""

from __future__ import annotations

import os

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.utils.crypto import constant_time_compare
from prometheus_client import CONTENT_TYPE_LATEST, REGISTRY, CollectorRegistry, Counter, generate_latest
from prometheus_client.core import GaugeMetricFamily

from campaigns.platform.api.envelope import rate_limited_response
from campaigns.platform.login_throttle import RATE_WINDOW_SECONDS, over_rate

TASKS = Counter("platform_tasks", "Celery tasks finished, by task name and state", ["task", "state"])
CLAIMS = Counter("automation_claims", "Executions claimed by scheduler ticks")
REAPED = Counter("automation_reaped", "Executions whose lease expired, reaped by scheduler ticks")
SMS_SENDS = Counter("sms_sends", "SMS provider send calls, by provider and result", ["provider", "result"])
SMS_UNKNOWN_AGED = Counter(
    "sms_unknown_aged", "SMS attempts whose outcome stayed unknown past the alarm age, by provider", ["provider"]
)


def count_tick(*, claimed: int, reaped: int) -> None:
    CLAIMS.inc(claimed)
    REAPED.inc(reaped)


def count_send(*, provider: str, result: str) -> None:
    SMS_SENDS.labels(provider=provider or "none", result=result or "none").inc()


def count_unknown_aged(*, provider: str) -> None:
    SMS_UNKNOWN_AGED.labels(provider=provider or "none").inc()


def count_task(*, task: str, state: str) -> None:
    TASKS.labels(task=task, state=state).inc()


class QueueDepth:
    """``celery_queue_depth``: LLEN of each queue's Redis lists (kombu keeps one per priority step)."""

    def collect(self):
        family = GaugeMetricFamily("celery_queue_depth", "Messages waiting in a broker queue", labels=["queue"])
        url = settings.CELERY_BROKER_URL
        if url.startswith(("redis://", "rediss://")):
            import redis

            try:
                client = redis.Redis.from_url(url, socket_timeout=2, socket_connect_timeout=2)
                for queue in settings.QUEUE_NAMES:
                    keys = [queue, *(f"{queue}\x06\x16{step}" for step in range(1, 10))]
                    family.add_metric([queue], float(sum(client.llen(key) for key in keys)))
            except redis.RedisError:
                pass  # the broker is down: no sample (the scrape itself still answers)
        yield family


def registry() -> CollectorRegistry:
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        from prometheus_client import multiprocess

        found = CollectorRegistry()
        multiprocess.MultiProcessCollector(found)
    else:
        found = CollectorRegistry()
        for collector in list(REGISTRY._collector_to_names):  # this process's own metrics
            found.register(collector)
    found.register(QueueDepth())
    return found


def metrics_view(request: HttpRequest) -> HttpResponse:
    token = settings.METRICS_TOKEN
    if not token:
        return HttpResponse(status=404)  # off: nothing counted, nothing told
    # every scrape counts per client address before the token is compared, as the SMS webhooks do: a wrong
    # token cannot be tried faster than the limit, nor a right one make the scrape (the queue depths) costly
    if over_rate(request, "metrics", settings.METRICS_RATE_PER_MINUTE):
        return rate_limited_response(RATE_WINDOW_SECONDS)
    given = request.headers.get("Authorization", "")
    if not constant_time_compare(given, f"Bearer {token}"):
        return HttpResponse(status=404)
    return HttpResponse(generate_latest(registry()), content_type=CONTENT_TYPE_LATEST)
