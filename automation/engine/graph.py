"""In-memory graphs: the editor/validator format and the runtime view of a published version."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from automation.choices import NodeType, Port

END_BEHAVIORS = ("complete", "stop", "loop", "restart")
WAIT_UNITS = {"minutes": 60, "hours": 3600, "days": 86400, "weeks": 7 * 86400}

# Size caps of one workflow version (not settings: the editor, the validator and the engine rely on them).
# Checked before any graph walk, so an oversized graph is refused at once instead of pinning a worker.
MAX_NODES = 200
MAX_EDGES = 3 * MAX_NODES  # an action node has at most three outgoing ports


def graph_size_errors(graph: Graph) -> list[str]:
    """Messages for a graph above the node/edge caps (empty when within them)."""
    errors = []
    if len(graph.nodes) > MAX_NODES:
        errors.append(f"گردش‌کار حداکثر {MAX_NODES} گام می‌تواند داشته باشد.")
    if len(graph.edges) > MAX_EDGES:
        errors.append(f"گردش‌کار حداکثر {MAX_EDGES} اتصال می‌تواند داشته باشد.")
    return errors


@dataclass
class NodeSpec:
    node_key: str
    type: str
    subtype: str
    name: str = ""
    config: dict[str, Any] = field(default_factory=dict)
    is_enabled: bool = True
    consumes_budget: bool = False
    position_x: int | None = None
    position_y: int | None = None
    id: int | None = None

    @property
    def behavior(self) -> str:
        return self.config.get("behavior") or self.subtype


@dataclass
class EdgeSpec:
    from_key: str
    to_key: str
    port: str = Port.DEFAULT
    label: str = ""


@dataclass
class Graph:
    nodes: list[NodeSpec]
    edges: list[EdgeSpec]
    settings: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.by_key = {n.node_key: n for n in self.nodes}
        self.by_id = {n.id: n for n in self.nodes if n.id is not None}
        self.out: dict[str, dict[str, str]] = {}
        for edge in self.edges:
            self.out.setdefault(edge.from_key, {})[edge.port] = edge.to_key

    @property
    def start(self) -> NodeSpec | None:
        return next((n for n in self.nodes if n.type == NodeType.START), None)

    def next_key(self, node_key: str, *ports: str) -> str | None:
        ports_of = self.out.get(node_key, {})
        for port in ports:
            if port in ports_of:
                return ports_of[port]
        return None

    def first_step(self) -> NodeSpec | None:
        """Executions start at the node after Start."""
        start = self.start
        if start is None:
            return None
        key = self.next_key(start.node_key, Port.DEFAULT)
        return self.by_key.get(key) if key else None

    def to_dict(self) -> dict[str, Any]:
        return {
            "nodes": [
                {
                    "node_key": n.node_key,
                    "type": n.type,
                    "subtype": n.subtype,
                    "name": n.name,
                    "config": n.config,
                    "is_enabled": n.is_enabled,
                    "consumes_budget": n.consumes_budget,
                    "position_x": n.position_x,
                    "position_y": n.position_y,
                }
                for n in self.nodes
            ],
            "edges": [{"from": e.from_key, "to": e.to_key, "port": e.port, "label": e.label} for e in self.edges],
            "settings": self.settings,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Graph:
        nodes = [
            NodeSpec(
                node_key=str(n.get("node_key", "")),
                type=str(n.get("type", "")),
                subtype=str(n.get("subtype", "")),
                name=str(n.get("name", "") or ""),
                config=n.get("config") or {},
                is_enabled=bool(n.get("is_enabled", True)),
                position_x=n.get("position_x"),
                position_y=n.get("position_y"),
            )
            for n in data.get("nodes", [])
        ]
        edges = [
            EdgeSpec(
                str(e.get("from", "")), str(e.get("to", "")), str(e.get("port") or Port.DEFAULT), e.get("label") or ""
            )
            for e in data.get("edges", [])
        ]
        return cls(nodes, edges, data.get("settings") or {})


def graph_of_version(version) -> Graph:
    """Load a version's graph from the database (drafts and published)."""
    from automation.models import WorkflowEdge, WorkflowNode

    nodes = [
        NodeSpec(
            node_key=n.node_key,
            type=n.type,
            subtype=n.subtype,
            name=n.name,
            config=n.config,
            is_enabled=n.is_enabled,
            consumes_budget=n.consumes_budget,
            position_x=n.position_x,
            position_y=n.position_y,
            id=n.id,
        )
        for n in WorkflowNode.objects.filter(version_id=version.id).order_by("id")
    ]
    keys = {n.id: n.node_key for n in nodes}
    edges = [
        EdgeSpec(keys[e.from_node_id], keys[e.to_node_id], e.port, e.label)
        for e in WorkflowEdge.objects.filter(version_id=version.id).order_by("id")
    ]
    return Graph(nodes, edges, dict(version.settings or {}))


# Workflow-wide defaults (version ``settings``) an action step takes when it does not set its own (the key is
# absent from its config). ``daily_limit`` is the third default: a budget, read by ``counters.budget_scopes``.
STEP_DEFAULT_KEYS = ("retry", "on_unknown_outcome")


def with_workflow_defaults(graph: Graph) -> Graph:
    """The graph as the engine runs it: every action step without its own ``retry`` / ``on_unknown_outcome`` takes
    the workflow's (``settings``); a step that sets one keeps it. Drafts are edited without this (the builder
    shows and saves only what a step sets itself)."""
    defaults = {key: graph.settings[key] for key in STEP_DEFAULT_KEYS if graph.settings.get(key) not in (None, "")}
    if not defaults:
        return graph
    for node in graph.nodes:
        if node.type == NodeType.ACTION and isinstance(node.config, dict):
            missing = {key: value for key, value in defaults.items() if key not in node.config}
            if missing:
                node.config = {**missing, **node.config}
    return graph


@lru_cache(maxsize=256)
def published_graph(version_id: int) -> Graph:
    """Published versions never change, so their graphs are cached per process (with the workflow's defaults
    given to the steps that do not set their own: ``with_workflow_defaults``)."""
    from automation.models import WorkflowVersion

    return with_workflow_defaults(graph_of_version(WorkflowVersion.objects.get(pk=version_id)))


def wait_seconds(config: dict[str, Any]) -> int:
    return int(config.get("amount", 0)) * WAIT_UNITS.get(config.get("unit", "days"), 86400)
