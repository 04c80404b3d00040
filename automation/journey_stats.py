"""Reads a campaign owner watches: the journey numbers and a target's timeline (journeys.md "Other features").

The sent numbers come from the same daily counters the daily-limit guard reserves from, so "remaining today"
never disagrees with what runs. A target the limit pushed to a later day shows "queued for sending", not a date.
Channel details of a send (text, number, provider id…) come from the action that made it (``attempt_details``
hook), so this module never names a channel.
"""

from __future__ import annotations

import zoneinfo
from collections import defaultdict
from datetime import UTC, datetime, time, timedelta
from typing import Any

from django.contrib.contenttypes.models import ContentType
from django.db.models import Sum
from django.utils import timezone

from automation import journey_counts
from automation.choices import DUE_STATUSES, LIVE_STATUSES, CounterScope, EndReason, EventType, ExecutionStatus
from automation.engine.context import automation_settings, workspace_tz
from automation.engine.graph import published_graph
from automation.engine.nodes import step_display_name
from automation.engine.registry import ACTIONS
from automation.engine.window import local_day
from automation.models import DailyCounter, EnrollmentItem, Execution, ExecutionEvent
from automation.selectors import campaign_journey_version_id, execution_queryset, execution_status_counts
from automation.services.enrollment_core import journey_campaign
from campaigns.choices import CapPriority
from campaigns.models import Target
from campaigns.platform import registry
from campaigns.platform.tenancy import Actor, scoped
from campaigns.selectors import target_get

S = ExecutionStatus
FAILED_RESULTS = ("failed", "rejected")
NEXT_SENDS = 20
SERIES_DAYS = 30
# Event → why-not-sent reason shown on the timeline.
WHY_NOT_SENT = {
    EventType.DEFERRED_WINDOW: "window_closed",
    EventType.DEFERRED_LIMIT: "limit_reached",
    EventType.BLACKLISTED: "blacklisted",
    EventType.DEFERRED_CHANNEL: "circuit_open",
}
# A step's own refusal (its result's ``error``) shown as why-not-sent: no mobile, or the number refuses advertising
# and the step's line advertises (the SMS channel's ``telecom_blocked``).
STEP_REFUSALS = ("no_valid_mobile", "telecom_blocked", "frequency_cap")
# A channel's own reason for waiting (its deferral's ``reason``): the frequency cap across campaigns, a quiet day.
STEP_DEFERRALS = ("frequency_cap", "quiet_day")
# An enrollment that skipped the target because it was live elsewhere (its own timeline entry).
CONFLICT_SKIPPED = "conflict_skipped"
# Every reason ``why_not_sent`` can answer (the timeline's enum in the API schema).
WHY_NOT_SENT_REASONS = tuple(dict.fromkeys([*WHY_NOT_SENT.values(), *STEP_REFUSALS, *STEP_DEFERRALS]))


def _step(node_type: str | None, subtype: str | None, name: str | None) -> str:
    return step_display_name(node_type, subtype or "", name or "") if node_type else ""


def _node_step(node) -> str:
    """A step named for people: its title, else its kind (node keys stay internal)."""
    return step_display_name(node.type, node.subtype, node.name)


def _day_start(day, tz: str) -> datetime:
    return datetime.combine(day, time.min).replace(tzinfo=zoneinfo.ZoneInfo(tz)).astimezone(UTC)


def _campaign_limit(campaign) -> int | None:
    if campaign.daily_limit is not None:
        return campaign.daily_limit
    from automation.selectors import campaign_journey_version

    version = campaign_journey_version(campaign)
    return (version.settings or {}).get("daily_limit") if version is not None else None


CAP_PRIORITY_TITLE = "اولویت در سقف پیامک تبلیغاتی"


def cap_priority(campaign) -> str:
    """The campaign's priority in the frequency cap (a low one stops a unit short of each rule's limit)."""
    value = (campaign.journey_settings or {}).get("frequency_cap_priority")
    return value if value in CapPriority.values else CapPriority.NORMAL


def cap_priority_said(campaign) -> dict[str, str]:
    """The campaign's priority in the frequency cap for people: «اولویت در سقف پیامک تبلیغاتی: پایین»."""
    priority = CapPriority(cap_priority(campaign))
    return {"value": priority.value, "label": priority.label, "text": f"{CAP_PRIORITY_TITLE}: {priority.label}"}


def _frequency_cap_on(workspace, campaign) -> bool:
    """A channel of the journey's steps holds its sends by a frequency cap with a rule on (``frequency_cap_on``)."""
    version_id = campaign_journey_version_id(campaign)
    keys = {n.subtype for n in published_graph(version_id).nodes if n.type == "action"} if version_id else set()
    return any(ACTIONS.get(k) is not None and ACTIONS.get(k).frequency_cap_on(workspace) for k in sorted(keys))


def journey_stats(*, actor: Actor, campaign_id: int, now: datetime | None = None) -> dict[str, Any]:
    campaign = journey_campaign(actor.workspace, campaign_id, open_only=False)
    now = now or timezone.now()
    settings = automation_settings(actor.workspace)
    tz = workspace_tz(actor.workspace, settings)
    today = local_day(now, tz)
    executions = execution_queryset(actor=actor, campaign_id=campaign.id).order_by()
    by_status = execution_status_counts(actor=actor, campaign_ids=[campaign.id])[campaign.id]
    counters = DailyCounter.objects.filter(scope=CounterScope.CAMPAIGN, scope_id=campaign.id)
    sent_today = counters.filter(day=today).aggregate(n=Sum("used"))["n"] or 0
    sent_total = counters.aggregate(n=Sum("used"))["n"] or 0
    workspace_used = (
        DailyCounter.objects.filter(scope=CounterScope.WORKSPACE, scope_id=actor.workspace.id, day=today).aggregate(
            n=Sum("used")
        )["n"]
        or 0
    )
    campaign_limit = _campaign_limit(campaign)
    workspace_limit = settings.global_daily_limit
    remaining = [
        x
        for x in (
            None if campaign_limit is None else max(0, campaign_limit - sent_today),
            None if workspace_limit is None else max(0, workspace_limit - workspace_used),
        )
        if x is not None
    ]
    # A waiting budget-consuming execution the daily limit put off ("queued for sending"): flagged with its
    # step's outcome, counted through a partial index.
    upcoming = (
        executions.filter(status__in=[S.ACTIVE, S.WAITING, S.QUEUED], needs_budget=True)
        .order_by("next_run_at", "eligible_at", "id")
        .values(
            "id",
            "subject_id",
            "status",
            "next_run_at",
            "current_node__name",
            "current_node__type",
            "current_node__subtype",
            "deferred_by_limit",
        )
    )
    queued_for_sending = executions.filter(status=S.WAITING, needs_budget=True, deferred_by_limit=True).count()
    limit_spent = bool(remaining) and min(remaining) == 0
    if limit_spent:  # today's limit is spent: the due sends the tick leaves wait for it too
        queued_for_sending += executions.filter(
            status__in=DUE_STATUSES, needs_budget=True, deferred_by_limit=False, next_run_at__lte=now
        ).count()
    next_sends = []
    for row in upcoming[:NEXT_SENDS]:
        due = row["next_run_at"] is not None and row["next_run_at"] <= now
        # Put off by the limit, or due while today's limit is spent: it goes when the limit frees, not at a time
        # already past.
        held = row["deferred_by_limit"] or (limit_spent and due)
        next_sends.append(
            {
                "execution_id": row["id"],
                "subject_id": row["subject_id"],
                "status": row["status"],
                "step": _step(row["current_node__type"], row["current_node__subtype"], row["current_node__name"]),
                "next_run_at": None if held else row["next_run_at"],
                "queued_for_sending": held or due,
            }
        )
    # Journeys resting at a step that sends nothing (a Wait): when the first wakes up, so a list of next sends
    # that is empty while everyone waits a day says when sending resumes.
    next_wake = (
        executions.filter(status=S.WAITING, needs_budget=False, next_run_at__isnull=False)
        .order_by("next_run_at")
        .values_list("next_run_at", flat=True)
        .first()
    )
    since = today - timedelta(days=SERIES_DAYS - 1)
    sent_by_day = dict(
        counters.filter(day__gte=since).values_list("day").annotate(n=Sum("used")).values_list("day", "n")
    )
    # Failed sends, retries and unknown outcomes: the counts kept with the events (journey_counts).
    zone = zoneinfo.ZoneInfo(tz)
    totals, by_day = journey_counts.event_counts(campaign_id=campaign.id, since=_day_start(since, tz), zone=zone)
    today_counts: dict[str, int] = defaultdict(int)
    for (key, day), n in by_day.items():
        if day >= today:
            today_counts[key] += n
    failed_by_day = {day: n for (key, day), n in by_day.items() if key == journey_counts.SEND_FAILED}
    retried_by_day = {day: n for (key, day), n in by_day.items() if key == journey_counts.RETRIED}
    series = [
        {
            "day": (since + timedelta(days=i)).isoformat(),
            "sent": sent_by_day.get(since + timedelta(days=i), 0),
            "failed": failed_by_day.get(since + timedelta(days=i), 0),
            "retried": retried_by_day.get(since + timedelta(days=i), 0),
        }
        for i in range(SERIES_DAYS)
    ]
    return {
        "campaign_id": campaign.id,
        "day": today.isoformat(),
        "time_zone": tz,
        "total": sum(by_status.values()),
        "pending": by_status.get(S.PENDING, 0),
        "active": sum(by_status.get(s, 0) for s in (S.ACTIVE, S.QUEUED, S.PROCESSING)),
        "waiting": by_status.get(S.WAITING, 0),
        "paused": by_status.get(S.PAUSED, 0),
        "completed": by_status.get(S.COMPLETED, 0),
        "failed": by_status.get(S.FAILED, 0),
        "blacklisted": by_status.get(S.BLACKLISTED, 0),
        "cancelled": by_status.get(S.CANCELLED, 0),
        # Of those, closed because the campaign finished (its end time): they read finished, not cancelled.
        "ended_with_campaign": executions.filter(status=S.CANCELLED, end_reason=EndReason.CAMPAIGN_ENDED).count(),
        # Sends whose outcome is unknown (the worker died after calling the provider): never resent on their own.
        "unknown_outcomes": totals[journey_counts.UNKNOWN_OUTCOME],
        "sent": {"today": sent_today, "total": sent_total},
        "send_failed": {"today": today_counts[journey_counts.SEND_FAILED], "total": totals[journey_counts.SEND_FAILED]},
        "retried": {"today": today_counts[journey_counts.RETRIED], "total": totals[journey_counts.RETRIED]},
        # Sends the frequency cap across campaigns held back (the step waited for the next day, or skipped).
        "frequency_capped": {
            "today": today_counts[journey_counts.FREQUENCY_CAPPED],
            "total": totals[journey_counts.FREQUENCY_CAPPED],
        },
        "limits": {
            "campaign_daily_limit": campaign_limit,
            "workspace_daily_limit": workspace_limit,
            "campaign_used_today": sent_today,
            "workspace_used_today": workspace_used,
            "remaining_today": min(remaining) if remaining else None,
            "frequency_cap_priority": cap_priority(campaign),
            # said (in Persian) while a rule of the cap is on; null without one
            "frequency_cap_priority_said": cap_priority_said(campaign)
            if _frequency_cap_on(actor.workspace, campaign)
            else None,
        },
        "queued_for_sending": queued_for_sending,
        "next_sends": next_sends,
        "next_wake": next_wake,
        "series": series,
    }


# --------------------------------------------------------------------------- target
def target_executions(*, actor: Actor, target_id: int):
    """The target's executions (every campaign it is or was in), newest first; owner visibility via target_get."""
    target = target_get(actor=actor, target_id=target_id)
    ct = ContentType.objects.get_for_model(Target)
    return (
        scoped(Execution, actor.workspace)
        .filter(subject_type=ct, subject_id=target.id)
        .select_related("campaign", "workflow", "current_node")
        .order_by("-id")
    )


def target_campaigns(*, actor: Actor, target_id: int) -> list[dict[str, Any]]:
    return [
        {
            "execution_id": e.id,
            "campaign_id": e.campaign_id,
            "campaign_name": e.campaign.name,
            "workflow_id": e.workflow_id,
            "workflow_name": e.workflow.name,
            "status": e.status,
            "live": e.status in LIVE_STATUSES,
            "step": _node_step(e.current_node) if e.current_node_id else "",
            "next_run_at": e.next_run_at,
            "cycle": e.cycle,
            "end_reason": e.end_reason,
            "campaign_status": e.campaign.status,
        }
        for e in target_executions(actor=actor, target_id=target_id)
    ]


# A send's fields (the channel's ``attempt_details`` keys) a role without the channel's log permission never sees.
HIDDEN_SEND_FIELDS = ("message", "phone", "sender", "provider", "provider_message_id", "error_code", "error_message")


def target_timeline_events(*, actor: Actor, target_id: int):
    """Every event of the target, newest first (paginate the queryset, then ``timeline_entries`` on the page).

    The send guard's own «blacklisted» note is left out: the execution's end, the next row, says the same."""
    target = target_get(actor=actor, target_id=target_id)
    ct = ContentType.objects.get_for_model(Target)
    return (
        scoped(ExecutionEvent, actor.workspace)
        .filter(subject_type=ct, subject_id=target.id)
        .exclude(type=EventType.BLACKLISTED, to_status="")
        .select_related("actor", "campaign", "node")
        .order_by("-occurred_at", "-id")
    )


def why_not_sent(event: ExecutionEvent) -> str | None:
    data = event.data or {}
    if data.get("reason") in STEP_DEFERRALS:
        return data["reason"]
    if event.type in WHY_NOT_SENT:
        return WHY_NOT_SENT[event.type]
    if data.get("error") in STEP_REFUSALS:
        return data["error"]
    return None


def send_status_choices() -> list[tuple[str, str]]:
    """Every status a send on the timeline can have: the ``attempt_statuses`` of each action that has
    ``attempt_details`` (the statuses its hook reads; the timeline's enum in the API schema)."""
    choices: dict[str, str] = {}
    for _key, action in ACTIONS:
        if getattr(action, "attempt_details", None) is not None:
            choices.update(dict(getattr(action, "attempt_statuses", ())))
    return list(choices.items())


def _attempt_details(actor: Actor, attempt_ids: list[int]) -> dict[int, dict]:
    """What each channel recorded of its sends; for a role without the channel's ``details_permission`` only
    the status, attempt number and retry time (``hidden``: text, number, line, provider and errors left out)."""
    details: dict[int, dict] = {}
    for _key, action in ACTIONS:
        hook = getattr(action, "attempt_details", None)
        if hook is None:
            continue
        rows = hook(actor.workspace, attempt_ids)
        if action.details_permission and not actor.has(action.details_permission):
            rows = {pk: {**row, **dict.fromkeys(HIDDEN_SEND_FIELDS), "hidden": True} for pk, row in rows.items()}
        details.update(rows)
    return details


def timeline_entries(*, actor: Actor, events: list[ExecutionEvent]) -> list[dict[str, Any]]:
    """One page of events as timeline rows; sends carry what the channel recorded (``attempt_details`` hook).

    A hidden send also hides the event's own message and data beyond the attempt id (they carry the
    provider's error code)."""
    attempt_ids = [int(e.data["attempt_id"]) for e in events if isinstance(e.data, dict) and e.data.get("attempt_id")]
    details = _attempt_details(actor, attempt_ids) if attempt_ids else {}
    rows = []
    for e in events:
        data = e.data or {}
        send = details.get(int(data["attempt_id"])) if data.get("attempt_id") else None
        hidden = bool(send and send.get("hidden"))
        rows.append(
            {
                "id": e.id,
                "type": e.type,
                "occurred_at": e.occurred_at,
                "campaign_id": e.campaign_id,
                "campaign_name": e.campaign.name,
                "execution_id": e.execution_id,
                "step": _node_step(e.node) if e.node_id else "",
                "message": "" if hidden else e.message,
                "data": {"attempt_id": data["attempt_id"]} if hidden else data,
                "actor": {"id": e.actor_id, "username": e.actor.get_username()} if e.actor_id else None,
                "why_not_sent": why_not_sent(e),
                "send": None
                if send is None
                else {
                    "text": send["message"],
                    "number": send["phone"],
                    "status": send["status"],
                    "provider": send["provider"],
                    "sender": send["sender"],
                    "provider_message_id": send["provider_message_id"],
                    "error_code": send["error_code"],
                    "error_message": send["error_message"],
                    "retry_at": send["retry_scheduled_at"],
                    "attempt_number": send["attempt_number"],
                    "hidden": hidden,
                },
            }
        )
    return rows


def target_left_out(*, actor: Actor, target_id: int) -> list[dict[str, Any]]:
    """What other apps left the target out of without an execution (a chain run's dispatch), with the reason."""
    target = target_get(actor=actor, target_id=target_id)
    return registry.target_left_out(actor=actor, target_id=target.id)


def target_conflict_skips(*, actor: Actor, target_id: int) -> list[dict[str, Any]]:
    """Enrollments that skipped this target because it was live elsewhere (a why-not-sent entry of its own)."""
    target = target_get(actor=actor, target_id=target_id)
    rows = (
        scoped(EnrollmentItem, actor.workspace)
        .filter(subject_id=target.id, outcome__in=["conflict_skipped", "skipped"], klass="conflict")
        .select_related("batch__campaign")
        .order_by("-batch_id")[:50]
    )
    return [
        {
            "type": CONFLICT_SKIPPED,
            "why_not_sent": CONFLICT_SKIPPED,
            "campaign_id": r.batch.campaign_id,
            "campaign_name": r.batch.campaign.name,
            "batch_id": r.batch_id,
            "occurred_at": r.batch.finished_at or r.batch.updated_at,
            "conflicts": r.conflicts,
        }
        for r in rows
    ]
