"""Per-target control: pause / resume / remove / restart (through the state machine, actor recorded)."""

from __future__ import annotations

from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from automation import events
from automation.choices import EndReason, ExecutionStatus, NodeType
from automation.engine.graph import published_graph
from automation.engine.outcome import HELD_UNKNOWN, RESEND_UNKNOWN, SKIP_UNKNOWN
from automation.engine.transitions import apply_transition
from automation.errors import CampaignClosed
from automation.models import Execution
from campaigns.choices import CampaignKind, CampaignStatus
from campaigns.models import Campaign
from campaigns.platform.errors import ValidationFailed
from campaigns.platform.permissions import Perm
from campaigns.platform.tenancy import Actor, get_scoped

S = ExecutionStatus
ACTIONS = ("pause", "resume", "remove", "restart")
REVIVING = ("resume", "restart")
CLOSED_CAMPAIGN = (CampaignStatus.COMPLETED, CampaignStatus.CANCELLED)
# Resuming an execution held after an unknown send outcome: skip the step (default) or send it again
# (with the same local id, so a provider that de-duplicates still holds one message).
UNKNOWN_OUTCOME_CHOICES = ("skip", "resend")


def _resume_extra(execution: Execution, unknown_outcome: str | None, now) -> tuple[dict, dict]:
    """(fields, event data) for resuming a paused execution."""
    metadata = dict(execution.metadata or {})
    held = metadata.pop(HELD_UNKNOWN, None)
    if held is None or held != execution.current_node_id:
        if unknown_outcome == "resend":
            raise ValidationFailed.field("unknown_outcome", "این اجرا پس از نتیجه نامعلوم نگه داشته نشده است.")
        return {"paused_at": None, "metadata": metadata}, {}
    choice = unknown_outcome or "skip"
    metadata[RESEND_UNKNOWN if choice == "resend" else SKIP_UNKNOWN] = held
    return {"paused_at": None, "metadata": metadata, "next_run_at": now}, {"unknown_outcome": choice}


def execution_control(*, actor: Actor, execution_id: int, action: str, unknown_outcome: str | None = None) -> Execution:
    """Apply one manual action; a concurrent worker loses (StaleRevision), nothing is overwritten.

    ``unknown_outcome`` (resume only) decides a step held after an unknown send outcome: "skip" (default)
    follows the step's success path without sending; "resend" runs the step again.
    """
    actor.require(Perm.MANAGE_CAMPAIGNS)
    if action not in ACTIONS:
        raise ValidationFailed.field("action", "عملیات ناشناخته است.")
    if unknown_outcome is not None and unknown_outcome not in UNKNOWN_OUTCOME_CHOICES:
        raise ValidationFailed.field("unknown_outcome", "skip یا resend.")
    execution = get_scoped(Execution, actor.workspace, execution_id)
    if action in REVIVING and execution.campaign.status in CLOSED_CAMPAIGN:
        # A finished campaign stays finished: no journey of it comes back to life (it would read "running"
        # on the target's page while the campaign reads finished, and the scheduler would never run it).
        raise CampaignClosed("کمپین پایان یافته یا لغو شده است؛ سفرهای آن دوباره شروع نمی‌شوند.")
    now = timezone.now()
    with transaction.atomic():
        if action == "pause":
            apply_transition(
                execution,
                "pause",
                event=events.paused_event(),
                extra={"paused_at": now, "paused_from_status": execution.status},
                actor=actor.user,
                strict=True,
            )
        elif action == "resume":
            if execution.status == S.PAUSED:
                extra, data = _resume_extra(execution, unknown_outcome, now)
                apply_transition(
                    execution,
                    "resume",
                    event=events.resumed_event(node_id=execution.current_node_id, data=data),
                    extra=extra,
                    actor=actor.user,
                    strict=True,
                )
            else:  # blacklisted (after un-blacklisting) or failed: run the current step again
                apply_transition(
                    execution,
                    "restart",
                    event=events.resumed_event(),
                    extra={"next_run_at": now, "retry_count": 0, "end_reason": "", "completed_at": None},
                    actor=actor.user,
                    strict=True,
                )
        elif action == "remove":
            apply_transition(
                execution,
                "cancel",
                event=events.removed_event(),
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
                event=events.restarted_event(node_id=first.id),
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


MAX_BULK = 5000


def executions_bulk_control(
    *, actor: Actor, campaign_id: int, execution_ids: list[int], action: str, unknown_outcome: str | None = None
) -> dict[str, object]:
    """Apply one action to many executions of a campaign: each goes through ``execution_control`` (state machine,
    actor recorded); refusals are reported per item and never stop the rest; one audit row per request.
    ``unknown_outcome`` (resume only) is each held step's decision, as in ``execution_control``."""
    from campaigns.events import campaign_executions_controlled_event
    from campaigns.models import Campaign
    from campaigns.platform.errors import PlatformError

    actor.require(Perm.MANAGE_CAMPAIGNS)
    if action not in ACTIONS:
        raise ValidationFailed.field("action", "عملیات ناشناخته است.")
    if unknown_outcome is not None and action != "resume":
        raise ValidationFailed.field("unknown_outcome", "فقط برای «ادامه».")
    campaign = get_scoped(Campaign, actor.workspace, campaign_id)
    ids = list(dict.fromkeys(int(i) for i in execution_ids))
    if not ids:
        raise ValidationFailed.field("execution_ids", "دست‌کم یک اجرا انتخاب کنید.")
    if len(ids) > MAX_BULK:
        raise ValidationFailed.field("execution_ids", f"حداکثر {MAX_BULK} اجرا در هر بار.")
    from automation.selectors import execution_queryset

    known = set(
        execution_queryset(actor=actor, campaign_id=campaign.id).filter(pk__in=ids).values_list("id", flat=True)
    )
    done: list[int] = []
    refused: list[dict[str, object]] = []
    for execution_id in ids:
        if execution_id not in known:
            refused.append({"execution_id": execution_id, "code": "NOT_FOUND", "message": "اجرا پیدا نشد."})
            continue
        try:
            execution_control(actor=actor, execution_id=execution_id, action=action, unknown_outcome=unknown_outcome)
        except PlatformError as exc:
            refused.append({"execution_id": execution_id, "code": exc.code, "message": exc.message})
        else:
            done.append(execution_id)
    campaign_executions_controlled_event(
        campaign=campaign,
        actor=actor.user,
        action=action,
        counts={
            **({"unknown_outcome": unknown_outcome} if unknown_outcome else {}),
            "requested": len(ids),
            "done": len(done),
            "refused": len(refused),
        },
    )
    return {"action": action, "done": done, "refused": refused, "counts": {"done": len(done), "refused": len(refused)}}


def executions_wake(
    *, workspace_id: int, subject_type_id: int, subject_ids: list[int], facts: list[str], now=None
) -> int:
    """A channel learned ``facts`` may now hold for these subjects (e.g. a reply arrived): their waiting executions
    that would act on one — at a wait that ends early on it (``until_fact``), or in a campaign that stops on it
    (``stop_when_facts``) — become due now, so the next tick reads the fact (leaves the wait, or ends the journey).
    Only waiting rows move (a claimed or running one is the job's); nothing else changes."""
    if not subject_ids or not facts:
        return 0
    now = now or timezone.now()
    stopping = [
        campaign_id
        for campaign_id, settings in Campaign.objects.filter(
            workspace_id=workspace_id, kind=CampaignKind.JOURNEY, status=CampaignStatus.ACTIVE
        ).values_list("id", "journey_settings")
        if set(facts) & set((settings or {}).get("stop_when_facts") or [])
    ]
    waiting = Execution.objects.filter(
        workspace_id=workspace_id,
        subject_type_id=subject_type_id,
        subject_id__in=subject_ids,
        status=S.WAITING,
        next_run_at__gt=now,
    )
    ends_wait = Q(current_node__type=NodeType.WAIT, current_node__config__until_fact__in=facts)
    return waiting.filter(ends_wait | Q(campaign_id__in=stopping)).update(next_run_at=now)
