"""Reads of notifications and activities."""

from __future__ import annotations

from django.db.models import QuerySet

from campaigns.notifications.models import Activity, Notification
from campaigns.platform.permissions import Perm
from campaigns.platform.tenancy import Actor, scoped


def notification_queryset(*, actor: Actor, unread: bool | None = None) -> QuerySet[Notification]:
    """The actor's own notifications in the current workspace, newest first."""
    qs = scoped(Notification, actor.workspace).filter(recipient_id=actor.user.pk)
    if unread is True:
        qs = qs.filter(read_at__isnull=True)
    elif unread is False:
        qs = qs.filter(read_at__isnull=False)
    return qs.order_by("-created_at", "-id")


def unread_count(*, actor: Actor) -> int:
    return notification_queryset(actor=actor, unread=True).count()


def activity_queryset(*, actor: Actor) -> QuerySet[Activity]:
    """Activities the actor may see: all of the workspace, or only their own (assigned to them or on a
    target they own) for roles limited to their own targets."""
    qs = scoped(Activity, actor.workspace).select_related("target", "assignee")
    if actor.has(Perm.OWN_TARGETS_ONLY):
        from django.db.models import Q

        qs = qs.filter(Q(assignee_id=actor.user.pk) | Q(target__owner_id=actor.user.pk))
    return qs


def activities_of_target(*, actor: Actor, target_id: int) -> QuerySet[Activity]:
    return activity_queryset(actor=actor).filter(target_id=target_id).order_by("status", "due_at", "id")


def my_activities(*, actor: Actor, status: str | None = "open") -> QuerySet[Activity]:
    qs = activity_queryset(actor=actor).filter(assignee_id=actor.user.pk)
    return qs.filter(status=status) if status else qs
