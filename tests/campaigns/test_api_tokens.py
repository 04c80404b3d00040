"""API tokens are stored hashed, expire, and are created once by a command."""

from datetime import timedelta

import pytest
from django.core.management import call_command
from django.utils import timezone
from rest_framework.test import APIClient

from campaigns.models import ApiToken
from campaigns.platform.tokens import api_token_create

from ..conftest import make_member

pytestmark = pytest.mark.django_db


def client_with(key: str, workspace) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    client.defaults["HTTP_X_WORKSPACE"] = workspace.slug
    return client


def test_hashed_token_auth_works_and_the_key_is_not_stored_in_clear(workspace):
    user = make_member(workspace)
    token, key = api_token_create(user=user, name="crm")
    response = client_with(key, workspace).get("/api/v1/me")
    assert response.status_code == 200 and response.json()["id"] == user.id
    row = ApiToken.objects.get(pk=token.pk)
    stored = [str(v) for v in ApiToken.objects.filter(pk=token.pk).values().get().values()]
    assert key not in stored and key.split(".", 1)[1] not in "".join(stored)
    assert len(row.key_hash) == 64 and row.last_used_at is not None


def test_hashed_token_expired_or_revoked_or_wrong_is_refused(workspace):
    user = make_member(workspace)
    token, key = api_token_create(user=user)
    ApiToken.objects.filter(pk=token.pk).update(expires_at=timezone.now() - timedelta(seconds=1))
    expired = client_with(key, workspace).get("/api/v1/me")
    assert expired.status_code == 401 and expired.json()["error"]["code"] == "AUTHENTICATION_FAILED"
    other, other_key = api_token_create(user=user)
    prefix = other_key.split(".", 1)[0]
    assert client_with(f"{prefix}.not-the-secret", workspace).get("/api/v1/me").status_code == 401
    ApiToken.objects.filter(pk=other.pk).update(revoked_at=timezone.now())
    assert client_with(other_key, workspace).get("/api/v1/me").status_code == 401


def test_hashed_token_created_by_the_management_command(workspace, capsys):
    user = make_member(workspace, username="crm-bot")
    call_command("api_token_create", "crm-bot", "--days", "7", "--name", "crm")
    key = capsys.readouterr().out.split("token=", 1)[1].split()[0]
    token = ApiToken.objects.get(user=user)
    assert token.name == "crm" and timedelta(days=6) < token.expires_at - timezone.now() <= timedelta(days=7)
    assert client_with(key, workspace).get("/api/v1/me").status_code == 200
