"""Role × endpoint matrix, generated from the URLconf and the role → permission map.

Every API view under ``/api/v1/`` declares ``read_permission``/``write_permission``
(``WorkspaceAPIView``); every page is listed in ``PAGE_PERMISSIONS`` below. For each
role, a request is refused (403/404) exactly when the role lacks the permission, and
never answered 403 when it has it. Objects need not exist: an allowed request may end
in 400 or 404 (missing object), a refused one never gets that far. A new endpoint
without a permission declaration, or a new page without a row, fails here.
"""

import re

import pytest
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver

from campaigns.choices import Role
from campaigns.platform.api.base import WorkspaceAPIView
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
    "api-sms-preview": Perm.VIEW,
    "api-campaigns": Perm.VIEW,
}

# API views outside a workspace (not WorkspaceAPIView): who may call them instead.
NON_WORKSPACE_API = {"api-health-journeys": "staff"}

# Every page URL name → the permission it requires (None: any member of the workspace).
PAGE_PERMISSIONS: dict[str, str | None] = {
    "home": None,
    "workspace-switch": None,
    "api-schema": None,
    "api-docs": None,
    "target-list": None,
    "target-new": None,
    "target-edit": None,
    "target-import": None,
    "target-import-detail": None,
    "notification-list": None,
    "my-followups": None,
    "browser-campaigns": None,
    "browser-campaign": None,
    "browser-campaign-progress": None,
    "browser-campaign-new": Perm.MANAGE_CAMPAIGNS,
    "browser-campaign-accounts": Perm.MANAGE_CAMPAIGNS,
    "browser-campaign-edit": Perm.MANAGE_CAMPAIGNS,
    "browser-campaign-control": Perm.MANAGE_CAMPAIGNS,
    "browser-accounts": Perm.VIEW_BROWSER_DETAILS,
    "browser-account-new": Perm.MANAGE_BROWSER,
    "browser-account-edit": Perm.MANAGE_BROWSER,
    "browser-account-action": Perm.MANAGE_BROWSER,
    "browser-proxies": Perm.VIEW_BROWSER_DETAILS,
    "browser-proxy-new": Perm.MANAGE_BROWSER,
    "browser-proxy-edit": Perm.MANAGE_BROWSER,
    "browser-proxy-reset": Perm.MANAGE_BROWSER,
    "browser-account-import": Perm.MANAGE_BROWSER,
    "browser-task-screenshot": Perm.VIEW_BROWSER_DETAILS,
    "browser-proxy-import": Perm.MANAGE_BROWSER,
    "chain-groups": Perm.VIEW,
    "chain-group-new": Perm.MANAGE_CAMPAIGNS,
    "chain-group": Perm.VIEW,
    "chain-group-edit": Perm.MANAGE_CAMPAIGNS,
    "chain-group-archive": Perm.MANAGE_CAMPAIGNS,
    "chain-campaign-new": Perm.MANAGE_CAMPAIGNS,
    "chain-campaign-edit": Perm.MANAGE_CAMPAIGNS,
    "chain-campaign-delete": Perm.MANAGE_CAMPAIGNS,
    "chain-campaign-clone": Perm.MANAGE_CAMPAIGNS,
    "chain-group-add": Perm.MANAGE_CAMPAIGNS,
    "chain-submit": Perm.MANAGE_CAMPAIGNS,
    "chain-control": Perm.MANAGE_CAMPAIGNS,
    "chain-campaign-runs": Perm.VIEW,
    "chain-run-now": Perm.MANAGE_CAMPAIGNS,
    "chain-run-rerun": Perm.MANAGE_CAMPAIGNS,
    "chain-run-export": Perm.VIEW,
    "chain-preview": Perm.MANAGE_CAMPAIGNS,
    "chain-audience-count": Perm.MANAGE_CAMPAIGNS,
    "chain-packages": Perm.VIEW,
    "chain-package": Perm.VIEW,
    "chain-package-approve": Perm.APPROVE_CHAINS,
    "chain-package-reject": Perm.APPROVE_CHAINS,
    "chain-package-withdraw": Perm.MANAGE_CAMPAIGNS,
    "workflow-list": Perm.MANAGE_WORKFLOWS,
    "workflow-new": Perm.MANAGE_WORKFLOWS,
    "workflow-detail": Perm.MANAGE_WORKFLOWS,
    "workflow-publish": Perm.MANAGE_WORKFLOWS,
    "workflow-new-draft": Perm.MANAGE_WORKFLOWS,
    "workflow-archive": Perm.MANAGE_WORKFLOWS,
    "workflow-save-template": Perm.MANAGE_WORKFLOWS,
    "workflow-builder": Perm.MANAGE_WORKFLOWS,
    "workflow-builder-add": Perm.MANAGE_WORKFLOWS,
    "workflow-builder-step": Perm.MANAGE_WORKFLOWS,
    "workflow-builder-remove": Perm.MANAGE_WORKFLOWS,
    "workflow-builder-window": Perm.MANAGE_WORKFLOWS,
    "workflow-builder-preview": Perm.MANAGE_WORKFLOWS,
    "journey-campaign-list": Perm.VIEW,
    "journey-campaign-new": Perm.MANAGE_CAMPAIGNS,
    "journey-campaign-dashboard": Perm.VIEW,
    "journey-campaign-control": Perm.MANAGE_CAMPAIGNS,
    "journey-campaign-enroll": Perm.MANAGE_CAMPAIGNS,
    "journey-campaign-edit": Perm.MANAGE_CAMPAIGNS,
    "journey-enrollment-review": Perm.MANAGE_CAMPAIGNS,
    "journey-enrollment-decide": Perm.MANAGE_CAMPAIGNS,
    "journey-enrollment-commit": Perm.MANAGE_CAMPAIGNS,
    "journey-enrollment-discard": Perm.MANAGE_CAMPAIGNS,
    "journey-enrollment-progress": Perm.MANAGE_CAMPAIGNS,
    "journey-campaign-targets": Perm.VIEW,
    "journey-campaign-logs": Perm.VIEW,
    "journey-campaign-auto-enroll": Perm.MANAGE_CAMPAIGNS,
    "journey-auto-enroll-count": Perm.MANAGE_CAMPAIGNS,
    "journey-health": Perm.VIEW,
    "sms-home": Perm.VIEW_SMS_LOGS,  # redirects to the first SMS tab the role may see; none: 404
    "sms-attempts": Perm.VIEW_SMS_LOGS,
    "sms-blacklist": Perm.MANAGE_BLACKLIST,
    "sms-blacklist-action": Perm.MANAGE_BLACKLIST,
    "sms-templates": Perm.MANAGE_WORKFLOWS,
    "sms-template-new": Perm.MANAGE_WORKFLOWS,
    "sms-template-edit": Perm.MANAGE_WORKFLOWS,
    "sms-settings": Perm.MANAGE_WORKSPACE,
    "sms-account-edit": Perm.MANAGE_WORKSPACE,
    "sms-account-test": Perm.MANAGE_WORKSPACE,
}

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
    """A concrete address for a route: ids of objects that do not exist, ``pause`` for an action."""
    return "/" + PATH_ARGUMENT.sub(lambda m: MISSING_ID if m.group(1) == "int" else "pause", route)


def _view_class(pattern: URLPattern):
    return getattr(pattern.callback, "view_class", None) or getattr(pattern.callback, "cls", None)


def _api_routes() -> list[tuple[str, str, type]]:
    return [
        (route, pattern.name, _view_class(pattern))
        for route, pattern in _walk(get_resolver().url_patterns)
        if route.startswith("api/v1/")
    ]


def _page_routes() -> list[tuple[str, str]]:
    return [
        (route, pattern.name)
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


def test_every_page_has_a_permission_row():
    names = {name for _, name in _page_routes()}
    assert names - set(PAGE_PERMISSIONS) == set(), "a page without a row in PAGE_PERMISSIONS"
    assert set(PAGE_PERMISSIONS) - names == set(), "a row for a page that no longer exists"
    assert all(perm is None or perm in Perm.values for perm in PAGE_PERMISSIONS.values())


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
    for route, name in _page_routes():
        perm = PAGE_PERMISSIONS[name]
        allowed = perm is None or perm in ROLE_PERMISSIONS[role]
        url = _url(route)
        status = client.get(url).status_code
        if status == 405:  # a POST-only page
            status = client.post(url, {}).status_code
        has_object = MISSING_ID in url
        if allowed and (status == 403 or (status == 404 and not has_object) or status >= 500):
            wrong.append(f"{url} ({perm}): {status} although allowed")
        if not allowed and not _refused(status):
            wrong.append(f"{url} ({perm}): {status} although not allowed")
    assert wrong == []


def test_journey_health_is_staff_only(members):
    workspace, users = members
    for role in ROLES:
        assert api_client_for(users[role], workspace).get("/api/v1/health/journeys").status_code == 403
    staff = users[Role.VIEWER]
    staff.is_staff = True
    staff.save(update_fields=["is_staff"])
    assert api_client_for(staff, workspace).get("/api/v1/health/journeys").status_code == 200
