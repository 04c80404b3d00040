"""``create_followup``: hand a target to a person — an activity (call, meeting, …) with a due time.

Registered into the engine like any channel's action (no engine change). It creates one
``campaigns.Activity`` per execution + cycle + node (a replay finds the one it made), with title and
description rendered with the message variables, due ``due_in`` after the step runs, assigned to the
target's owner (or, when the target has none, a member the step names, else the campaign's creator) or
to a chosen member, and notifies the assignee unless the step says not to. It has no guards and consumes
no budget, so it runs while the SMS channel is paused, outside the send window and after the daily limit;
it does not change the target's status.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.urls import reverse

from automation.engine.registry import ACTIONS, Action, ActionResult, ResultStatus
from automation.engine.subjects import model_instance
from automation.engine.variables import render
from campaigns.models import Membership
from campaigns.notifications.models import ActivityKind
from campaigns.notifications.services import activity_create

UNITS = {"minutes": 60, "hours": 3600, "days": 86400, "weeks": 7 * 86400}
MAX_TITLE = 200
MAX_DESCRIPTION = 2000


class CreateFollowupAction(Action):
    key = "create_followup"
    label = "پیگیری برای مسئول"
    consumes_budget = False
    channel = ""
    guards = ()
    config_schema = {
        "type": "object",
        "required": ["title"],
        "properties": {
            "title": {"type": "string", "maxLength": MAX_TITLE},
            "description": {"type": "string", "maxLength": MAX_DESCRIPTION},
            "activity_type": {"type": "string", "enum": list(ActivityKind.values), "default": "call"},
            "due_in": {
                "type": "object",
                "properties": {
                    "value": {"type": "integer", "minimum": 0, "maximum": 10000},
                    "unit": {"type": "string", "enum": list(UNITS), "default": "hours"},
                },
            },
            # "owner": the target's owner (``fallback_assignee``, else the campaign's creator, when it has none);
            # a number: that member.
            "assignee": {"type": ["string", "integer"], "default": "owner"},
            "fallback_assignee": {"type": ["integer", "null"], "default": None},
            "notify": {"type": "boolean", "default": True},  # notify the assignee (can be switched off)
        },
    }
    editor_template = "automation/_editor_followup.html"

    def validate_config(self, config: dict[str, Any]) -> list[str]:
        errors = self.required_text_errors(config.get("title"), label="عنوان پیگیری", limit=MAX_TITLE)
        if len(config.get("description") or "") > MAX_DESCRIPTION:
            errors.append(f"توضیح پیگیری حداکثر {MAX_DESCRIPTION} نویسه است.")
        if config.get("activity_type", "call") not in ActivityKind.values:
            errors.append("نوع پیگیری نامعتبر است.")
        due = config.get("due_in") or {}
        value = due.get("value", 0)
        if not isinstance(value, int) or isinstance(value, bool) or value < 0 or due.get("unit", "hours") not in UNITS:
            errors.append("موعد پیگیری باید عددی نامنفی با واحد دقیقه، ساعت، روز یا هفته باشد.")
        assignee = config.get("assignee", "owner")
        if assignee != "owner" and not (isinstance(assignee, int) and not isinstance(assignee, bool)):
            errors.append("مسئول پیگیری باید «owner» یا شناسه یک عضو باشد.")
        fallback = config.get("fallback_assignee")
        if fallback is not None and not (isinstance(fallback, int) and not isinstance(fallback, bool)):
            errors.append("جایگزین مسئول باید شناسه یک عضو باشد.")
        if not isinstance(config.get("notify", True), bool):
            errors.append("اعلان پیگیری باید روشن یا خاموش باشد.")
        return errors

    def template_texts(self, config: dict[str, Any]) -> list[str]:
        return [config.get("title") or "", config.get("description") or ""]

    def preview(self, config: dict[str, Any], subject: Any) -> dict[str, Any] | None:
        scope = _Scope(subject)
        return {
            "title": render(config.get("title") or "", scope).text,
            "description": render(config.get("description") or "", scope).text,
        }

    def execute(self, ctx) -> ActionResult:
        config = ctx.node.config
        target = model_instance(ctx.subject)  # stored as the activity's relation
        if target is None or getattr(target, "workspace_id", None) != ctx.workspace.id:
            return ActionResult(ResultStatus.SKIPPED, message="no target")
        due = config.get("due_in") or {}
        due_at = ctx.now + timedelta(seconds=int(due.get("value", 0)) * UNITS.get(due.get("unit", "hours"), 3600))
        activity, created = activity_create(
            workspace_id=ctx.workspace.id,
            target=target,
            kind=config.get("activity_type") or ActivityKind.CALL,
            title=render(config.get("title") or "", ctx).text,
            description=render(config.get("description") or "", ctx).text,
            due_at=due_at,
            assignee_id=_assignee(config.get("assignee", "owner"), ctx, config.get("fallback_assignee")),
            source=(ctx.execution.id, ctx.execution.cycle, ctx.node.id),
            campaign_id=ctx.campaign.id if ctx.campaign else None,
            link=reverse("target-edit", args=[target.id]),
            notify=config.get("notify", True) is not False,
        )
        return ActionResult(
            ResultStatus.SUCCESS,
            message="activity created" if created else "activity exists",
            data={"activity_id": activity.id, "duplicate": not created},
        )


class _Scope:
    def __init__(self, subject) -> None:
        self.subject, self.campaign, self.execution = subject, None, None


def _member(user_id, ctx) -> int | None:
    if isinstance(user_id, int) and not isinstance(user_id, bool):
        if Membership.objects.filter(workspace_id=ctx.workspace.id, user_id=user_id).exists():
            return user_id
    return None


def _assignee(choice, ctx, fallback=None) -> int | None:
    chosen = _member(choice, ctx)
    if chosen:
        return chosen
    owner = getattr(ctx.subject, "owner_id", None)
    if owner:
        return owner
    return _member(fallback, ctx) or getattr(ctx.campaign, "created_by_id", None)


def register() -> None:
    ACTIONS.register(CreateFollowupAction.key, CreateFollowupAction())
