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
