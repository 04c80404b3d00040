"""Every API error uses the envelope {"success": false, "error": {code, message, details}}."""

import pytest
from django.test import Client
from rest_framework.test import APIClient

from ..conftest import make_campaign, make_target

pytestmark = pytest.mark.django_db


def assert_envelope(response, status: int, code: str):
    assert response.status_code == status, response.content
    body = response.json()
    assert body["success"] is False
    assert body["error"]["code"] == code
    assert body["error"]["message"]
    assert isinstance(body["error"]["details"], dict)
    return body["error"]


def test_400_validation_with_field_errors(api):
    error = assert_envelope(api.post("/api/v1/targets", {"name": ""}, format="json"), 400, "VALIDATION_ERROR")
    assert "name" in error["details"]


def test_400_malformed_json(api):
    response = api.post("/api/v1/targets", "{oops", content_type="application/json")
    assert_envelope(response, 400, "PARSE_ERROR")


def test_401_without_credentials():
    response = APIClient().get("/api/v1/targets")
    assert_envelope(response, 401, "NOT_AUTHENTICATED")
    assert response["WWW-Authenticate"].startswith("Token")


def test_401_bad_token():
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION="Token nope")
    assert_envelope(client.get("/api/v1/targets"), 401, "AUTHENTICATION_FAILED")


def test_404_object_and_unknown_url(api):
    assert_envelope(api.get("/api/v1/targets/999999"), 404, "NOT_FOUND")
    assert_envelope(api.get("/api/v1/no-such-thing"), 404, "NOT_FOUND")
    assert_envelope(Client().get("/api/nothing/here"), 404, "NOT_FOUND")


def test_405_wrong_method(api, workspace):
    campaign = make_campaign(workspace)
    assert_envelope(api.delete(f"/api/v1/campaigns/{campaign.id}"), 405, "METHOD_NOT_ALLOWED")


def test_409_stale_revision_and_invalid_transition(actor, workspace):
    from campaigns.platform.errors import InvalidTransition, StaleRevision
    from campaigns.services.campaigns import campaign_transition

    campaign = make_campaign(workspace)
    with pytest.raises(StaleRevision):
        campaign_transition(actor=actor, campaign_id=campaign.id, transition="activate", expected_revision=7)
    with pytest.raises(InvalidTransition):
        campaign_transition(actor=actor, campaign_id=campaign.id, transition="resume")


def test_409_rendered_in_the_envelope():
    from campaigns.platform.api.envelope import exception_handler
    from campaigns.platform.errors import StaleRevision

    response = exception_handler(StaleRevision(details={"current_revision": 3}), {"view": None})
    assert response.status_code == 409
    assert response.data["error"]["code"] == "STALE_REVISION"
    assert response.data["error"]["details"] == {"current_revision": 3}


def test_500_hides_internals(api, monkeypatch):
    from campaigns import selectors

    def boom(**kwargs):
        raise RuntimeError("secret connection string postgres://user:pw@db")

    monkeypatch.setattr(selectors, "target_queryset", boom)
    response = api.get("/api/v1/targets")
    error = assert_envelope(response, 500, "INTERNAL_ERROR")
    assert "secret" not in response.content.decode()
    assert error["details"] == {}


def test_429_rate_limited(api, settings, monkeypatch):
    from rest_framework.throttling import UserRateThrottle

    monkeypatch.setattr(UserRateThrottle, "THROTTLE_RATES", {"user": "2/min", "anon": "2/min"})
    for _ in range(2):
        assert api.get("/api/v1/me").status_code == 200
    response = api.get("/api/v1/me")
    error = assert_envelope(response, 429, "RATE_LIMITED")
    assert int(response["Retry-After"]) > 0
    assert error["details"]["retry_after_seconds"] > 0


def test_403_permission_denied(workspace):
    from campaigns.choices import Role

    from ..conftest import api_client_for, make_member

    client = api_client_for(make_member(workspace, Role.VIEWER), workspace)
    target = make_target(workspace)
    assert_envelope(client.delete(f"/api/v1/targets/{target.id}"), 403, "PERMISSION_DENIED")
