"""Workflow writes: create (blank or from a template), save the draft graph, validate, publish, new draft."""

from __future__ import annotations

import copy
import secrets
from typing import Any

from django.core.exceptions import ValidationError as DjangoValidationError
from django.db import IntegrityError, transaction
from django.db.models import Max
from django.utils import timezone

from automation.choices import LIVE_STATUSES, NodeType, OnUnknownOutcome, VersionStatus, WorkflowStatus
from automation.engine.graph import Graph, graph_of_version, graph_size_errors
from automation.engine.nodes import NODE_TYPES
from automation.engine.registry import ACTIONS, WORKFLOW_TEMPLATES, workflow_templates_in_order
from automation.engine.retry import retry_config_errors
from automation.engine.validator import GraphError, validate_graph
from automation.engine.window import WindowError, window_for_save
from automation.errors import DraftExists, GraphInvalid, NoDraftVersion, TemplateNotFound, WorkflowInUse
from automation.models import (
    CampaignJourney,
    Execution,
    Workflow,
    WorkflowEdge,
    WorkflowNode,
    WorkflowTemplate,
    WorkflowTextChange,
    WorkflowVersion,
)
from automation.workflow_selectors import CAMPAIGN_FINISHED
from campaigns.platform.errors import ValidationFailed
from campaigns.platform.permissions import Perm
from campaigns.platform.tenancy import Actor, get_scoped, scoped
from campaigns.platform.text import json_strings, text_check, validate_plain_text, validate_visible_name

BLANK_GRAPH = {
    "nodes": [
        {"node_key": "start", "type": "start", "subtype": "manual", "name": "شروع", "config": {}},
        {"node_key": "end", "type": "end", "subtype": "complete", "name": "پایان", "config": {"behavior": "complete"}},
    ],
    "edges": [{"from": "start", "to": "end", "port": "default"}],
    "settings": {},
}


def new_node_key() -> str:
    return f"n_{secrets.token_hex(4)}"


def with_fresh_keys(definition: dict[str, Any]) -> dict[str, Any]:
    """Copy a template graph giving every node a new key (edges and loop targets follow)."""
    data = copy.deepcopy(definition)
    mapping = {n["node_key"]: new_node_key() for n in data.get("nodes", [])}
    for node in data.get("nodes", []):
        node["node_key"] = mapping[node["node_key"]]
        if (node.get("config") or {}).get("to_node") in mapping:
            node["config"]["to_node"] = mapping[node["config"]["to_node"]]
    for edge in data.get("edges", []):
        edge["from"], edge["to"] = mapping.get(edge["from"], edge["from"]), mapping.get(edge["to"], edge["to"])
    return data


def _structural_errors(graph: Graph) -> dict[str, list[str]]:
    """What even a draft must satisfy to be stored (size caps, keys unique, edges between existing nodes)."""
    too_big = graph_size_errors(graph)
    if too_big:  # refused before anything walks the graph
        return {"graph": too_big}
    errors: dict[str, list[str]] = {}
    keys = [n.node_key for n in graph.nodes]
    if any(not k or len(k) > 40 for k in keys) or len(set(keys)) != len(keys):
        errors["nodes"] = ["کلید گام‌ها باید یکتا، غیرخالی و حداکثر ۴۰ نویسه باشد."]
    for node in graph.nodes:
        handler = NODE_TYPES.get(node.type)
        for message in handler.draft_errors(node) if handler else []:
            errors.setdefault("nodes", []).append(f"{node.node_key[:40]}: {message}")
    if any(n.type not in NODE_TYPES for n in graph.nodes):
        errors.setdefault("nodes", []).append("نوع گام ناشناخته است.")
    if any(not isinstance(n.config, dict) for n in graph.nodes):
        errors.setdefault("nodes", []).append("پیکربندی هر گام باید یک شیء باشد.")
    for node in graph.nodes:  # names and every text of a step (its SMS body too): the kernel's text rules
        for message in _text_errors(node.name, node.config):
            errors.setdefault("nodes", []).append(f"{str(node.node_key)[:40]}: {message}")
    for edge in graph.edges:
        for message in _text_errors(edge.label):
            errors.setdefault("edges", []).append(message)
    known = set(keys)
    pairs = [(e.from_key, e.port) for e in graph.edges]
    if any(e.from_key not in known or e.to_key not in known for e in graph.edges):
        errors["edges"] = ["هر اتصال باید بین دو گام موجود باشد."]
    elif len(set(pairs)) != len(pairs):
        errors["edges"] = ["هر درگاه یک گام فقط یک اتصال می‌تواند داشته باشد."]
    if not isinstance(graph.settings, dict):
        errors["settings"] = ["تنظیمات باید یک شیء باشد."]
    return errors


def _text_errors(name, texts=None) -> list[str]:
    try:
        validate_visible_name(name)
        for text in json_strings(texts):
            validate_plain_text(text)
    except DjangoValidationError as exc:
        return list(exc.messages)
    return []


def _write_graph(version: WorkflowVersion, graph: Graph) -> None:
    WorkflowEdge.objects.filter(version=version).delete()
    WorkflowNode.objects.filter(version=version).delete()
    nodes = WorkflowNode.objects.bulk_create(
        [
            WorkflowNode(
                workspace_id=version.workspace_id,
                version=version,
                node_key=n.node_key,
                type=n.type,
                subtype=n.subtype[:50],
                name=n.name[:200],
                config=n.config,
                is_enabled=n.is_enabled,
                position_x=n.position_x,
                position_y=n.position_y,
            )
            for n in graph.nodes
        ]
    )
    ids = {n.node_key: n.id for n in nodes}
    WorkflowEdge.objects.bulk_create(
        [
            WorkflowEdge(
                workspace_id=version.workspace_id,
                version=version,
                from_node_id=ids[e.from_key],
                to_node_id=ids[e.to_key],
                port=e.port[:30],
                label=(e.label or "")[:100],
            )
            for e in graph.edges
        ]
    )


def _message_texts(graph: Graph) -> dict[str, str]:
    """Each action step's message text by node key (the texts the action declares; ``body`` when unregistered)."""
    texts: dict[str, str] = {}
    for node in graph.nodes:
        if node.type != NodeType.ACTION or not isinstance(node.config, dict):
            continue
        action = ACTIONS.get(node.subtype)
        parts = action.template_texts(node.config) if action else [node.config.get("body") or ""]
        texts[node.node_key] = "\n".join(str(p) for p in parts)
    return texts


def _audit_text_changes(*, actor: Actor, version: WorkflowVersion, old: Graph, new: Graph) -> None:
    """One append-only row per step whose message text changed (steps added or removed are not text edits)."""
    before, after = _message_texts(old), _message_texts(new)
    WorkflowTextChange.objects.bulk_create(
        [
            WorkflowTextChange(
                workspace_id=version.workspace_id,
                workflow_id=version.workflow_id,
                version=version,
                node_key=key,
                user=actor.user,
                old_text=before[key],
                new_text=text,
            )
            for key, text in after.items()
            if key in before and before[key] != text
        ]
    )


def workflow_create(
    *,
    actor: Actor,
    name: str,
    description: str = "",
    category: str = "",
    template: str | None = None,
    template_id: int | None = None,
) -> Workflow:
    """A workflow with a draft v1: blank, a built-in template (by key) or a workspace template (by id); the
    category is a free label (≤ 30 characters) the workflow list filters by."""
    actor.require(Perm.MANAGE_WORKFLOWS)
    category = (category or "").strip()
    text_check(names={"name": name, "category": category}, descriptions={"description": description})
    if len(category) > Workflow._meta.get_field("category").max_length:
        raise ValidationFailed.field("category", "دسته حداکثر ۳۰ نویسه است.")
    if not (name or "").strip():
        raise ValidationFailed.field("name", "نام گردش‌کار لازم است.")
    if template_id is not None:
        definition = get_scoped(WorkflowTemplate, actor.workspace, template_id).definition
    elif template:
        builtin = WORKFLOW_TEMPLATES.get(template)
        if builtin is None:
            raise TemplateNotFound()
        definition = builtin.definition
    else:
        definition = BLANK_GRAPH
    graph = Graph.from_dict(with_fresh_keys(definition))
    with transaction.atomic():
        workflow = Workflow.objects.create(
            workspace=actor.workspace,
            name=name.strip(),
            description=description,
            category=category,
            created_by=actor.user,
            updated_by=actor.user,
        )
        version = WorkflowVersion.objects.create(
            workspace=actor.workspace,
            workflow=workflow,
            version_number=1,
            settings=graph.settings,
            created_by=actor.user,
        )
        _write_graph(version, graph)
    return workflow


def draft_of(workflow: Workflow) -> WorkflowVersion | None:
    return WorkflowVersion.objects.filter(workflow=workflow, status=VersionStatus.DRAFT).first()


def workflow_graph_save(
    *, actor: Actor, workflow_id: int, graph_data: dict[str, Any]
) -> tuple[WorkflowVersion, list[GraphError]]:
    """Replace the draft's nodes and edges; drafts may be invalid (the errors are returned, not raised)."""
    actor.require(Perm.MANAGE_WORKFLOWS)
    workflow = get_scoped(Workflow, actor.workspace, workflow_id)
    graph = Graph.from_dict(graph_data)
    errors = _structural_errors(graph)
    if errors:
        raise ValidationFailed(details=errors)
    with transaction.atomic():
        version = (
            WorkflowVersion.objects.select_for_update().filter(workflow=workflow, status=VersionStatus.DRAFT).first()
        )
        if version is None:
            raise NoDraftVersion()
        previous = graph_of_version(version)
        version.settings = graph.settings
        version.save(update_fields=["settings", "updated_at"])
        _write_graph(version, graph)
        _audit_text_changes(actor=actor, version=version, old=previous, new=graph)
        Workflow.objects.filter(pk=workflow.pk).update(updated_by=actor.user, updated_at=timezone.now())
    return version, validate_graph(graph_of_version(version))


def workflow_send_window_save(
    *, actor: Actor, workflow_id: int, window: dict[str, Any] | None
) -> tuple[WorkflowVersion, list[GraphError]]:
    """Set (or clear, with ``None``) the journey-wide send window of the draft; a window closed every day is refused."""
    actor.require(Perm.MANAGE_WORKFLOWS)
    workflow = get_scoped(Workflow, actor.workspace, workflow_id)
    version = draft_of(workflow)
    if version is None:
        raise NoDraftVersion()
    try:
        parsed = window_for_save(window, actor.workspace.time_zone or "Asia/Tehran")
    except WindowError as exc:
        raise ValidationFailed.field("send_window", f"بازه ارسال نامعتبر است: {exc}") from None
    graph = graph_of_version(version).to_dict()
    graph["settings"] = {k: v for k, v in (graph.get("settings") or {}).items() if k != "send_window"}
    if parsed is not None:
        graph["settings"]["send_window"] = parsed.to_config()
    return workflow_graph_save(actor=actor, workflow_id=workflow.id, graph_data=graph)


DEFAULT_KEYS = ("daily_limit", "retry", "on_unknown_outcome")


def workflow_defaults_save(
    *,
    actor: Actor,
    workflow_id: int,
    daily_limit: int | None,
    retry: dict[str, Any] | None,
    on_unknown_outcome: str | None,
) -> tuple[WorkflowVersion, list[GraphError]]:
    """Set the draft's workflow-wide defaults (``None`` clears one): the daily limit of the campaigns on it that set
    none, and the retry policy and unknown-outcome rule of its action steps that set none (docs/journeys.md)."""
    actor.require(Perm.MANAGE_WORKFLOWS)
    workflow = get_scoped(Workflow, actor.workspace, workflow_id)
    version = draft_of(workflow)
    if version is None:
        raise NoDraftVersion()
    errors: dict[str, list[str]] = {}
    if daily_limit is not None and (
        isinstance(daily_limit, bool) or not isinstance(daily_limit, int) or daily_limit < 1
    ):
        errors["daily_limit"] = ["سقف روزانه باید دست‌کم ۱ باشد."]
    if retry is not None and (not retry or retry_config_errors(retry)):
        errors["retry"] = retry_config_errors(retry) or ["تنظیمات تلاش دوباره نامعتبر است."]
    if on_unknown_outcome is not None and on_unknown_outcome not in OnUnknownOutcome.values:
        errors["on_unknown_outcome"] = ["باید continue یا hold باشد."]
    if errors:
        raise ValidationFailed(details=errors)
    values = {"daily_limit": daily_limit, "retry": retry, "on_unknown_outcome": on_unknown_outcome}
    graph = graph_of_version(version).to_dict()
    graph["settings"] = {k: v for k, v in (graph.get("settings") or {}).items() if k not in DEFAULT_KEYS}
    graph["settings"].update({k: v for k, v in values.items() if v is not None})
    return workflow_graph_save(actor=actor, workflow_id=workflow.id, graph_data=graph)


def workflow_validate(*, actor: Actor, workflow_id: int) -> list[GraphError]:
    workflow = get_scoped(Workflow, actor.workspace, workflow_id)
    version = draft_of(workflow)
    if version is None:
        raise NoDraftVersion()
    return validate_graph(graph_of_version(version))


def workflow_publish(*, actor: Actor, workflow_id: int, note: str = "") -> WorkflowVersion:
    """Validate the draft, compute consumes_budget, publish it and supersede the previous version."""
    actor.require(Perm.MANAGE_WORKFLOWS)
    workflow = get_scoped(Workflow, actor.workspace, workflow_id)
    with transaction.atomic():
        version = (
            WorkflowVersion.objects.select_for_update().filter(workflow=workflow, status=VersionStatus.DRAFT).first()
        )
        if version is None:
            raise NoDraftVersion()
        workflow_version_publish(version=version, user=actor.user, note=note)
    version.refresh_from_db()
    return version


def workflow_version_publish(*, version: WorkflowVersion, user=None, note: str = "") -> None:
    """Publish a draft version the caller holds (locked, in its transaction): validate its graph, compute each
    action's consumes_budget, supersede the published version and point the workflow at this one. ``user`` is
    None for a system write (a chain campaign's one-step workflow)."""
    now = timezone.now()
    errors = validate_graph(graph_of_version(version))
    if errors:
        raise GraphInvalid(details={"graph": [e.as_dict() for e in errors]})
    for node in WorkflowNode.objects.filter(version=version, type=NodeType.ACTION):
        action = ACTIONS.get(node.subtype)
        WorkflowNode.objects.filter(pk=node.pk).update(consumes_budget=bool(action and action.consumes_budget))
    WorkflowVersion.objects.filter(workflow_id=version.workflow_id, status=VersionStatus.PUBLISHED).update(
        status=VersionStatus.SUPERSEDED, updated_at=now
    )
    WorkflowVersion.objects.filter(pk=version.pk).update(
        status=VersionStatus.PUBLISHED, published_at=now, published_by=user, note=note[:300], updated_at=now
    )
    Workflow.objects.filter(pk=version.workflow_id).update(
        published_version=version, status=WorkflowStatus.ACTIVE, updated_by=user, updated_at=now
    )


def workflow_new_draft(*, actor: Actor, workflow_id: int) -> WorkflowVersion:
    """A new draft copied from the published version (node keys stay the same across versions)."""
    actor.require(Perm.MANAGE_WORKFLOWS)
    workflow = get_scoped(Workflow, actor.workspace, workflow_id)
    if workflow.published_version_id is None:
        raise NoDraftVersion()
    # the stored graph, not the engine's view: steps keep only what they set (the workflow's defaults stay settings)
    source = graph_of_version(WorkflowVersion.objects.get(pk=workflow.published_version_id))
    try:
        with transaction.atomic():
            number = (
                WorkflowVersion.objects.filter(workflow=workflow).aggregate(m=Max("version_number"))["m"] or 0
            ) + 1
            version = WorkflowVersion.objects.create(
                workspace=actor.workspace,
                workflow=workflow,
                version_number=number,
                settings=dict(source.settings),
                created_by=actor.user,
            )
            _write_graph(version, Graph.from_dict(source.to_dict()))
    except IntegrityError:
        raise DraftExists() from None
    return version


TEMPLATE_NAME_MAX_LENGTH = 200  # WorkflowTemplate.name


def workflow_template_save(*, actor: Actor, workflow_id: int, name: str, description: str = "") -> WorkflowTemplate:
    """Save a workflow's latest graph as a workspace template."""
    actor.require(Perm.MANAGE_WORKFLOWS)
    text_check(names={"name": name if name.strip() else None}, descriptions={"description": description})
    if len(name.strip()) > TEMPLATE_NAME_MAX_LENGTH:
        raise ValidationFailed.field("name", "نام قالب حداکثر ۲۰۰ نویسه است.")
    workflow = get_scoped(Workflow, actor.workspace, workflow_id)
    version = draft_of(workflow) or workflow.published_version
    if version is None:
        raise NoDraftVersion()
    return WorkflowTemplate.objects.create(
        workspace=actor.workspace,
        name=name.strip() or workflow.name,
        description=description,
        definition=graph_of_version(version).to_dict(),
        created_by=actor.user,
    )


def workflow_templates(*, actor: Actor) -> list[dict[str, Any]]:
    builtin = [
        {"key": t.key, "id": None, "name": t.name, "description": t.description, "builtin": True}
        for t in workflow_templates_in_order()
    ]
    own = [
        {"key": None, "id": t.id, "name": t.name, "description": t.description, "builtin": False}
        for t in scoped(WorkflowTemplate, actor.workspace)
    ]
    return builtin + own


# A campaign in one of these statuses never runs its workflow again (archiving needs all its campaigns here).


def workflow_archive(*, actor: Actor, workflow_id: int) -> Workflow:
    """Archive a workflow nothing live uses: no unfinished campaign and no live execution on any version."""
    actor.require(Perm.MANAGE_WORKFLOWS)
    workflow = get_scoped(Workflow, actor.workspace, workflow_id)
    with transaction.atomic():
        Workflow.objects.select_for_update().filter(pk=workflow.pk).first()
        campaigns = (
            scoped(CampaignJourney, actor.workspace)
            .filter(workflow=workflow, campaign__deleted_at__isnull=True)
            .exclude(campaign__status__in=CAMPAIGN_FINISHED)
        )
        live = scoped(Execution, actor.workspace).filter(workflow=workflow, status__in=LIVE_STATUSES)
        if campaigns.exists() or live.exists():
            raise WorkflowInUse()
        Workflow.objects.filter(pk=workflow.pk).update(
            status=WorkflowStatus.ARCHIVED, updated_by=actor.user, updated_at=timezone.now()
        )
    workflow.refresh_from_db()
    return workflow
