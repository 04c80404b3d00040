"""The page kernel (``campaigns/platform/pages.py``): every workspace page answers the same way to a visitor
who is signed out, to a user in no workspace, to a role without the permission and to a missing object."""

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import AnonymousUser
from django.core.exceptions import PermissionDenied as Forbidden
from django.http import Http404, HttpResponse
from django.test import Client, RequestFactory

from campaigns.choices import Role
from campaigns.platform.errors import NotFound
from campaigns.platform.pages import page_permissions, workspace_page
from campaigns.platform.permissions import Perm

from ..conftest import make_actor, make_workspace
from .test_permission_matrix import _page_routes, _url


def _workspace_pages():
    return [(route, name) for route, name, perms in _page_routes() if perms is not None]


def _open(client, url):
    response = client.get(url)
    return client.post(url, {}) if response.status_code == 405 else response


@pytest.mark.django_db
def test_signed_out_visitors_are_sent_to_the_login_page_from_every_workspace_page():
    client = Client()
    for route, name in _workspace_pages():
        response = _open(client, _url(route))
        assert response.status_code == 302 and response["Location"].startswith("/login/"), name


@pytest.mark.django_db
def test_a_user_in_no_workspace_gets_the_same_page_everywhere():
    client = Client()
    client.force_login(get_user_model().objects.create_user("lonely", password="x"))
    for route, name in _workspace_pages():
        response = _open(client, _url(route))
        assert response.status_code == 200, name
        assert "شما هنوز عضو هیچ فضای کاری نیستید" in response.content.decode(), name


@workspace_page(Perm.VIEW, write=Perm.MANAGE_CAMPAIGNS)
def _page(request, actor, missing=False):
    if missing:
        raise NotFound()
    return HttpResponse(f"{actor.membership.role}:{request.method}")


def _request(method, actor):
    request = getattr(RequestFactory(), method)("/x/")
    request.user = actor.user if actor else AnonymousUser()
    request.actor = actor
    return request


@pytest.mark.django_db
def test_reading_and_writing_need_their_own_permission():
    viewer = make_actor(make_workspace("shop"), role=Role.VIEWER)
    assert _page(_request("get", viewer)).content == b"viewer:GET"
    with pytest.raises(Forbidden):
        _page(_request("post", viewer))
    manager = make_actor(viewer.workspace, role=Role.MANAGER)
    assert _page(_request("post", manager)).content == b"manager:POST"
    assert page_permissions(_page).read == Perm.VIEW and page_permissions(_page).write == Perm.MANAGE_CAMPAIGNS


@pytest.mark.django_db
def test_a_missing_object_reads_as_404():
    actor = make_actor(make_workspace("shop"))
    with pytest.raises(Http404):
        _page(_request("get", actor), missing=True)


@pytest.mark.django_db
def test_reading_pages_writes_nothing_once_the_session_knows_the_workspace():
    """The chosen workspace is stored in the session when it changes, not on every page: a page view of a
    signed-in member is no UPDATE of the session and no commit."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from ..conftest import make_member

    workspace = make_workspace()
    client = Client()
    client.force_login(make_member(workspace, Role.OWNER))
    assert client.get("/targets/").status_code == 200  # the first page stores the workspace in the session
    with CaptureQueriesContext(connection) as captured:
        assert client.get("/targets/").status_code == 200
        assert client.get("/").status_code == 200
    writes = [q["sql"] for q in captured if q["sql"].split(None, 1)[0].upper() in ("UPDATE", "INSERT", "DELETE")]
    assert writes == []
