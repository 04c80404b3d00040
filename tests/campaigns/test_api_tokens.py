"""API tokens are stored hashed, expire, act in one workspace, and are created once by a command."""

from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command
from django.utils import timezone
from rest_framework.test import APIClient

from campaigns.choices import Role
from campaigns.models import ApiToken
from campaigns.platform.errors import ValidationFailed
from campaigns.platform.tokens import api_token_create
from campaigns.services.workspaces import membership_set

from ..conftest import make_member, make_workspace

User = get_user_model()

pytestmark = pytest.mark.django_db


def client_with(key: str, workspace) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    client.defaults["HTTP_X_WORKSPACE"] = workspace.slug
    return client


def test_hashed_token_auth_works_and_the_key_is_not_stored_in_clear(workspace):
    user = make_member(workspace)
    token, key = api_token_create(user=user, workspace=workspace, name="crm")
    response = client_with(key, workspace).get("/api/v1/me")
    assert response.status_code == 200 and response.json()["id"] == user.id
    row = ApiToken.objects.get(pk=token.pk)
    stored = [str(v) for v in ApiToken.objects.filter(pk=token.pk).values().get().values()]
    assert key not in stored and key.split(".", 1)[1] not in "".join(stored)
    assert len(row.key_hash) == 64 and row.last_used_at is not None


def test_hashed_token_expired_or_revoked_or_wrong_is_refused(workspace):
    user = make_member(workspace)
    token, key = api_token_create(user=user, workspace=workspace)
    ApiToken.objects.filter(pk=token.pk).update(expires_at=timezone.now() - timedelta(seconds=1))
    expired = client_with(key, workspace).get("/api/v1/me")
    assert expired.status_code == 401 and expired.json()["error"]["code"] == "AUTHENTICATION_FAILED"
    other, other_key = api_token_create(user=user, workspace=workspace)
    prefix = other_key.split(".", 1)[0]
    assert client_with(f"{prefix}.not-the-secret", workspace).get("/api/v1/me").status_code == 401
    ApiToken.objects.filter(pk=other.pk).update(revoked_at=timezone.now())
    assert client_with(other_key, workspace).get("/api/v1/me").status_code == 401


def test_hashed_token_created_by_the_management_command(workspace, capsys):
    user = make_member(workspace, username="crm-bot")
    other = make_workspace("other")
    membership_set(workspace=other, user=user, role=Role.OWNER)
    call_command("api_token_create", "crm-bot", "--workspace", workspace.slug, "--days", "7", "--name", "crm")
    key = capsys.readouterr().out.split("token=", 1)[1].split()[0]
    token = ApiToken.objects.get(user=user)
    assert token.name == "crm" and timedelta(days=6) < token.expires_at - timezone.now() <= timedelta(days=7)
    assert token.workspace == workspace
    assert client_with(key, workspace).get("/api/v1/me").status_code == 200
    refused = client_with(key, other).get("/api/v1/me")  # the user's other workspace: not this key's
    assert refused.status_code == 404 and refused.json()["error"]["code"] == "WORKSPACE_NOT_FOUND"
    call_command("api_token_create", "crm-bot", "--workspace", str(other.id))
    assert ApiToken.objects.get(user=user, workspace=other)


def test_the_command_refuses_no_workspace_or_one_the_user_is_not_in(workspace):
    make_member(workspace, username="crm-bot")
    stranger = make_workspace("stranger")
    with pytest.raises(CommandError):
        call_command("api_token_create", "crm-bot")
    with pytest.raises(CommandError, match="not a member"):
        call_command("api_token_create", "crm-bot", "--workspace", stranger.slug)
    with pytest.raises(ValidationFailed):
        api_token_create(user=User.objects.get(username="crm-bot"), workspace=stranger)
    assert not ApiToken.objects.exists()


def test_older_unbound_keys_are_bound_to_the_only_workspace_or_refused(workspace):
    from importlib import import_module

    from django.apps import apps

    migration = import_module("campaigns.platform.migrations.0008_api_keys_bound")
    single, several = make_member(workspace), make_member(workspace)
    second = make_workspace("second")
    membership_set(workspace=second, user=several, role=Role.OWNER)
    keys = {}
    for user in (single, several):
        token, key = api_token_create(user=user, workspace=workspace)
        ApiToken.objects.filter(pk=token.pk).update(workspace=None)  # as the command made them before
        keys[user] = (token, key)
    migration.bind_to_the_only_workspace(apps, None)
    assert ApiToken.objects.get(pk=keys[single][0].pk).workspace == workspace
    assert client_with(keys[single][1], workspace).get("/api/v1/me").status_code == 200
    assert ApiToken.objects.get(pk=keys[several][0].pk).workspace is None  # which one was meant: unknown
    assert client_with(keys[several][1], workspace).get("/api/v1/me").status_code == 401
