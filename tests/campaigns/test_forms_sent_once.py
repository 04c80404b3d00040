"""The API key and webhook pages answer their create form with the page itself (the secret is shown once), so a
reload sends the form again: the second POST of the same rendering creates nothing and the page says so."""

import re

import pytest
from django.test import Client

from campaigns.platform.models import ApiToken, WebhookEndpoint
from campaigns.platform.once import REPEATED

pytestmark = pytest.mark.django_db


def _once(html: str) -> str:
    (token,) = re.findall(r'name="once" value="([^"]+)"', html)
    return token


@pytest.fixture
def client(owner) -> Client:
    c = Client()
    c.force_login(owner)
    return c


def test_a_reloaded_api_key_form_makes_no_second_key(client):
    data = {"name": "سامانه فروش", "scopes": ["all"], "days": "90"}
    data["once"] = _once(client.get("/api-keys/").content.decode())
    first = client.post("/api-keys/", data).content.decode()
    assert 'data-testid="new-key"' in first and REPEATED not in first
    again = client.post("/api-keys/", data).content.decode()  # the browser's reload of that answer
    assert ApiToken.objects.count() == 1
    assert REPEATED in again and 'data-testid="new-key"' not in again
    assert _once(again) != data["once"]  # the form on the page may make the next key
    data["once"] = _once(again)
    client.post("/api-keys/", data)
    assert ApiToken.objects.count() == 2


def test_a_reloaded_webhook_form_makes_no_second_webhook(client, settings):
    settings.WEBHOOK_ALLOWED_PRIVATE_HOSTS = ["127.0.0.1:9"]
    data = {"url": "http://127.0.0.1:9/hook", "events": ["campaign.status_changed"], "description": ""}
    data["once"] = _once(client.get("/webhooks/").content.decode())
    first = client.post("/webhooks/", data).content.decode()
    assert 'data-testid="new-secret"' in first
    again = client.post("/webhooks/", data).content.decode()
    assert WebhookEndpoint.objects.count() == 1
    assert REPEATED in again and 'data-testid="new-secret"' not in again
