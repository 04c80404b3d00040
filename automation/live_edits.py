"""Live edits, the read side: what publishing a new version means for the executions still on an older one
(journeys.md "Live edits").

``migration_preview`` is the dry run the migration page and ``POST …/migrations/preview`` show: the step diff
(added, removed, changed — SMS texts side by side, word by word), per node of the old version the live
executions standing there now (of them: claimed by a worker, or held with a send in doubt), the choice each
node gets by default (move to the node that kept its key, else stay) and whether the change is a text-only fix.
Nothing is written.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from django.db.models import Count, Q

from automation import journey_counts
from automation.builder.diff import StepDiff, version_diff
from automation.choices import (
    HELD_UNKNOWN,
    IN_FLIGHT_STATUSES,
    LIVE_STATUSES,
    ExecutionStatus,
    MigrationChoice,
    NodeType,
)
from automation.engine.graph import Graph, NodeSpec, graph_of_version
from automation.engine.nodes import step_display_name
from automation.engine.registry import ACTIONS
from automation.models import CampaignJourney, Execution, Workflow, WorkflowNode, WorkflowVersion

# Node types an execution never stands at (it passes them within one step).
_PASSED = {NodeType.START}


@dataclass
class NodeCount:
    """One node of the old version: who stands there now and what the plan does with them by default."""

    node_key: str
    name: str
    type: str
    live: int = 0
    busy: int = 0  # claimed by a worker now: moved after its step (or not at all)
    held: int = 0  # a send in doubt (held, or settling): stays on its version
    default_choice: str = MigrationChoice.STAY
    default_to: str | None = None
    text_changed: bool = False
    reaches_text_change: bool = False


@dataclass
class Preview:
    workflow: Workflow
    from_version: WorkflowVersion
    to_version: WorkflowVersion
    campaign_id: int | None
    diff: list[StepDiff]
    nodes: list[NodeCount]
    targets: list[dict[str, str]]
    text_only: bool
    text_changed_keys: list[str] = field(default_factory=list)

    @property
    def live(self) -> int:
        return sum(n.live for n in self.nodes)

    @property
    def text_fix_count(self) -> int:
        """Executions that have not sent a changed text yet (standing at or before a changed step)."""
        return sum(n.live - n.held for n in self.nodes if n.reaches_text_change)


def node_kind(node: NodeSpec) -> str:
    return step_display_name(node.type, node.subtype, "")


def _texts(node: NodeSpec) -> tuple[list[str], dict[str, Any]]:
    """An action step's message texts and its config without them (for "only the text changed"). The rest is
    read as the step runs it: the action's schema defaults (and the step's name as its title) filled in and an
    empty value (None, "") as unset, so the step editor writing a default out («wait» when the cap is full, an
    empty sender, the title) changes nothing."""
    config = node.config if isinstance(node.config, dict) else {}
    if node.type != NodeType.ACTION:
        return [], config
    action = ACTIONS.get(node.subtype)
    texts = [str(t) for t in (action.template_texts(config) if action else [config.get("body") or ""])]
    properties = (action.config_schema.get("properties") or {}) if action else {}
    defaults = {k: p["default"] for k, p in properties.items() if isinstance(p, dict) and "default" in p}
    if "title" in properties:  # a step's title is its name until set apart
        defaults["title"] = node.name
    rest = {
        k: v
        for k, v in {**defaults, **config}.items()
        if v is not None and v != "" and not (isinstance(v, str) and v in texts)
    }
    return texts, rest


def text_changes(old: Graph, new: Graph) -> list[str] | None:
    """The node keys whose message text changed when nothing else did; None when anything else changed."""
    if old.settings != new.settings or set(old.by_key) != set(new.by_key):
        return None
    if sorted((e.from_key, e.port, e.to_key) for e in old.edges) != sorted(
        (e.from_key, e.port, e.to_key) for e in new.edges
    ):
        return None
    changed = []
    for key, a in old.by_key.items():
        b = new.by_key[key]
        if (a.type, a.subtype, a.name, a.is_enabled) != (b.type, b.subtype, b.name, b.is_enabled):
            return None
        (texts_a, rest_a), (texts_b, rest_b) = _texts(a), _texts(b)
        if rest_a != rest_b:
            return None
        if texts_a != texts_b:
            changed.append(key)
    return changed or None


def reaching(graph: Graph, keys: set[str]) -> set[str]:
    """The node keys from which one of ``keys`` can still be reached (themselves included)."""
    incoming: dict[str, set[str]] = {}
    for edge in graph.edges:
        incoming.setdefault(edge.to_key, set()).add(edge.from_key)
    for node in graph.nodes:  # an end that loops or restarts leads back into the journey
        if node.type == NodeType.END and node.behavior in ("loop", "restart"):
            target = node.config.get("to_node") if node.behavior == "loop" else None
            if target:
                incoming.setdefault(str(target), set()).add(node.node_key)
            elif graph.first_step() is not None:
                incoming.setdefault(graph.first_step().node_key, set()).add(node.node_key)
    seen, stack = set(keys), list(keys)
    while stack:
        for source in incoming.get(stack.pop(), ()):
            if source not in seen:
                seen.add(source)
                stack.append(source)
    return seen


def workflow_campaign_ids(workflow: Workflow, campaign_id: int | None = None) -> list[int]:
    """The campaigns whose executions a migration of this workflow looks at (every journey on the workflow)."""
    ids = CampaignJourney.objects.filter(workflow=workflow).values_list("campaign_id", flat=True)
    if campaign_id is not None:
        ids = ids.filter(campaign_id=campaign_id)
    return list(ids)


def live_on_version(version: WorkflowVersion, campaign_ids: list[int]):
    """Live executions of a version (read through the campaign/status index)."""
    return Execution.objects.filter(campaign_id__in=campaign_ids, status__in=LIVE_STATUSES, version_id=version.id)


def in_doubt() -> Q:
    """A send whose outcome is not known stays on its version: held after an unknown outcome, or settling (a
    due row at a budget-consuming step that does not need budget: the engine is asking the provider)."""
    return Q(metadata__has_key=HELD_UNKNOWN) | Q(
        status__in=["active", "waiting"], needs_budget=False, current_node__consumes_budget=True
    )


def node_counts(version: WorkflowVersion, campaign_ids: list[int]) -> dict[int, dict[str, int]]:
    """Per node id of ``version``: live, busy (claimed) and held executions, from the kept step numbers
    (``journey_counts.live_at_steps``) — flat however many stand there. Settling sends are known from the
    numbers (a due row without budget at a budget-consuming step); sends held after an unknown outcome are
    the paused rows with the mark, counted through the campaign/status index."""
    budget = dict(WorkflowNode.objects.filter(version=version).values_list("id", "consumes_budget"))
    steps = journey_counts.live_at_steps(campaign_ids)
    out: dict[int, dict[str, int]] = {}
    for node_id, counts in steps.items():
        if node_id not in budget:
            continue
        row = out[node_id] = {"live": 0, "busy": 0, "held": 0}
        for (status, needs_budget), n in counts.items():
            row["live"] += n
            if status in IN_FLIGHT_STATUSES:
                row["busy"] += n
            elif status in ("active", "waiting") and budget[node_id] and not needs_budget:
                row["held"] += n
    held = (
        live_on_version(version, campaign_ids)
        .filter(status=ExecutionStatus.PAUSED, metadata__has_key=HELD_UNKNOWN)
        .values_list("current_node_id")
        .annotate(n=Count("id"))
        .order_by()
    )
    for node_id, n in held:
        if node_id in out:
            out[node_id]["held"] += n
    return out


def migration_preview(
    *,
    workflow: Workflow,
    from_version: WorkflowVersion,
    to_version: WorkflowVersion,
    campaign_id: int | None = None,
) -> Preview:
    old, new = graph_of_version(from_version), graph_of_version(to_version)
    counts = node_counts(from_version, workflow_campaign_ids(workflow, campaign_id))
    changed = text_changes(old, new)
    reach = reaching(old, set(changed)) if changed else set()
    nodes = []
    for node in old.nodes:
        if node.type in _PASSED:
            continue
        c = counts.get(node.id, {})
        kept = new.by_key.get(node.node_key)
        nodes.append(
            NodeCount(
                node_key=node.node_key,
                name=step_display_name(node.type, node.subtype, node.name),
                type=node.type,
                live=c.get("live", 0),
                busy=c.get("busy", 0),
                held=c.get("held", 0),
                default_choice=MigrationChoice.MOVE if kept is not None else MigrationChoice.STAY,
                default_to=node.node_key if kept is not None else None,
                text_changed=bool(changed and node.node_key in changed),
                reaches_text_change=node.node_key in reach,
            )
        )
    targets = [
        {"node_key": n.node_key, "name": step_display_name(n.type, n.subtype, n.name), "type": n.type}
        for n in new.nodes
        if n.type not in _PASSED
    ]
    diff = version_diff(old, new)
    for d in diff:  # pages name a step by its title, else its kind — never by its internal key
        node = new.by_key.get(d.node_key) or old.by_key[d.node_key]
        d.name = step_display_name(node.type, node.subtype, node.name)
    return Preview(
        workflow=workflow,
        from_version=from_version,
        to_version=to_version,
        campaign_id=campaign_id,
        diff=diff,
        nodes=nodes,
        targets=targets,
        text_only=changed is not None,
        text_changed_keys=changed or [],
    )


def versions_with_live(workflow: Workflow, campaign_id: int | None = None) -> list[tuple[WorkflowVersion, int]]:
    """Older versions of the workflow that still have live executions, newest first, with their count."""
    steps = journey_counts.live_at_steps(workflow_campaign_ids(workflow, campaign_id))
    nodes = WorkflowNode.objects.filter(version__workflow=workflow, pk__in=list(steps))
    rows: dict[int, int] = {}
    for node_id, version_id in nodes.exclude(version_id=workflow.published_version_id).values_list("id", "version"):
        rows[version_id] = rows.get(version_id, 0) + sum(steps[node_id].values())
    rows = {v: n for v, n in rows.items() if n > 0}
    versions = WorkflowVersion.objects.filter(pk__in=rows).order_by("-version_number")
    return [(v, rows[v.id]) for v in versions]


def campaign_pinned_older(workflow: Workflow, campaign_id: int | None) -> WorkflowVersion | None:
    """The older version a campaign of this workflow still enrolls into (its new targets get that version's
    journey), or None: no campaign given, not this workflow's, or already on the published version."""
    if campaign_id is None or workflow.published_version_id is None:
        return None
    row = (
        CampaignJourney.objects.filter(campaign_id=campaign_id, workflow=workflow)
        .exclude(workflow_version_id=workflow.published_version_id)
        .select_related("workflow_version")
        .first()
    )
    return row.workflow_version if row is not None and row.workflow_version_id else None
