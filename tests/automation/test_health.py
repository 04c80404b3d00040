"""Health: the tick heartbeat and stale queues (staff JSON, page banner) and /healthz for operations."""

from datetime import UTC, datetime, timedelta

import pytest
import time_machine
from django.core.cache import cache

from automation.engine.scheduler import tick
from automation.health import journey_health_report
from automation.models import Execution
from automation.services.enrollment import enroll_subjects
from campaigns.models import PlatformHeartbeat
from campaigns.tasks import heartbeat
from tests.conftest import api_client_for, make_target

from .helpers import end_node, journey, linear_graph, setup_sms, sms_node, wait_node

pytestmark = pytest.mark.django_db
T0 = datetime(2030, 1, 1, 8, 0, tzinfo=UTC)


@pytest.fixture
def live_journey(actor, workspace):
    setup_sms(workspace)
    with time_machine.travel(T0, tick=False):
        campaign = journey(actor, linear_graph(sms_node("a"), wait_node("w", 5, "days"), end_node()))
        enroll_subjects(actor=actor, campaign_id=campaign.id, target_ids=[make_target(workspace).id])
    return campaign


def test_health_turns_red_when_beat_stops(live_journey, workspace, owner, client):
    with time_machine.travel(T0 + timedelta(minutes=1), tick=False):
        tick(send=lambda chunk: None)  # claims the due execution: it sits queued (no worker)
        heartbeat()
        assert journey_health_report()["ok"] is True
    with time_machine.travel(T0 + timedelta(minutes=7), tick=False):  # beat stopped 6 minutes ago
        report = journey_health_report()
        assert report["ok"] is False
        assert report["checks"]["heartbeat"]["ok"] is False and report["checks"]["heartbeat"]["age_seconds"] == 360
        assert report["checks"]["queued_stale"] == {"ok": False, "count": 1}
        # the banner of the campaign pages says the same
        client.force_login(owner)
        page = client.get(f"/automation/campaigns/{live_journey.id}/").content.decode()
        assert "زمان‌بند اجرا نمی‌شود" in page
        assert client.get("/healthz").json() == {
            "status": "failing",
            "checks": {"database": "ok", "broker": "ok", "beat": "failing"},
        }


def test_due_execution_not_claimed_is_reported(live_journey, workspace, actor):
    Execution.objects.filter(campaign=live_journey).update(next_run_at=T0)
    PlatformHeartbeat.objects.update_or_create(name="automation_tick", defaults={"beat_at": T0 + timedelta(minutes=6)})
    with time_machine.travel(T0 + timedelta(minutes=6), tick=False):
        report = journey_health_report(workspace_id=workspace.id)
        assert report["checks"]["due_unclaimed"] == {"ok": False, "count": 1}
        assert report["checks"]["heartbeat"]["ok"] is True
        from automation.campaign_selectors import journey_health

        assert "due_unclaimed" in [line["code"] for line in journey_health(actor=actor)]


def test_journey_health_api_is_for_staff_only(workspace, owner):
    assert api_client_for(owner, workspace).get("/api/v1/health/journeys").status_code == 403
    owner.is_staff = True
    owner.save()
    body = api_client_for(owner, workspace).get("/api/v1/health/journeys").json()
    assert set(body["checks"]) == {"heartbeat", "due_unclaimed", "queued_stale"}


def test_healthz_needs_no_login_says_only_ok_or_failing_and_is_rate_limited(client, settings):
    heartbeat()
    response = client.get("/healthz")
    assert response.status_code == 200
    assert response.json() == {"status": "ok", "checks": {"database": "ok", "broker": "ok", "beat": "ok"}}
    cache.clear()
    settings.HEALTHZ_RATE_PER_MINUTE = 2
    codes = [client.get("/healthz").status_code for _ in range(3)]
    assert codes == [200, 200, 429]


def test_healthz_rate_limit_is_per_client_behind_a_trusted_proxy(client, settings):
    settings.TRUSTED_PROXY_COUNT = 1
    settings.HEALTHZ_RATE_PER_MINUTE = 2

    def limited(forwarded_for: str) -> bool:  # every request arrives from the proxy, which names the client
        return client.get("/healthz", REMOTE_ADDR="10.0.0.2", HTTP_X_FORWARDED_FOR=forwarded_for).status_code == 429

    with time_machine.travel(T0, tick=False):  # one rate-limit minute
        assert [limited("203.0.113.9") for _ in range(3)] == [False, False, True]
        assert limited("1.2.3.4, 203.0.113.9")  # a spoofed left-most entry is not the client
        assert not limited("198.51.100.7")  # another client behind the same proxy has its own bucket


def test_the_banner_counts_a_stuck_queue_only_up_to_its_cap(actor, workspace, monkeypatch):
    from automation import campaign_selectors

    setup_sms(workspace)
    with time_machine.travel(T0, tick=False):
        campaign = journey(actor, linear_graph(sms_node("a"), end_node()))
        enroll_subjects(actor=actor, campaign_id=campaign.id, target_ids=[make_target(workspace).id for _ in range(3)])
        Execution.objects.filter(campaign=campaign).update(status="queued")
    PlatformHeartbeat.objects.update_or_create(name="automation_tick", defaults={"beat_at": T0 + timedelta(minutes=6)})
    with time_machine.travel(T0 + timedelta(minutes=6), tick=False):
        texts = {line["code"]: line["text"] for line in campaign_selectors.journey_health(actor=actor)}
        assert texts["queue_stuck"].startswith("۳ اجرا")
        monkeypatch.setattr(campaign_selectors, "BANNER_COUNT_CAP", 2)
        texts = {line["code"]: line["text"] for line in campaign_selectors.journey_health(actor=actor)}
        assert texts["queue_stuck"].startswith("بیش از ۲ اجرا")
