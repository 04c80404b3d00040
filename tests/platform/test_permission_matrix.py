"""Role × endpoint matrix, generated from the URLconf and the role → permission map.

Every API view under ``/api/v1/`` declares ``read_permission``/``write_permission``
(``WorkspaceAPIView``); every page declares its permissions with ``workspace_page``
(``campaigns/platform/pages.py``), read here from the URLconf. For each role, a request
is refused (403/404) exactly when the role lacks the permission, and never answered 403
when it has it. Objects need not exist: an allowed request may end in 400 or 404
(missing object), a refused one never gets that far. A new endpoint without a permission
declaration, or a new page that is no ``workspace_page`` (and not in ``SIGNED_IN_PAGES``), fails here.
"""

import re

import pytest
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver

from campaigns.choices import Role
from campaigns.platform.api.base import WorkspaceAPIView
from campaigns.platform.pages import PagePermissions, page_permissions
from campaigns.platform.permissions import ROLE_PERMISSIONS, Perm

from ..conftest import api_client_for, make_member, make_workspace

WRITE_METHODS = ("post", "put", "patch", "delete")

# Writes any member may make (``write_permission = None``): their own notifications and
# activities, previews that change nothing, and campaign creation, where the view
# requires the permission of the requested campaign kind (checked after ``kind`` is read).
MEMBER_WRITES = {
    "api-notifications-read-all": Perm.VIEW,
    "api-notification-read": Perm.VIEW,
    "api-activity-done": Perm.VIEW,
    "api-activity-reopen": Perm.VIEW,
    "api-inheritance-preview": Perm.VIEW,
    "api-chain-root-preview": Perm.VIEW,
    "api-sms-preview": Perm.VIEW,
    "api-campaigns": Perm.VIEW,
}

# API views outside a workspace (not WorkspaceAPIView): who may call them instead.
NON_WORKSPACE_API = {"api-health-journeys": "staff"}

# Pages any signed-in user may open, inside a workspace or not (every other page is a ``workspace_page``).
SIGNED_IN_PAGES = {"home", "workspace-switch", "api-schema", "api-docs"}

# Reachable without a workspace membership (or not a page of this site).
PUBLIC_URL_NAMES = {
    "favicon",
    "healthz",
    "login",
    "logout",
    "metrics",
    "set_language",
    "sms-delivery-webhook",
}  # metrics: its own token; favicon: a redirect to the static icon

ROLES = [Role.OWNER, Role.ADMIN, Role.MANAGER, Role.OPERATOR, Role.VIEWER]
MISSING_ID = "987654"
PATH_ARGUMENT = re.compile(r"<(?:(\w+):)?(\w+)>")


def _walk(patterns, prefix=""):
    for pattern in patterns:
        if isinstance(pattern, URLResolver):
            if str(pattern.pattern).startswith("admin/"):
                continue
            yield from _walk(pattern.url_patterns, prefix + str(pattern.pattern))
        else:
            yield prefix + str(pattern.pattern), pattern


def _url(route: str) -> str:
    """A concrete address for a route: ids of objects that do not exist (a UUID's ends with ``MISSING_ID``),
    ``pause`` for an action."""
    ids = {"int": MISSING_ID, "uuid": f"00000000-0000-0000-0000-000000{MISSING_ID}"}
    return "/" + PATH_ARGUMENT.sub(lambda m: ids.get(m.group(1), "pause"), route)


def _view_class(pattern: URLPattern):
    return getattr(pattern.callback, "view_class", None) or getattr(pattern.callback, "cls", None)


def _api_routes() -> list[tuple[str, str, type]]:
    return [
        (route, pattern.name, _view_class(pattern))
        for route, pattern in _walk(get_resolver().url_patterns)
        if route.startswith("api/v1/")
    ]


def _page_routes() -> list[tuple[str, str, PagePermissions | None]]:
    """(route, url name, what its view declares) of every page; None for ``SIGNED_IN_PAGES`` and undeclared views."""
    return [
        (route, pattern.name, page_permissions(pattern.callback))
        for route, pattern in _walk(get_resolver().url_patterns)
        if not route.startswith(("api/v1/", "api/webhooks/"))
        and route != "api/<path:rest>"  # the JSON 404 of unknown API addresses
        and pattern.name not in PUBLIC_URL_NAMES
    ]


def api_cases() -> list[tuple[str, str, str, str]]:
    """(url name, address, method, permission) for every API operation; declarations are checked first."""
    cases = []
    for route, name, view in _api_routes():
        if name in NON_WORKSPACE_API:
            continue
        for method in ("get", *WRITE_METHODS):
            if view is None or not hasattr(view, method):
                continue
            if method == "get":
                perm = view.read_permission
            else:
                perm = view.write_permission or MEMBER_WRITES.get(name)
            cases.append((name, _url(route), method, perm))
    return cases


def _refused(status: int) -> bool:
    return status in (403, 404)


def test_every_api_endpoint_declares_its_permissions():
    undeclared = []
    for route, name, view in _api_routes():
        if name in NON_WORKSPACE_API:
            continue
        if view is None or not issubclass(view, WorkspaceAPIView):
            undeclared.append(f"{route}: not a WorkspaceAPIView")
            continue
        if hasattr(view, "get") and view.read_permission not in Perm.values:
            undeclared.append(f"{route}: read_permission {view.read_permission!r}")
        writes = [m for m in WRITE_METHODS if hasattr(view, m)]
        if writes and view.write_permission is None and name not in MEMBER_WRITES:
            undeclared.append(f"{route}: {writes} without write_permission")
        if view.write_permission is not None and view.write_permission not in Perm.values:
            undeclared.append(f"{route}: write_permission {view.write_permission!r}")
    assert undeclared == []
    assert set(MEMBER_WRITES) <= {name for _, name, _ in _api_routes()}  # no stale rows


def test_every_page_declares_its_permissions():
    undeclared, declared = [], []
    for route, name, perms in _page_routes():
        if perms is None and name not in SIGNED_IN_PAGES:
            undeclared.append(f"{route} ({name}): not a workspace_page")
        if perms is not None:
            declared.append(name)
            undeclared += [
                f"{route}: {p!r}" for p in (perms.read, perms.write) if p is not None and p not in Perm.values
            ]
    assert undeclared == []
    assert SIGNED_IN_PAGES.isdisjoint(declared)  # no stale rows
    assert SIGNED_IN_PAGES <= {name for _, name, _ in _page_routes()}
    assert len(declared) > 60  # the walk found the pages


@pytest.fixture
def members(db):
    workspace = make_workspace("matrix")
    return workspace, {role: make_member(workspace, role=role) for role in ROLES}


@pytest.mark.parametrize("role", ROLES)
def test_api_refuses_exactly_the_roles_without_the_permission(members, role):
    workspace, users = members
    client = api_client_for(users[role], workspace)
    wrong = []
    for _name, url, method, perm in api_cases():
        allowed = perm in ROLE_PERMISSIONS[role]
        response = getattr(client, method)(url, {}, format="json") if method != "get" else client.get(url)
        status = response.status_code
        has_object = MISSING_ID in url
        if allowed and (status == 403 or (status == 404 and not has_object) or status >= 500):
            wrong.append(f"{method.upper()} {url} ({perm}): {status} although allowed")
        if not allowed and not _refused(status):
            wrong.append(f"{method.upper()} {url} ({perm}): {status} although not allowed")
    assert wrong == []


@pytest.mark.parametrize("role", ROLES)
def test_pages_refuse_exactly_the_roles_without_the_permission(members, role):
    _, users = members
    client = Client()
    client.force_login(users[role])
    wrong = []
    for route, _name, perms in _page_routes():
        perms = perms or PagePermissions(read=None, write=None)
        url = _url(route)
        requests = [("get", perms.read)]
        if perms.write != perms.read:  # a page whose form posts with another permission
            requests.append(("post", perms.write))
        for method, perm in requests:
            status = getattr(client, method)(url, {}).status_code
            if status == 405:  # a POST-only page
                method, perm = "post", perms.write
                status = client.post(url, {}).status_code
            allowed = perm is None or perm in ROLE_PERMISSIONS[role]
            has_object = MISSING_ID in url
            if allowed and (status == 403 or (status == 404 and not has_object) or status >= 500):
                wrong.append(f"{method.upper()} {url} ({perm}): {status} although allowed")
            if not allowed and not _refused(status):
                wrong.append(f"{method.upper()} {url} ({perm}): {status} although not allowed")
    assert wrong == []


def test_journey_health_is_staff_only(members):
    workspace, users = members
    for role in ROLES:
        assert api_client_for(users[role], workspace).get("/api/v1/health/journeys").status_code == 403
    staff = users[Role.VIEWER]
    staff.is_staff = True
    staff.save(update_fields=["is_staff"])
    assert api_client_for(staff, workspace).get("/api/v1/health/journeys").status_code == 200
