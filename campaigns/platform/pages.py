"""The page kernel: one gate in front of every staff page of a workspace.

    @workspace_page(Perm.VIEW, write=Perm.MANAGE_CAMPAIGNS)
    def campaign_dashboard(request, actor, campaign_id): ...

``workspace_page`` signs the user in (login redirect), resolves the acting member of the current
workspace (``request.actor``, set by ``WorkspaceMiddleware``), renders ``campaigns/no_workspace.html``
for a user in no workspace, refuses with 403 a role without the permission — ``permission`` for reading
requests (GET, HEAD, OPTIONS), ``write`` for the others (the same permission unless given; ``None``: any
member) — and calls the view with the actor. A kernel ``NotFound`` raised by a selector becomes 404
(another workspace's object reads as missing), a kernel ``PermissionDenied`` 403.

The decorated view carries ``page_permissions`` (``PagePermissions``): the permission matrix
(``tests/platform/test_permission_matrix.py``) reads it from the URLconf, and the menu checks that it
links only to pages the role may open.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import wraps

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied as Forbidden
from django.http import Http404
from django.shortcuts import render

from campaigns.platform import errors
from campaigns.platform.permissions import Perm

READ_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
NO_WORKSPACE_TEMPLATE = "campaigns/no_workspace.html"
_SAME = object()


@dataclass(frozen=True)
class PagePermissions:
    """What a page requires: ``read`` for GET/HEAD/OPTIONS, ``write`` for the other methods (None: any member)."""

    read: str | None
    write: str | None

    def for_method(self, method: str) -> str | None:
        return self.read if method.upper() in READ_METHODS else self.write


def page_permissions(view: Callable) -> PagePermissions | None:
    """The permissions a URL pattern's view declares through ``workspace_page`` (None: not a workspace page)."""
    return getattr(view, "page_permissions", None)


def workspace_page(permission: str | None = Perm.VIEW, *, write: str | object | None = _SAME):
    """Gate a page: signed in, a member of the current workspace, holding the permission (see the module)."""
    declared = PagePermissions(read=permission, write=permission if write is _SAME else write)  # type: ignore[arg-type]

    def decorator(view: Callable) -> Callable:
        @wraps(view)
        def gated(request, *args, **kwargs):
            actor = getattr(request, "actor", None)
            if actor is None:
                return render(request, NO_WORKSPACE_TEMPLATE)
            needed = declared.for_method(request.method)
            if needed is not None and not actor.has(needed):
                raise Forbidden
            try:
                return view(request, actor, *args, **kwargs)
            except errors.NotFound:
                raise Http404 from None
            except errors.PermissionDenied:
                raise Forbidden from None

        page = login_required(gated)
        page.page_permissions = declared
        return page

    return decorator


@contextmanager
def refusal_shown(request, *, text: Callable[[errors.PlatformError], str] | None = None) -> Iterator[None]:
    """A page's action whose refusal is shown, not raised: a ``PlatformError`` inside the block ends the block and
    its message (or ``text(error)``: the message with what it names) becomes the error notice of the next page;
    the view goes on (to its redirect) either way.

        with refusal_shown(request):
            services.workflow_archive(actor=actor, workflow_id=workflow.id)
            messages.success(request, "…")
        return redirect(...)
    """
    try:
        yield
    except errors.PlatformError as exc:
        messages.error(request, text(exc) if text else exc.message)
