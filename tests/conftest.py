"""Shared fixtures: workspaces, members with roles, API clients per member."""

import itertools

import pytest
from django.contrib.auth import get_user_model
from rest_framework.test import APIClient

from campaigns.choices import Role
from campaigns.models import Campaign, Target, TargetList, Workspace
from campaigns.platform.tenancy import Actor, memberships_of
from campaigns.platform.tokens import api_token_create
from campaigns.services.workspaces import membership_set

_seq = itertools.count(1)


@pytest.fixture(autouse=True, scope="session")
def _embedded_folders():
    """The embedded default's folders (filesystem broker, SQLite), as every started process makes them: a test
    reaching the broker through kombu alone must not depend on an earlier test having started the Celery app."""
    from config.embedded import ensure_embedded_folders

    ensure_embedded_folders()


@pytest.fixture(autouse=True)
def _clear_cache():
    from django.core.cache import cache

    cache.clear()  # throttling counters must not leak between tests
    # Published graphs are cached per process by version id; SQLite reuses ids after a test's rollback. Cleared
    # after the test too, so a module-scoped fixture set up before the next test never reads a stale graph.
    from automation.engine.graph import published_graph

    published_graph.cache_clear()
    yield
    published_graph.cache_clear()


def make_workspace(name: str = "ws", **kwargs) -> Workspace:
    """A workspace with ``settings={}`` unless given: one approver, Gregorian months (what rows created before
    the defaults read). A new workspace's defaults come with ``Workspace.objects.create`` / ``workspace_create``."""
    n = next(_seq)
    kwargs.setdefault("settings", {})
    return Workspace.objects.create(name=f"{name}-{n}", slug=f"{name}-{n}", **kwargs)


def make_member(workspace: Workspace, role: str = Role.OWNER, username: str | None = None):
    user = get_user_model().objects.create_user(username or f"user{next(_seq)}", password="pw-123456")
    membership_set(workspace=workspace, user=user, role=role)
    return user


def make_actor(workspace: Workspace, role: str = Role.OWNER, user=None) -> Actor:
    user = user or make_member(workspace, role)
    membership = user.memberships.get(workspace=workspace)
    return Actor(user=user, workspace=workspace, membership=membership)


def make_target(workspace: Workspace, *, mobile: str | None = None, landline: str | None = None, **kwargs) -> Target:
    n = next(_seq)
    if mobile is None and landline is None:
        mobile = f"+98912{n:07d}"
    return Target.objects.create(
        workspace=workspace, name=kwargs.pop("name", f"مخاطب {n}"), mobile=mobile, landline=landline, **kwargs
    )


def make_list(workspace: Workspace, name: str | None = None) -> TargetList:
    return TargetList.objects.create(workspace=workspace, name=name or f"فهرست {next(_seq)}")


def make_campaign(workspace: Workspace, **kwargs) -> Campaign:
    """A campaign; given a chain field (``group``, ``root``, ``goal`` …) it is made with its chains row."""
    from campaigns.chains.models import ChainNode

    chain = {f.name for f in ChainNode._meta.local_fields} | {f.attname for f in ChainNode._meta.local_fields}
    model = ChainNode if chain & set(kwargs) else Campaign
    return model.objects.create(workspace=workspace, name=kwargs.pop("name", f"کمپین {next(_seq)}"), **kwargs)


def make_chain_member(campaign: Campaign, *, root: Campaign | None = None):
    """Put a campaign of any kind in a chain (``root``: itself by default), as chains would: its chains row."""
    from campaigns.chains.models import ChainNode
    from campaigns.chains.nodes import node_rows_ensure

    node_rows_ensure(workspace=campaign.workspace_id, campaign_ids=[campaign.pk])
    ChainNode.objects.filter(pk=campaign.pk).update(root_id=(root or campaign).pk)
    return ChainNode.objects.get(pk=campaign.pk)


def api_client_for(user, workspace: Workspace | None = None) -> APIClient:
    """A client with a key of ``user`` bound to ``workspace`` (default: the user's default or only one)."""
    client = APIClient()
    if workspace is None:
        workspace = memberships_of(user).first().workspace
    else:
        client.defaults["HTTP_X_WORKSPACE"] = workspace.slug
    _, key = api_token_create(user=user, workspace=workspace)
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    return client


@pytest.fixture
def workspace(db) -> Workspace:
    return make_workspace("acme")


@pytest.fixture
def other_workspace(db) -> Workspace:
    return make_workspace("other")


@pytest.fixture
def owner(workspace):
    return make_member(workspace, Role.OWNER)


@pytest.fixture
def api(owner, workspace) -> APIClient:
    return api_client_for(owner, workspace)


@pytest.fixture
def actor(workspace, owner) -> Actor:
    return make_actor(workspace, user=owner)
