"""The engine side of chain runs: enroll a frozen audience and read execution outcomes.

Registered into ``campaigns.platform.registry`` (``register_run_engine``) so the
campaigns app never imports the engine. Both functions are system writes
(no actor): the run that calls them was approved as part of a chain package.
"""

from __future__ import annotations

from datetime import datetime

from django.contrib.contenttypes.models import ContentType
from django.db.models import Q

from automation.choices import LIVE_STATUSES, EventType, ExecutionStatus, WorkflowStatus
from automation.engine.graph import Graph
from automation.engine.registry import ACTIONS
from automation.models import (
    CampaignJourney,
    Execution,
    ExecutionEvent,
    VersionMigration,
    Workflow,
    WorkflowVersion,
)
from automation.selectors import campaign_journey_get
from automation.services.enrollment_core import execution_template, subject_problems
from automation.services.enrollment_writer import executions_insert
from automation.services.workflows import _write_graph, workflow_version_publish
from campaigns.models import Campaign, Target
from campaigns.platform.channels import chain_channels

RESULT_EVENTS = (EventType.ACTION_RESULT, EventType.ACTION_ATTEMPT)


def chain_action_graph(action: dict | None) -> Graph:
    """The one-step workflow of a chain step's action ({"channel", "content"}: chains own it)."""
    action = action or {}
    # chain_action channel → the engine action that sends it (each channel's ``channel.chain_action``)
    subtype = {channel.name: channel.chain_action for channel in chain_channels()}.get(action.get("channel") or "")
    if subtype is None:
        raise ValueError(f"channel {action.get('channel')!r} cannot be sent by the engine")
    return Graph.from_dict(
        {
            "nodes": [
                {"node_key": "start", "type": "start", "subtype": "manual", "config": {}},
                {
                    "node_key": "send",
                    "type": "action",
                    "subtype": subtype,
                    "name": "پیام زنجیره",
                    "config": {
                        "body": action.get("content") or "",
                        "on_missing_variable": "blank",
                        "retry": {"enabled": False, "max_attempts": 0, "on_exhausted": "fail"},
                    },
                },
                {"node_key": "end", "type": "end", "subtype": "complete", "config": {"behavior": "complete"}},
            ],
            "edges": [
                {"from": "start", "to": "send", "port": "default"},
                {"from": "send", "to": "end", "port": "default"},
            ],
            "settings": {},
        }
    )


def ensure_pinned_version(campaign: Campaign, action: dict | None) -> Campaign:
    """A chain campaign without a workflow gets a published one-step workflow of its action pinned once."""
    if campaign_journey_get(campaign) is not None:
        return campaign
    locked = Campaign.objects.select_for_update().get(pk=campaign.pk)
    if campaign_journey_get(locked) is not None:
        return locked
    workflow = Workflow.objects.create(
        workspace_id=locked.workspace_id, name=f"زنجیره: {locked.name}"[:200], status=WorkflowStatus.ACTIVE
    )
    version = WorkflowVersion.objects.create(
        workspace_id=locked.workspace_id, workflow=workflow, version_number=1, settings={}
    )
    _write_graph(version, chain_action_graph(action))
    workflow_version_publish(version=version)
    CampaignJourney.objects.create(
        campaign=locked, workspace_id=locked.workspace_id, workflow=workflow, workflow_version=version
    )
    return Campaign.objects.get(pk=locked.pk)


def chain_run_enroll(
    *, campaign: Campaign, target_ids: list[int], now: datetime, action: dict | None = None
) -> dict[int, tuple[str, object]]:
    """Create one execution per target through the one writer (caller's transaction); refused targets are
    reported, not raised (one the live index refuses — enrolled since the check — as ``already_live``).
    ``action``: the chain step's channel and content, for a campaign without a workflow yet."""
    campaign = ensure_pinned_version(campaign, action)
    ct = ContentType.objects.get_for_model(Target)
    subjects = Target.objects.filter(workspace_id=campaign.workspace_id, pk__in=target_ids, deleted_at=None)
    targets = set(subjects.values_list("pk", flat=True))
    result: dict[int, tuple[str, object]] = {tid: ("refused", "not_found") for tid in target_ids if tid not in targets}
    problems = subject_problems(campaign, subjects)
    live = set(
        Execution.objects.filter(
            campaign=campaign, subject_type=ct, subject_id__in=list(targets), status__in=LIVE_STATUSES
        ).values_list("subject_id", flat=True)
    )
    ready = []
    for tid in target_ids:
        if tid not in targets:
            continue
        if tid in problems:
            result[tid] = ("refused", problems[tid])
        elif tid in live:
            result[tid] = ("refused", "already_live")
        else:
            ready.append(tid)
    if not ready:
        return result
    written = executions_insert(
        template=execution_template(campaign, now=now), subject_ids=ready, now=now, data={"by": "chain_run"}
    )
    for tid in ready:
        result[tid] = ("execution", written.added[tid]) if tid in written.added else ("refused", "already_live")
    return result


# A send step that left its person out when it came to send (the step skipped; the journey went on without it).
SEND_EXCLUSIONS = ("telecom_blocked", "frequency_cap")
TERMINAL = {ExecutionStatus.COMPLETED, ExecutionStatus.FAILED, ExecutionStatus.CANCELLED, ExecutionStatus.BLACKLISTED}


def chain_run_outcomes(*, execution_ids: list[int]) -> dict[int, dict]:
    """Status and the final result of every message action (per node, the last result wins; a send its
    channel later reported undelivered ends failed), and why a send left the person out when it came to send
    (``excluded``: ``blacklisted`` — on the blacklist since the dispatch —, ``telecom_blocked``,
    ``frequency_cap``; None when it did not)."""
    out: dict[int, dict] = {}
    for ex_id, status in Execution.objects.filter(pk__in=execution_ids).values_list("id", "status"):
        out[ex_id] = {"status": status, "terminal": status in TERMINAL, "results": []}
    last: dict[tuple[int, int | None], str] = {}
    result_events = (
        ExecutionEvent.objects.filter(execution_id__in=list(out), type__in=RESULT_EVENTS)
        .order_by("occurred_at", "id")
        .values_list("execution_id", "node_id", "data")
    )
    for ex_id, node_id, data in result_events:
        if isinstance(data, dict) and data.get("result"):
            last[(ex_id, node_id)] = data["result"]
    # A send the provider accepted and later reported undelivered ends failed (chains.md: FAILED/BOUNCED).
    for _key, action in ACTIONS:
        for ex_id, node_id in action.reported_failures(list(out)):
            if ex_id in out:
                last[(ex_id, node_id)] = "failed"
    for (ex_id, _node), result in last.items():
        out[ex_id]["results"].append(result)
    for row in out.values():
        row["excluded"] = "blacklisted" if row["status"] == ExecutionStatus.BLACKLISTED else None
    skipped = ExecutionEvent.objects.filter(
        execution_id__in=list(out), type=EventType.SKIPPED, data__error__in=SEND_EXCLUSIONS
    ).values_list("execution_id", "data")
    for ex_id, data in skipped:
        out[ex_id]["excluded"] = out[ex_id]["excluded"] or data["error"]
    return out


def chain_run_pending_reports(*, execution_ids: list[int]) -> int:
    """Sends of these executions still waiting for their delivery report, over every channel."""
    return sum(action.pending_reports(list(execution_ids)) for _key, action in ACTIONS)


MIGRATIONS_SHOWN = 50


def chain_member_migrations(*, workspace_id: int, campaign_ids: list[int]) -> list[dict]:
    """The version migrations that moved these campaigns' executions, newest first: one scoped to a member, or
    one of a member's workflow over all its campaigns (who started it, when, between which versions, how many)."""
    workflows: dict[int, list[int]] = {}
    for campaign_id, workflow_id in CampaignJourney.objects.filter(
        workspace_id=workspace_id, campaign_id__in=campaign_ids
    ).values_list("campaign_id", "workflow_id"):
        workflows.setdefault(workflow_id, []).append(campaign_id)
    rows = (
        VersionMigration.objects.filter(workspace_id=workspace_id)
        .filter(Q(campaign_id__in=campaign_ids) | Q(campaign__isnull=True, workflow_id__in=list(workflows)))
        .select_related("workflow", "from_version", "to_version", "created_by")
        .order_by("-created_at")[:MIGRATIONS_SHOWN]
    )
    return [
        {
            "id": str(m.pk),
            "at": m.created_at,
            "by": (m.created_by.get_full_name() or m.created_by.get_username()) if m.created_by else "",
            "workflow_name": m.workflow.name,
            "from_version_number": m.from_version.version_number,
            "to_version_number": m.to_version.version_number,
            "kind_label": m.get_kind_display(),
            "status_label": m.get_status_display(),
            "moved": int((m.result or {}).get("moved", 0)),
            "exited": int((m.result or {}).get("exited", 0)),
            "campaign_ids": [m.campaign_id] if m.campaign_id else sorted(workflows.get(m.workflow_id, [])),
        }
        for m in rows
    ]


def send_window_error(config) -> str | None:
    """Why a chain campaign's own send window cannot be saved (the journey edit's rule), None when it can."""
    from automation.engine.window import WindowError, window_for_save

    try:
        window_for_save(config)
    except WindowError as exc:
        return f"بازه ارسال نامعتبر است: {exc}"
    return None
