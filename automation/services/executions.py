"""Per-target control: pause / resume / remove / restart (through the state machine, actor recorded)."""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone

from campaigns.errors import ValidationFailed
from campaigns.permissions import Perm
from campaigns.tenancy import Actor, get_scoped

from ..choices import EndReason, EventType, ExecutionStatus
from ..engine.graph import published_graph
from ..engine.transitions import PendingEvent, apply_transition
from ..models import Execution

S = ExecutionStatus
ACTIONS = ("pause", "resume", "remove", "restart")


def execution_control(*, actor: Actor, execution_id: int, action: str) -> Execution:
    """Apply one manual action; a concurrent worker loses (StaleRevision), nothing is overwritten."""
    actor.require(Perm.MANAGE_CAMPAIGNS)
    if action not in ACTIONS:
        raise ValidationFailed.field("action", "عملیات ناشناخته است.")
    execution = get_scoped(Execution, actor.workspace, execution_id)
    now = timezone.now()
    with transaction.atomic():
        if action == "pause":
            apply_transition(
                execution,
                "pause",
                event=PendingEvent(EventType.PAUSED),
                extra={"paused_at": now, "paused_from_status": execution.status},
                actor=actor.user,
                strict=True,
            )
        elif action == "resume":
            if execution.status == S.PAUSED:
                apply_transition(
                    execution,
                    "resume",
                    event=PendingEvent(EventType.RESUMED),
                    extra={"paused_at": None},
                    actor=actor.user,
                    strict=True,
                )
            else:  # blacklisted (after un-blacklisting) or failed: run the current step again
                apply_transition(
                    execution,
                    "restart",
                    event=PendingEvent(EventType.RESUMED),
                    extra={"next_run_at": now, "retry_count": 0, "end_reason": "", "completed_at": None},
                    actor=actor.user,
                    strict=True,
                )
        elif action == "remove":
            apply_transition(
                execution,
                "cancel",
                event=PendingEvent(EventType.REMOVED),
                extra={"end_reason": EndReason.REMOVED, "completed_at": now, "next_run_at": None, "lock_token": None},
                actor=actor.user,
                strict=True,
            )
        else:  # restart: a new cycle from the first step (finished or failed only)
            if execution.status not in (S.COMPLETED, S.FAILED):
                raise ValidationFailed.field("action", "فقط اجرای پایان‌یافته یا ناموفق از نو شروع می‌شود.")
            first = published_graph(execution.version_id).first_step()
            apply_transition(
                execution,
                "restart",
                event=PendingEvent(EventType.RESTARTED, first.id),
                extra={
                    "current_node_id": first.id,
                    "needs_budget": first.consumes_budget,
                    "cycle": execution.cycle + 1,
                    "retry_count": 0,
                    "metadata": {},
                    "node_entered_at": now,
                    "eligible_at": now,
                    "next_run_at": now,
                    "end_reason": "",
                    "completed_at": None,
                },
                actor=actor.user,
                strict=True,
            )
    execution.refresh_from_db()
    return execution
