"""Workspaces and memberships."""

import zoneinfo

from django.db import transaction
from django.utils.text import slugify

from campaigns.approval_selectors import (
    FOUR_EYES_SETTING,
    WORKSPACE_APPROVAL_SETTING,
    four_eyes,
    workspace_needs_approval,
)
from campaigns.calendar import CALENDAR_SETTING, GREGORIAN, JALALI, workspace_calendar
from campaigns.choices import Role
from campaigns.events import workspace_settings_changed_event
from campaigns.models import Membership, Workspace
from campaigns.platform.errors import ValidationFailed
from campaigns.platform.permissions import Perm
from campaigns.platform.tenancy import Actor


def workspace_create(*, name: str, slug: str | None = None, time_zone: str = "Asia/Tehran", owner=None) -> Workspace:
    try:
        zoneinfo.ZoneInfo(time_zone)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        raise ValidationFailed.field("time_zone", "منطقه زمانی نامعتبر است.") from None
    slug = slug or slugify(name, allow_unicode=False) or "workspace"
    if Workspace.objects.filter(slug=slug).exists():
        raise ValidationFailed.field("slug", "این شناسه قبلاً استفاده شده است.")
    with transaction.atomic():
        # ``settings`` comes from the model's default, like every other path that creates a workspace:
        # the registered defaults (``campaigns.platform.registry.workspace_default_settings``).
        workspace = Workspace.objects.create(name=name, slug=slug, time_zone=time_zone)
        if owner is not None:
            membership_set(workspace=workspace, user=owner, role=Role.OWNER)
    return workspace


def workspace_settings_set(*, actor: Actor, values: dict) -> Workspace:
    """Merge ``values`` into ``Workspace.settings`` (a ``None`` value removes the key); the caller validated
    them. The row is locked so two changes of different keys do not overwrite each other."""
    actor.require(Perm.MANAGE_WORKSPACE)
    with transaction.atomic():
        workspace = Workspace.objects.select_for_update().get(pk=actor.workspace.pk)
        settings = dict(workspace.settings or {})
        for key, value in values.items():
            if value is None:
                settings.pop(key, None)
            else:
                settings[key] = value
        _settings_save(actor, workspace, settings)
    actor.workspace.settings = workspace.settings
    return workspace


def _settings_save(actor: Actor, workspace: Workspace, settings: dict) -> None:
    """Write the (locked) workspace's new ``settings`` and record the keys that changed, before and after."""
    old = workspace.settings or {}
    changed = sorted(key for key in set(old) | set(settings) if old.get(key) != settings.get(key))
    if not changed:
        return
    workspace.settings = settings
    workspace.save(update_fields=["settings"])
    workspace_settings_changed_event(
        workspace_id=workspace.id,
        actor=actor.user,
        before={key: old.get(key) for key in changed},
        after={key: settings.get(key) for key in changed},
    )


def workspace_approval_settings_update(
    *,
    actor: Actor,
    campaigns_need_approval: bool | None = None,
    approval_four_eyes: bool | None = None,
    calendar: str | None = None,
) -> Workspace:
    """Approval and schedule settings of the actor's workspace (``None``: leave that one as it is).

    ``campaigns_need_approval``: a standalone campaign starts only once approved; ``approval_four_eyes``: the
    submitter of a package (or a campaign) may not approve it; ``calendar``: ``"jalali"`` or ``"gregorian"``
    months in chain schedules, from the next computation on (docs/chains.md "Schedule maths").

    Only a value that differs from what the workspace reads now is written — a missing key keeps meaning its
    default (off, off, Gregorian) — and every other key of ``Workspace.settings`` is kept. Every change is
    recorded as a ``WorkspaceSettingsEvent`` (who, before, after), shown on the settings page. A package or
    campaign already submitted keeps the four-eyes rule it bound at submit.
    """
    actor.require(Perm.MANAGE_WORKSPACE)
    wanted = {
        WORKSPACE_APPROVAL_SETTING: campaigns_need_approval,
        FOUR_EYES_SETTING: approval_four_eyes,
        CALENDAR_SETTING: calendar,
    }
    for key, value in wanted.items():
        if key == CALENDAR_SETTING:
            if value is not None and value not in (JALALI, GREGORIAN):
                raise ValidationFailed.field("calendar", "تقویم باید «شمسی» یا «میلادی» باشد.")
        elif value is not None and not isinstance(value, bool):
            raise ValidationFailed.field(key, "مقدار باید true یا false باشد.")
    with transaction.atomic():
        workspace = Workspace.objects.select_for_update().get(pk=actor.workspace.pk)
        current = {
            WORKSPACE_APPROVAL_SETTING: workspace_needs_approval(workspace),
            FOUR_EYES_SETTING: four_eyes(workspace),
            CALENDAR_SETTING: workspace_calendar(workspace),
        }
        changes = {key: value for key, value in wanted.items() if value is not None and value != current[key]}
        if changes:
            _settings_save(actor, workspace, {**(workspace.settings or {}), **changes})
    actor.workspace.settings = workspace.settings
    return workspace


def workspace_time_zone_set(*, actor: Actor, time_zone: str) -> Workspace:
    """The workspace's time zone: its calendar days, send windows and the dates its pages show and read."""
    actor.require(Perm.MANAGE_WORKSPACE)
    try:
        zoneinfo.ZoneInfo(time_zone)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        raise ValidationFailed.field("time_zone", "منطقه زمانی نامعتبر است.") from None
    with transaction.atomic():
        workspace = Workspace.objects.select_for_update().get(pk=actor.workspace.pk)
        if workspace.time_zone != time_zone:
            Workspace.objects.filter(pk=workspace.pk).update(time_zone=time_zone)
            workspace_settings_changed_event(
                workspace_id=workspace.id,
                actor=actor.user,
                before={"time_zone": workspace.time_zone},
                after={"time_zone": time_zone},
            )
    actor.workspace.time_zone = time_zone
    return actor.workspace


def membership_set(*, workspace: Workspace, user, role: str, is_default: bool | None = None) -> Membership:
    """Add a member or change their role. The first membership becomes the default."""
    if role not in Role.values:
        raise ValidationFailed.field("role", "نقش نامعتبر است.")
    with transaction.atomic():
        membership, _ = Membership.objects.update_or_create(workspace=workspace, user=user, defaults={"role": role})
        has_default = Membership.objects.filter(user=user, is_default=True).exclude(pk=membership.pk).exists()
        if is_default or (is_default is None and not has_default):
            Membership.objects.filter(user=user, is_default=True).exclude(pk=membership.pk).update(is_default=False)
            Membership.objects.filter(pk=membership.pk).update(is_default=True)
            membership.is_default = True
    return membership
