"""Redis (the cache: throttle counters, webhook rate limits, browser run claims) unreachable for a moment —
a restart — degrades the cache instead of answering 500 everywhere: API calls, the delivery webhook and
the health check answer as usual, and a claim made with ``add`` is refused (never granted twice)."""

import pytest
from django.core.cache import cache

from sms.models import SmsSettings
from tests.automation.helpers import setup_sms
from tests.conftest import api_client_for
from tests.platform.faults.processes import free_port

pytestmark = pytest.mark.django_db


@pytest.fixture
def redis_down(settings):
    settings.CACHES = {
        "default": {
            "BACKEND": "campaigns.platform.cache.ResilientRedisCache",
            "LOCATION": f"redis://127.0.0.1:{free_port()}/0",  # nothing listens there
        }
    }
    yield
    cache.close()


def test_api_webhook_and_health_answer_while_redis_is_unreachable(redis_down, owner, workspace, client):
    api = api_client_for(owner, workspace)
    assert api.get("/api/v1/me").status_code == 200
    assert api.post("/api/v1/targets", {"name": "a", "mobile": "+989121110000"}, format="json").status_code == 201
    setup_sms(workspace, "kavenegar", {"api_key": "K"})
    token = SmsSettings.objects.get(workspace=workspace).webhook_token
    hook = client.post(f"/api/webhooks/sms/generic/{token}", {"reports": []}, content_type="application/json")
    assert hook.status_code == 200
    assert client.get("/healthz").status_code in (200, 503)  # its own answer (unhealthy), not a crash


def test_the_degraded_cache_misses_drops_and_refuses_claims(redis_down):
    assert cache.get("k") is None and cache.get("k", "fallback") == "fallback"
    cache.set("k", 1)
    assert cache.add("claim", 1) is False  # a claim store that is down grants nothing
    with pytest.raises(ValueError):
        cache.incr("k")
    assert cache.get_many(["a", "b"]) == {}
