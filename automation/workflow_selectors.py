"""Reads for the workflow pages: list rows, versions with the campaigns pinned to them, version diff."""

from __future__ import annotations

from dataclasses import dataclass, field

from django.db.models import Count, Exists, OuterRef, Q

from automation.builder.diff import StepDiff, version_diff
from automation.choices import LIVE_STATUSES, VersionStatus
from automation.engine.graph import graph_of_version
from automation.engine.nodes import step_display_name
from automation.models import (
    CampaignJourney,
    Workflow,
    WorkflowNode,
    WorkflowTextChange,
    WorkflowVersion,
)
from automation.selectors import execution_status_counts
from campaigns.choices import CampaignStatus
from campaigns.platform.tenancy import Actor, get_scoped, scoped
from campaigns.selectors import target_queryset

# Campaigns that no longer hold a workflow in use (a workflow with none of the others may be archived).
CAMPAIGN_FINISHED = (CampaignStatus.COMPLETED, CampaignStatus.CANCELLED, CampaignStatus.REJECTED)


MAX_CATEGORIES = 200


def workflow_categories(*, actor: Actor) -> list[str]:
    """The categories the workspace's workflows use (the list's filter and the new-workflow suggestions)."""
    rows = (
        scoped(Workflow, actor.workspace)
        .filter(deleted_at__isnull=True)
        .exclude(category="")
        .values_list("category", flat=True)
        .distinct()
        .order_by("category")
    )
    return list(rows[:MAX_CATEGORIES])


def workflow_rows(*, actor: Actor, category: str = "", status: str = ""):
    """Workflows with their published version number, whether a draft exists and unfinished campaigns;
    ``category`` / ``status`` narrow the list (empty: all)."""
    drafts = WorkflowVersion.objects.filter(workflow=OuterRef("pk"), status=VersionStatus.DRAFT)
    workflows = scoped(Workflow, actor.workspace).filter(deleted_at__isnull=True)
    if category:
        workflows = workflows.filter(category=category)
    if status:
        workflows = workflows.filter(status=status)
    return (
        workflows.select_related("published_version", "updated_by")
        .annotate(
            has_draft=Exists(drafts),
            live_campaigns=Count(
                "campaign_journeys",
                filter=Q(campaign_journeys__campaign__deleted_at__isnull=True)
                & ~Q(campaign_journeys__campaign__status__in=CAMPAIGN_FINISHED),
                distinct=True,
            ),
        )
        .order_by("-updated_at", "-id")
    )


def workflow_page_get(*, actor: Actor, workflow_id: int) -> Workflow:
    qs = scoped(Workflow, actor.workspace).filter(deleted_at__isnull=True).select_related("published_version")
    return get_scoped(Workflow, actor.workspace, workflow_id, queryset=qs)


@dataclass
class VersionRow:
    version: WorkflowVersion
    campaigns: list = field(default_factory=list)  # Campaign rows pinned to this version
    live_executions: int = 0


def workflow_versions(*, actor: Actor, workflow: Workflow) -> list[VersionRow]:
    """Every version, newest first, with the campaigns pinned to it and its live executions."""
    versions = list(
        scoped(WorkflowVersion, actor.workspace)
        .filter(workflow=workflow)
        .select_related("published_by", "created_by")
        .order_by("-version_number")
    )
    rows = {v.id: VersionRow(v) for v in versions}
    journeys = (
        scoped(CampaignJourney, actor.workspace)
        .filter(workflow=workflow, campaign__deleted_at__isnull=True)
        .select_related("campaign")
        .order_by("-campaign_id")
    )
    for journey in journeys:
        if journey.workflow_version_id in rows:
            rows[journey.workflow_version_id].campaigns.append(journey.campaign)
    # A campaign's executions all run on the version it is pinned to (it never changes), so a version's live
    # executions are its campaigns' live numbers, kept with the writes — not a count over every execution.
    pinned = dict(
        scoped(CampaignJourney, actor.workspace)
        .filter(workflow=workflow)
        .values_list("campaign_id", "workflow_version_id")
    )
    for campaign_id, by_status in execution_status_counts(actor=actor, campaign_ids=pinned).items():
        version_id = pinned[campaign_id]
        if version_id in rows:
            rows[version_id].live_executions += sum(by_status.get(status, 0) for status in LIVE_STATUSES)
    return [rows[v.id] for v in versions]


def workflow_in_use(rows: list[VersionRow]) -> bool:
    """Whether something live still uses the workflow (the archive service decides; this greys the button)."""
    return any(r.live_executions for r in rows) or any(
        c.status not in CAMPAIGN_FINISHED for r in rows for c in r.campaigns
    )


def versions_diff(*, actor: Actor, workflow: Workflow, old_id: int, new_id: int) -> list[StepDiff]:
    versions = scoped(WorkflowVersion, actor.workspace).filter(workflow=workflow)
    old = get_scoped(WorkflowVersion, actor.workspace, old_id, queryset=versions)
    new = get_scoped(WorkflowVersion, actor.workspace, new_id, queryset=versions)
    return version_diff(graph_of_version(old), graph_of_version(new))


def workflow_text_changes(*, actor: Actor, workflow: Workflow, limit: int = 50) -> list[WorkflowTextChange]:
    """The latest message text edits of a workflow's drafts, newest first (who, old, new), each with the
    ``step_name`` its step has now: its title, else its kind (internal step keys are not shown to people)."""
    rows = list(
        scoped(WorkflowTextChange, actor.workspace).filter(workflow=workflow).select_related("user", "version")[:limit]
    )
    nodes = WorkflowNode.objects.filter(version__workflow=workflow, node_key__in={r.node_key for r in rows})
    names: dict[str, str] = {}
    for key, node_type, subtype, name in nodes.order_by("version_id").values_list(
        "node_key", "type", "subtype", "name"
    ):
        if name.strip() or key not in names:  # the latest title it had, else its kind («ارسال پیامک»)
            names[key] = step_display_name(node_type, subtype, name)
    for row in rows:
        row.step_name = names.get(row.node_key, "")
    return rows


def builder_version(*, actor: Actor, workflow: Workflow) -> WorkflowVersion | None:
    """The version the builder shows: the draft, else the published one, else the newest."""
    versions = scoped(WorkflowVersion, actor.workspace).filter(workflow=workflow)
    return (
        versions.filter(status=VersionStatus.DRAFT).first()
        or versions.filter(status=VersionStatus.PUBLISHED).first()
        or versions.order_by("-version_number").first()
    )


def sample_target(*, actor: Actor):
    """The target the message preview renders for (the newest one the user may see)."""
    return target_queryset(actor=actor).first()
