"""The workspace's engine settings: automation on/off, the default send window and the global daily limit."""

from __future__ import annotations

import zoneinfo
from typing import Any

from automation.engine.context import automation_settings, workspace_tz
from automation.engine.window import WindowError, window_for_save
from automation.models import AutomationSettings
from campaigns.platform.errors import ValidationFailed
from campaigns.platform.permissions import Perm
from campaigns.platform.services import model_update
from campaigns.platform.tenancy import Actor

SETTINGS_FIELDS = {"enabled", "timezone", "default_send_window", "global_daily_limit"}


def automation_settings_get(*, actor: Actor) -> AutomationSettings:
    return automation_settings(actor.workspace)


def automation_settings_update(*, actor: Actor, data: dict[str, Any]) -> AutomationSettings:
    """``enabled``: off = the scheduler runs no journey of the workspace; ``timezone``: "" (the workspace's) or
    a zone (the settings page sets it with the workspace's, so pages and engine count the same days);
    ``default_send_window``: a SendWindow config or None (always open); ``global_daily_limit``: ≥ 1 or None."""
    actor.require(Perm.MANAGE_WORKSPACE)
    unknown = set(data) - SETTINGS_FIELDS
    if unknown:
        raise ValidationFailed(details={key: ["فیلد ناشناخته"] for key in sorted(unknown)})
    settings = automation_settings(actor.workspace)
    changes: dict[str, Any] = {}
    if "enabled" in data:
        if not isinstance(data["enabled"], bool):
            raise ValidationFailed.field("enabled", "مقدار باید true یا false باشد.")
        changes["enabled"] = data["enabled"]
    if "timezone" in data:
        zone = data["timezone"] or ""
        try:
            if zone:
                zoneinfo.ZoneInfo(zone)
        except (zoneinfo.ZoneInfoNotFoundError, ValueError, TypeError):
            raise ValidationFailed.field("timezone", "منطقه زمانی نامعتبر است.") from None
        changes["timezone"] = zone
    if "default_send_window" in data:
        try:
            zone = changes["timezone"] if "timezone" in changes else settings.timezone
            window = window_for_save(data["default_send_window"], zone or workspace_tz(actor.workspace))
        except WindowError as exc:
            raise ValidationFailed.field("default_send_window", f"بازه ارسال نامعتبر است: {exc}") from None
        changes["default_send_window"] = window.to_config() if window else None
    if "global_daily_limit" in data:
        limit = data["global_daily_limit"]
        if limit is not None and (not isinstance(limit, int) or limit < 1):
            raise ValidationFailed.field("global_daily_limit", "سقف روزانه باید دست‌کم ۱ باشد.")
        changes["global_daily_limit"] = limit
    settings, _ = model_update(instance=settings, fields=sorted(SETTINGS_FIELDS), data=changes)
    return settings
