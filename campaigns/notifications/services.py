"""Writes of notifications and activities (keyword-only, typed)."""

from __future__ import annotations

import logging
from collections.abc import Iterable
from datetime import datetime

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.mail import send_mail
from django.db import IntegrityError, transaction
from django.utils import timezone

from campaigns.choices import Role
from campaigns.models.core import Membership, Target, Workspace
from campaigns.notifications.models import Activity, ActivityKind, ActivityStatus, Notification
from campaigns.platform.errors import Conflict, NotFound, PermissionDenied, ValidationFailed
from campaigns.platform.permissions import Perm
from campaigns.platform.registry import campaign_kind_handler, campaign_page
from campaigns.platform.tenancy import Actor

logger = logging.getLogger(__name__)

EMAIL_SETTING = "notifications_email"  # Workspace.settings: true → every notification is also e-mailed


def workspace_owners(workspace_id: int) -> list[int]:
    """User ids of the workspace's active owners (its active admins when it has none): who hears about the
    channel, and about a campaign whose creator is gone. A deactivated user is told nothing."""
    members = Membership.objects.filter(workspace_id=workspace_id, user__is_active=True)
    owners = list(members.filter(role=Role.OWNER).values_list("user_id", flat=True))
    return owners or list(members.filter(role=Role.ADMIN).values_list("user_id", flat=True))


def _user_id(recipient) -> int | None:
    return recipient if isinstance(recipient, int) or recipient is None else recipient.pk


def notification_send(
    *,
    workspace: Workspace | int,
    recipients: Iterable,
    kind: str,
    title: str,
    body: str = "",
    link: str = "",
    dedupe_key: str,
) -> list[Notification]:
    """Notify members (users or user ids) of the workspace, once per recipient and ``dedupe_key``.

    Idempotent under concurrency: the unique (recipient, dedupe_key) key decides, so two workers sending
    the same key leave one row and only the one that inserted it sends the e-mail.
    Recipients who are not members of the workspace are skipped. Returns the rows this call created."""
    workspace_id = workspace if isinstance(workspace, int) else workspace.pk
    wanted = {_user_id(r) for r in recipients} - {None}
    if not wanted:
        return []
    members = set(
        Membership.objects.filter(workspace_id=workspace_id, user_id__in=wanted).values_list("user_id", flat=True)
    )
    created: list[Notification] = []
    for user_id in sorted(members):
        try:
            with transaction.atomic():  # a savepoint: a concurrent twin waits for ours, then hits the key
                created.append(
                    Notification.objects.create(
                        workspace_id=workspace_id,
                        recipient_id=user_id,
                        kind=kind[:40],
                        title=title[:200],
                        body=body,
                        link=link[:500],
                        dedupe_key=dedupe_key[:200],
                    )
                )
        except IntegrityError:
            continue  # already sent under this key
    if created and _email_enabled(workspace_id):
        transaction.on_commit(lambda ids=[n.pk for n in created]: notifications_email(notification_ids=ids))
    return created


def _email_enabled(workspace_id: int) -> bool:
    ws_settings = Workspace.objects.filter(pk=workspace_id).values_list("settings", flat=True).first() or {}
    return bool(ws_settings.get(EMAIL_SETTING))


def notifications_email(*, notification_ids: list[int]) -> int:
    """E-mail each notification once (the ``emailed_at`` claim is a conditional UPDATE)."""
    sent = 0
    users = get_user_model().objects
    for n in Notification.objects.filter(pk__in=notification_ids, emailed_at__isnull=True):
        if not Notification.objects.filter(pk=n.pk, emailed_at__isnull=True).update(emailed_at=timezone.now()):
            continue  # another worker took it
        address = users.filter(pk=n.recipient_id).values_list("email", flat=True).first()
        if not address:
            continue
        text = n.body + (f"\n\n{_site_url().rstrip('/')}{n.link}" if n.link and _site_url() else "")
        try:
            send_mail(n.title, text, None, [address], fail_silently=False)
            sent += 1
        except Exception:
            logger.warning("notification %s: e-mail to recipient %s failed", n.pk, n.recipient_id)
    return sent


def _site_url() -> str:
    return settings.SITE_URL


def notification_mark(*, actor: Actor, notification_id: int, read: bool) -> Notification:
    """Mark one of the actor's own notifications read or unread."""
    n = Notification.objects.filter(
        pk=notification_id, recipient_id=actor.user.pk, workspace_id=actor.workspace.pk
    ).first()
    if n is None:
        raise NotFound()
    n.read_at = (n.read_at or timezone.now()) if read else None
    Notification.objects.filter(pk=n.pk).update(read_at=n.read_at)
    return n


def notifications_mark_all_read(*, actor: Actor) -> int:
    return Notification.objects.filter(
        recipient_id=actor.user.pk, workspace_id=actor.workspace.pk, read_at__isnull=True
    ).update(read_at=timezone.now())


# --------------------------------------------------------------------------- activities
def activity_create(
    *,
    workspace_id: int,
    target: Target,
    title: str,
    description: str = "",
    kind: str = ActivityKind.TASK,
    due_at: datetime | None = None,
    assignee_id: int | None = None,
    source: tuple[int, int, int] | None = None,
    campaign_id: int | None = None,
    link: str = "",
    notify: bool = True,
) -> tuple[Activity, bool]:
    """Create an activity (once per source step) and notify its assignee (unless ``notify`` is off).
    Returns (activity, created)."""
    if target.workspace_id != workspace_id:
        raise ValidationFailed(details={"target": ["این مورد به فضای کاری دیگری تعلق دارد."]})
    if kind not in ActivityKind.values:
        raise ValidationFailed(details={"kind": ["نوع پیگیری نامعتبر است."]})
    if (
        assignee_id is not None
        and not Membership.objects.filter(workspace_id=workspace_id, user_id=assignee_id).exists()
    ):
        assignee_id = None
    fields = {
        "workspace_id": workspace_id,
        "target": target,
        "kind": kind,
        "title": (title or "پیگیری").strip()[:200],
        "description": description,
        "due_at": due_at,
        "assignee_id": assignee_id,
        "source_campaign_id": campaign_id,
    }
    if source is not None:
        execution_id, cycle, node_id = source
        existing = Activity.objects.filter(
            source_execution_id=execution_id, source_cycle=cycle, source_node_id=node_id
        ).first()
        if existing is not None:
            return existing, False
        try:
            with transaction.atomic():
                activity = Activity.objects.create(
                    **fields, source_execution_id=execution_id, source_cycle=cycle, source_node_id=node_id
                )
        except IntegrityError:  # a concurrent replay created it first
            return Activity.objects.get(
                source_execution_id=execution_id, source_cycle=cycle, source_node_id=node_id
            ), False
    else:
        activity = Activity.objects.create(**fields)
    if assignee_id is not None and notify:
        notification_send(
            workspace=workspace_id,
            recipients=[assignee_id],
            kind="activity_assigned",
            title=f"پیگیری تازه: {activity.title}",
            body=f"مخاطب: {target.name}\n{activity.description}".strip(),
            link=link or "/followups/",
            dedupe_key=f"activity:{activity.pk}",
        )
    return activity, True


def may_close_activity(*, actor: Actor, activity: Activity) -> bool:
    """Done / reopen: the activity's assignee, or a role that manages targets (operators: on their targets,
    the only ones ``activity_queryset`` shows them)."""
    return activity.assignee_id == actor.user.pk or actor.has(Perm.MANAGE_TARGETS)


def activity_set_status(*, actor: Actor, activity_id: int, done: bool) -> Activity:
    """Done / reopen (the assignee, or anyone who manages targets)."""
    from campaigns.notifications.selectors import activity_queryset

    activity = activity_queryset(actor=actor).filter(pk=activity_id).first()
    if activity is None:
        raise NotFound()
    if not may_close_activity(actor=actor, activity=activity):
        raise PermissionDenied("فقط مسئول این پیگیری یا مدیران مخاطبان آن را می‌بندند یا باز می‌کنند.")
    target_status = ActivityStatus.DONE if done else ActivityStatus.OPEN
    if activity.status == target_status:
        raise Conflict("پیگیری همین حالا در این وضعیت است.")
    values = {"status": target_status, "done_at": timezone.now() if done else None, "updated_at": timezone.now()}
    if not Activity.objects.filter(pk=activity.pk, status=activity.status).update(**values):
        raise Conflict("وضعیت پیگیری هم‌زمان تغییر کرد.")
    activity.refresh_from_db()
    return activity


# --- campaign lifecycle (docs/ui.md "Notifications") ------------------------------------------------------
_NOT_A_START = ("paused",)  # resuming is not starting


def _campaign_link(campaign) -> str:
    from django.urls import reverse

    if registered := campaign_page(campaign):  # a chain member: its runs page (registered by chains)
        return registered
    handler = campaign_kind_handler(campaign.kind)  # else its kind's page
    return reverse(handler.page, kwargs={"campaign_id": campaign.pk}) if handler and handler.page else ""


def campaign_recipients(campaign) -> list[int]:
    """Who is told about a campaign: whoever created it while they are an active member of its workspace, else
    the workspace's owners (a creator deleted, deactivated or removed from the workspace hears nothing)."""
    creator = campaign.created_by_id
    if (
        creator
        and Membership.objects.filter(
            workspace_id=campaign.workspace_id, user_id=creator, user__is_active=True
        ).exists()
    ):
        return [creator]
    return workspace_owners(campaign.workspace_id)


def campaign_status_notify(*, campaign, from_status: str, to_status: str, data: dict | None = None) -> None:
    """A campaign started (first time active) or finished (completed): its creator is told, once."""
    if to_status == "active" and from_status not in _NOT_A_START:
        kind, title, body = "campaign_started", f"کمپین «{campaign.name}» شروع شد", ""
    elif to_status == "completed":
        kind, title = "campaign_finished", f"کمپین «{campaign.name}» به پایان رسید"
        body = "در زمان پایانش؛ اجراهای زنده‌ی آن متوقف شدند." if (data or {}).get("reason") == "ends_at" else ""
    else:
        return
    notification_send(
        workspace=campaign.workspace_id,
        recipients=campaign_recipients(campaign),
        kind=kind,
        title=title,
        body=body,
        link=_campaign_link(campaign),
        dedupe_key=f"{kind}:{campaign.pk}",
    )
