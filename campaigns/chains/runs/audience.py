"""Audiences: a root run's targets, a child's class from its source run, control split, conversions.

Audience classes of a child come from its **source run only** (never a later
segment version, never accumulated across runs):

* per recipient the engine reports the final result of every message action
  of their execution in the source run; ``success`` and ``unknown`` (sent /
  unresolved) count as a successful send, ``failed`` and ``rejected`` as a
  failed one — so does a send accepted and later reported undelivered; ``blocked``/``skipped`` or
  no result put the person in no class.
* **Precedence (decision)**: FAILED_DELIVERY wins. A person with a failed
  message action is FAILED_DELIVERY even if another action succeeded, and is
  then neither CONVERTED nor NOT_CONVERTED — one person, one class per source
  run. Two children choosing the same class may still message the same person.
* CONVERTED / NOT_CONVERTED: successful send and a conversion event matching
  the root goal in [source started_at, min(cutoff, started_at + the source
  campaign's attribution window)]. Goal "REPLIED": a ``reply`` event (one per
  stored reply, recorded by ``conversion_on_reply``), and with ``words`` only a
  reply holding one of them as a whole word.
* The source's CONTROL members have no execution and are never inherited;
  targets the channel refused (blacklisted, no number, already live) neither.
"""

from __future__ import annotations

import hashlib
from datetime import datetime, timedelta

from django.db.models import Q

from campaigns.chains.audience import audience_queryset, definition_of
from campaigns.chains.node_models import ChainNode
from campaigns.chains.run_models import CampaignRun, ConversionEvent, RunAudienceMember, RunExecution
from campaigns.chains.runs.choices import AudienceClass, ConversionSource
from campaigns.models import Target
from campaigns.platform.registry import run_engine
from campaigns.platform.words import has_word

SUCCESS_RESULTS = {"success", "unknown"}
REPLY_EVENT = "reply"  # the conversion event of a target's reply (goal "REPLIED")
FAILED_RESULTS = {"failed", "rejected"}


def root_audience(campaign: ChainNode) -> list[int]:
    """A root run's audience: the approved list narrowed by its filters (``campaigns.chains.audience``)."""
    list_id, filters = definition_of(campaign)
    qs = audience_queryset(workspace_id=campaign.workspace_id, target_list_id=list_id, filters=filters)
    return list(qs.order_by("id").values_list("id", flat=True).distinct())


def is_control(campaign: ChainNode, target_id: int) -> bool:
    """Deterministic CONTROL split from the campaign's A/B seed (``chain_action.control_percent``, 0–50)."""
    percent = int((campaign.chain_action or {}).get("control_percent") or 0)
    if percent <= 0:
        return False
    digest = hashlib.sha256(f"{campaign.ab_seed}:{target_id}".encode()).digest()
    return int.from_bytes(digest[:4], "big") % 100 < min(percent, 50)


def send_outcomes(source_run: CampaignRun) -> dict[int, str | None]:
    """target id → "SUCCESS" | "FAILED" | None for every executed recipient of the source run."""
    links = dict(
        RunExecution.objects.filter(run=source_run, execution_id__isnull=False).values_list("execution_id", "target_id")
    )
    engine = run_engine()
    outcomes = engine.outcomes(execution_ids=list(links)) if (engine and links) else {}
    result: dict[int, str | None] = {}
    for execution_id, target_id in links.items():
        results = set(outcomes.get(execution_id, {}).get("results") or [])
        if results & FAILED_RESULTS:
            result[target_id] = "FAILED"
        elif results & SUCCESS_RESULTS:
            result[target_id] = "SUCCESS"
        else:
            result[target_id] = None
    return result


def delivery_reports_pending(source_run: CampaignRun) -> int:
    """How many sends of the source run still wait for their delivery report (0: the reports are settled)."""
    engine = run_engine()
    if engine is None or engine.pending_reports is None:
        return 0
    ids = list(
        RunExecution.objects.filter(run=source_run, execution_id__isnull=False).values_list("execution_id", flat=True)
    )
    return engine.pending_reports(execution_ids=ids) if ids else 0


def goal_event_names(goal: dict | None) -> list[str]:
    goal = goal or {}
    if goal.get("type") == "EVENT" and goal.get("event"):
        return [str(goal["event"])]
    if goal.get("type") == "TARGET_STATUS":
        return [f"target_status:{s}" for s in goal.get("statuses") or []]
    if goal.get("type") == "REPLIED":
        return [REPLY_EVENT]
    return []


def attribution_window(source_run: CampaignRun, cutoff: datetime) -> tuple[datetime, datetime] | None:
    if source_run.started_at is None:
        return None
    days = source_run.campaign.attribution_window_days or 0
    return source_run.started_at, min(cutoff, source_run.started_at + timedelta(days=days))


def converted_targets(source_run: CampaignRun, target_ids, *, cutoff: datetime) -> set[int]:
    window = attribution_window(source_run, cutoff)
    goal = source_run.campaign.goal or {}
    names = goal_event_names(goal)
    if window is None or not names:
        return set()
    events = ConversionEvent.objects.filter(
        workspace_id=source_run.workspace_id,
        target_id__in=list(target_ids),
        name__in=names,
        occurred_at__gte=window[0],
        occurred_at__lte=window[1],
    )
    words = goal.get("words") or [] if goal.get("type") == "REPLIED" else []
    if words:  # "replied with one of these words": the reply's text, kept on its event
        return {target_id for target_id, data in events.values_list("target_id", "data") if reply_matches(data, words)}
    return set(events.values_list("target_id", flat=True))


def reply_matches(data: dict | None, words: list[str]) -> bool:
    return has_word((data or {}).get("text"), words)


def inherited_audience(run: CampaignRun, *, cutoff: datetime) -> list[int]:
    """The child's class taken from its source run (see the module doc for the precedence rule)."""
    source = run.source_run
    outcomes = send_outcomes(source)
    if run.inherit_type == AudienceClass.FAILED_DELIVERY:
        return sorted(t for t, o in outcomes.items() if o == "FAILED")
    succeeded = [t for t, o in outcomes.items() if o == "SUCCESS"]
    converted = converted_targets(source, succeeded, cutoff=cutoff)
    if run.inherit_type == AudienceClass.CONVERTED:
        return sorted(converted)
    return sorted(set(succeeded) - converted)


def conversions_from_target_status(run: CampaignRun, *, now: datetime) -> int:
    """Record status-goal conversions of a run's recipients inside its window (frozen audiences untouched)."""
    goal = run.campaign.goal or {}
    if goal.get("type") != "TARGET_STATUS" or run.started_at is None:
        return 0
    window = attribution_window(run, now)
    statuses = list(goal.get("statuses") or [])
    target_ids = set(
        RunExecution.objects.filter(run=run, execution_id__isnull=False).values_list("target_id", flat=True)
    )
    snapshot = run.target_snapshot
    if snapshot is not None:  # CONTROL members too: the lift compares their conversions with the treated
        target_ids |= set(
            RunAudienceMember.objects.filter(build_id=snapshot.build_id, is_control=True).values_list(
                "target_id", flat=True
            )
        )
    reached = Target.objects.filter(
        pk__in=list(target_ids), status__in=statuses, updated_at__gte=window[0], updated_at__lte=window[1]
    ).values_list("id", "status", "updated_at")
    created = 0
    for target_id, status, at in reached:
        name = f"target_status:{status}"
        exists = ConversionEvent.objects.filter(
            workspace_id=run.workspace_id, target_id=target_id, name=name, occurred_at__gte=run.started_at
        ).exists()
        if not exists:
            ConversionEvent.objects.create(
                workspace_id=run.workspace_id,
                target_id=target_id,
                name=name,
                occurred_at=at,
                source=ConversionSource.TARGET_STATUS,
                data={"status": status},
            )
            created += 1
    CampaignRun.objects.filter(pk=run.pk).update(conversions_checked_at=now)
    return created


def runs_inside_window(now: datetime):
    """Runs whose attribution window is still open — finished or cancelled campaigns included."""
    return CampaignRun.objects.filter(started_at__isnull=False, started_at__gte=now - timedelta(days=366)).filter(
        ~Q(campaign__goal=None)
    )
