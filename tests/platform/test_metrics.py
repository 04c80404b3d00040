"""Ops' Prometheus endpoint: off by default (404), protected by METRICS_TOKEN, and it shows the engine's and
the SMS channel's counters next to the broker queue depths."""

import pytest

from campaigns.platform import metrics


def test_metrics_are_off_without_a_token_and_refuse_a_wrong_one(client, settings):
    settings.METRICS_TOKEN = ""
    assert client.get("/metrics").status_code == 404
    settings.METRICS_TOKEN = "s3cret"
    assert client.get("/metrics").status_code == 404
    assert client.get("/metrics", HTTP_AUTHORIZATION="Bearer wrong").status_code == 404


@pytest.mark.django_db
def test_metrics_show_claims_sends_tasks_and_queue_depth(client, settings):
    settings.METRICS_TOKEN = "s3cret"
    metrics.count_tick(claimed=3, reaped=1)
    metrics.count_send(provider="kavenegar", result="submitted")
    metrics.count_task(task="automation.tick", state="SUCCESS")
    response = client.get("/metrics", HTTP_AUTHORIZATION="Bearer s3cret")
    assert response.status_code == 200
    text = response.content.decode()
    assert 'sms_sends_total{provider="kavenegar",result="submitted"}' in text
    assert "automation_claims_total" in text and "automation_reaped_total" in text
    assert 'platform_tasks_total{state="SUCCESS",task="automation.tick"}' in text
    if settings.CELERY_BROKER_URL.startswith("redis"):
        assert 'celery_queue_depth{queue="engine"}' in text


def _series(text: str) -> int:
    return sum(1 for line in text.splitlines() if line and not line.startswith("#"))


@pytest.mark.django_db
def test_made_up_methods_add_no_series_to_the_scrape(settings):
    import secrets

    from django.test import Client

    settings.METRICS_TOKEN = "s3cret"
    assert settings.MIDDLEWARE[0] == "campaigns.platform.methods.KnownMethodMiddleware"
    settings.MIDDLEWARE = [  # what settings.py builds when METRICS_TOKEN is set at start
        settings.MIDDLEWARE[0],
        "django_prometheus.middleware.PrometheusBeforeMiddleware",
        *settings.MIDDLEWARE[1:],
        "django_prometheus.middleware.PrometheusAfterMiddleware",
    ]
    client = Client()
    scrape = lambda: client.get("/metrics", HTTP_AUTHORIZATION="Bearer s3cret").content.decode()  # noqa: E731
    client.get("/login/")
    client.generic("BREW", "/login/")  # every label the scrape can hold from here on exists once
    before = _series(scrape())
    answers = {client.generic("X" + secrets.token_hex(4).upper(), path).status_code for path in ("/", "/api/v1/me")}
    for _ in range(499):
        for path in ("/login/", "/api/v1/targets"):
            answers.add(client.generic("X" + secrets.token_hex(4).upper(), path).status_code)
    after = scrape()
    assert _series(after) - before < 50  # the scrapes' own samples; 1,000 new methods were ~15,000 series
    assert answers == {405}
    assert "XB" not in after and "BREW" not in after


def test_metrics_past_the_rate_are_429_in_the_envelope_counted_before_the_token(client, settings):
    settings.METRICS_TOKEN = "s3cret"
    settings.METRICS_RATE_PER_MINUTE = 3
    assert client.get("/metrics", HTTP_AUTHORIZATION="Bearer s3cret").status_code == 200
    assert client.get("/metrics", HTTP_AUTHORIZATION="Bearer wrong").status_code == 404
    assert client.get("/metrics", HTTP_AUTHORIZATION="Bearer wrong").status_code == 404
    for token in ("wrong", "s3cret"):  # past the limit a guess is not even compared
        refused = client.get("/metrics", HTTP_AUTHORIZATION=f"Bearer {token}")
        assert refused.status_code == 429 and 0 < int(refused["Retry-After"]) <= 60
        error = refused.json()["error"]
        assert error["code"] == "RATE_LIMITED" and error["details"]["retry_after_seconds"] == int(
            refused["Retry-After"]
        )
    other = client.get("/metrics", HTTP_AUTHORIZATION="Bearer s3cret", REMOTE_ADDR="10.0.0.9")
    assert other.status_code == 200  # counted per client address
    settings.METRICS_TOKEN = ""
    assert client.get("/metrics").status_code == 404  # off: a 404 like any unknown path, never a 429
