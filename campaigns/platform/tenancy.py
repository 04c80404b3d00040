"""Which workspace a request acts in, and the scoped query helpers.

Pages keep the current workspace in the session (the switcher); API clients
send ``X-Workspace: <slug or id>`` or get their default/only workspace. A
workspace named anywhere in a request body is never trusted.

Every selector starts from ``scoped(Model, workspace)`` so no query can forget
the tenant; ``get_scoped(...)`` turns "not yours" into 404 like "not there".
"""

import datetime as dt
import zoneinfo
from dataclasses import dataclass

from django.db import models
from django.utils import timezone

from campaigns.platform.errors import NotFound, PermissionDenied, WorkspaceNotFound, WorkspaceRequired
from campaigns.platform.models import Membership, Workspace
from campaigns.platform.text import typed_int

SESSION_KEY = "workspace_id"


@dataclass(frozen=True)
class Actor:
    """The acting user inside one workspace."""

    user: object
    workspace: Workspace
    membership: Membership

    def has(self, perm: str) -> bool:
        return self.membership.has(perm)

    def require(self, perm: str) -> None:
        if not self.has(perm):
            raise PermissionDenied()


def scoped(model: type[models.Model], workspace: Workspace | None) -> models.QuerySet:
    """The only way selectors start a tenant query."""
    if workspace is None:
        raise WorkspaceRequired()
    qs = model._default_manager.filter(workspace=workspace)
    if any(f.name == "deleted_at" for f in model._meta.fields):
        qs = qs.filter(deleted_at__isnull=True)
    return qs


def get_scoped(model: type[models.Model], workspace: Workspace, pk, *, queryset=None) -> models.Model:
    """One object of this workspace, or NotFound (also for other workspaces' ids)."""
    qs = queryset if queryset is not None else scoped(model, workspace)
    try:
        return qs.get(pk=pk)
    except (model.DoesNotExist, ValueError, TypeError):
        raise NotFound() from None


def memberships_of(user) -> models.QuerySet:
    return Membership.objects.filter(user=user).select_related("workspace").order_by("-is_default", "workspace__name")


def members_of(workspace: Workspace) -> models.QuerySet:
    return Membership.objects.filter(workspace=workspace).select_related("user").order_by("user__username")


def membership_for(user, ref: str | int | None) -> Membership | None:
    """The user's membership of the workspace named by slug or id, or None."""
    qs = memberships_of(user)
    if ref in (None, ""):
        return None
    ref = str(ref).strip()
    if (workspace_id := typed_int(ref)) is not None:
        return qs.filter(workspace_id=workspace_id).first() or qs.filter(workspace__slug=ref).first()
    return qs.filter(workspace__slug=ref).first()


def resolve_actor(user, *, header: str | None, session_workspace_id: int | None) -> Actor:
    """Header first (must be a membership), then the session's, then default/only."""
    if not user or not user.is_authenticated:
        raise PermissionDenied()
    if header:
        membership = membership_for(user, header)
        if membership is None:
            raise WorkspaceNotFound()
        return Actor(user=user, workspace=membership.workspace, membership=membership)
    if session_workspace_id:
        membership = membership_for(user, session_workspace_id)
        if membership is not None:
            return Actor(user=user, workspace=membership.workspace, membership=membership)
    memberships = list(memberships_of(user)[:2])
    if not memberships:
        raise WorkspaceNotFound("شما عضو هیچ فضای کاری نیستید.")
    if memberships[0].is_default or len(memberships) == 1:
        m = memberships[0]
        return Actor(user=user, workspace=m.workspace, membership=m)
    raise WorkspaceRequired()


def workspace_zone(workspace: Workspace) -> dt.tzinfo:
    """The workspace's time zone (the server's when its name is unknown). A streamed export resolves it
    before the response starts: the body is written after the request's activated zone is gone."""
    try:
        return zoneinfo.ZoneInfo(workspace.time_zone)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        return timezone.get_default_timezone()


def activate_workspace_timezone(workspace: Workspace | None) -> None:
    if workspace is None:
        timezone.deactivate()
        return
    try:
        timezone.activate(zoneinfo.ZoneInfo(workspace.time_zone))
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        timezone.deactivate()


class WorkspaceMiddleware:
    """For pages: ``request.actor`` from the session and the workspace time zone."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        request.actor = None
        user = getattr(request, "user", None)
        if user is not None and user.is_authenticated and not request.path.startswith("/api/"):
            try:
                request.actor = resolve_actor(user, header=None, session_workspace_id=request.session.get(SESSION_KEY))
            except (WorkspaceRequired, WorkspaceNotFound, PermissionDenied):
                first = memberships_of(user).first()
                if first is not None:
                    request.actor = Actor(user=user, workspace=first.workspace, membership=first)
            if request.actor is not None and request.session.get(SESSION_KEY) != request.actor.workspace.id:
                # Written only when it changes: an unchanged session is not saved (no UPDATE and commit per page).
                request.session[SESSION_KEY] = request.actor.workspace.id
        activate_workspace_timezone(request.actor.workspace if request.actor else None)
        try:
            return self.get_response(request)
        finally:
            timezone.deactivate()
