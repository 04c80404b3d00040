"""GraphValidator: every publish-time rule of journeys.md, with per-node errors.

Drafts may be saved invalid; publishing refuses while ``validate`` returns errors.
"""

from __future__ import annotations

from automation.choices import NodeType, OnUnknownOutcome, port_label
from automation.engine.checks import GraphCheck, GraphError
from automation.engine.graph import Graph, NodeSpec, graph_size_errors
from automation.engine.nodes import NODE_TYPES, node_ports
from automation.engine.retry import retry_config_errors
from automation.engine.window import SendWindow, WindowError

__all__ = ["GraphError", "GraphValidator", "validate_graph"]


class GraphValidator(GraphCheck):
    """Every publish-time rule over one graph; the node types' own rules run through ``GraphCheck``."""

    def validate(self) -> list[GraphError]:
        g = self.graph
        too_big = graph_size_errors(g)
        if too_big:  # nothing else is checked: the walks below are only run on graphs within the caps
            for message in too_big:
                self.add(None, "GRAPH_TOO_LARGE", message)
            return self.errors
        keys = [n.node_key for n in g.nodes]
        if len(keys) != len(set(keys)) or any(not k for k in keys):
            self.add(None, "DUPLICATE_NODE_KEY", "کلید گام‌ها باید یکتا و غیرخالی باشد.")
        starts = [n for n in g.nodes if n.type == NodeType.START]
        if len(starts) != 1:
            self.add(None, "START_COUNT", "گردش‌کار باید دقیقاً یک گام شروع داشته باشد.")
        if not any(n.type == NodeType.END for n in g.nodes):
            self.add(None, "NO_END", "گردش‌کار دست‌کم یک گام پایان لازم دارد.")
        self._edges()
        for node in g.nodes:
            self._node(node)
        if len(starts) == 1:
            self._reachability(starts[0])
        self._cycles()
        self._window(g.settings.get("send_window"), None)
        self._defaults(g.settings)
        return self.errors

    def _defaults(self, settings: dict) -> None:
        """The workflow-wide defaults of its steps (``with_workflow_defaults``) and its daily limit."""
        limit = settings.get("daily_limit")
        if limit is not None and (not isinstance(limit, int) or isinstance(limit, bool) or limit < 1):
            self.add(None, "INVALID_SETTINGS", "سقف روزانه گردش‌کار باید عدد درستِ دست‌کم ۱ باشد.")
        for message in retry_config_errors(settings.get("retry")):
            self.add(None, "INVALID_SETTINGS", f"پیش‌فرض گردش‌کار: {message}")
        unknown = settings.get("on_unknown_outcome")
        if unknown is not None and unknown not in OnUnknownOutcome.values:
            self.add(None, "INVALID_SETTINGS", "پیش‌فرض نتیجه نامعلوم باید continue یا hold باشد.")

    # --- rules ---------------------------------------------------------------------------------
    def _edges(self) -> None:
        g = self.graph
        seen = set()
        for edge in g.edges:
            source, target = g.by_key.get(edge.from_key), g.by_key.get(edge.to_key)
            if source is None or target is None:
                self.add(source, "EDGE_UNKNOWN_NODE", "اتصال به گامی ناموجود اشاره می‌کند.")
                continue
            if (edge.from_key, edge.port) in seen:
                self.add(source, "DUPLICATE_PORT", f"درگاه «{port_label(edge.port)}» بیش از یک اتصال دارد.")
            seen.add((edge.from_key, edge.port))
            if edge.port not in node_ports(source.type):
                self.add(source, "INVALID_PORT", f"درگاه «{port_label(edge.port)}» برای این نوع گام مجاز نیست.")
            if target.type == NodeType.START:
                self.add(source, "EDGE_TO_START", "هیچ اتصالی نباید به گام شروع برگردد.")

    def _node(self, node: NodeSpec) -> None:
        cfg = node.config if isinstance(node.config, dict) else {}
        if not isinstance(node.config, dict):
            self.add(node, "INVALID_CONFIG", "پیکربندی گام باید یک شیء باشد.")
        if "goto_workflow" in (node.subtype, cfg.get("behavior")):
            self.add(node, "GOTO_WORKFLOW_RESERVED", "رفتن به گردش‌کار دیگر هنوز پشتیبانی نمی‌شود.")
            return
        handler = NODE_TYPES.get(node.type)
        if handler is None:
            self.add(node, "UNKNOWN_NODE_TYPE", f"نوع گام «{node.type}» ناشناخته است.")
            return
        handler.validate(node, cfg, self)

    def _successors(self, key: str, *, with_jumps: bool) -> list[str]:
        g = self.graph
        nxt = list(g.out.get(key, {}).values())
        node = g.by_key.get(key)
        handler = NODE_TYPES.get(node.type) if node is not None else None
        if with_jumps and handler is not None:
            nxt.extend(handler.jumps(g, node))
        return nxt

    def _reachability(self, start: NodeSpec) -> None:
        seen, stack = {start.node_key}, [start.node_key]
        while stack:
            for nxt in self._successors(stack.pop(), with_jumps=True):
                if nxt not in seen:
                    seen.add(nxt)
                    stack.append(nxt)
        for node in self.graph.nodes:
            if node.node_key not in seen:
                self.add(node, "UNREACHABLE", "این گام از شروع قابل دسترسی نیست.")

    def _cycles(self) -> None:
        """Every cycle of plain edges must contain an enabled, timed wait (loop/restart jumps are delayed).

        Tarjan's strongly connected components, iteratively (an explicit stack, no recursion).
        """
        g = self.graph
        index: dict[str, int] = {}
        low: dict[str, int] = {}
        on_stack: set[str] = set()
        stack: list[str] = []
        components: list[list[str]] = []

        def successors(v: str) -> list[str]:
            return [w for w in self._successors(v, with_jumps=False) if w in g.by_key]

        for root in g.nodes:
            if root.node_key in index:
                continue
            index[root.node_key] = low[root.node_key] = len(index)
            stack.append(root.node_key)
            on_stack.add(root.node_key)
            work = [(root.node_key, iter(successors(root.node_key)))]
            while work:
                v, pending = work[-1]
                w = next(pending, None)
                if w is not None:
                    if w not in index:
                        index[w] = low[w] = len(index)
                        stack.append(w)
                        on_stack.add(w)
                        work.append((w, iter(successors(w))))
                    elif w in on_stack:
                        low[v] = min(low[v], index[w])
                    continue
                work.pop()
                if work:  # back in the caller: propagate the low-link
                    parent = work[-1][0]
                    low[parent] = min(low[parent], low[v])
                if low[v] == index[v]:
                    component = []
                    while True:
                        w = stack.pop()
                        on_stack.discard(w)
                        component.append(w)
                        if w == v:
                            break
                    components.append(component)
        for component in components:
            is_cycle = len(component) > 1 or component[0] in self._successors(component[0], with_jumps=False)
            if not is_cycle:
                continue
            timed = any(_timed(g.by_key[k]) for k in component)
            if not timed:
                self.add(
                    g.by_key[sorted(component)[0]],
                    "CYCLE_WITHOUT_WAIT",
                    "هر حلقه باید یک گام انتظار زمان‌دار داشته باشد.",
                )

    def _window(self, config, node: NodeSpec | None) -> None:
        try:
            SendWindow.from_config(config)
        except WindowError as exc:
            self.add(node, "INVALID_SEND_WINDOW", f"بازه ارسال نامعتبر است: {exc}")


def _timed(node: NodeSpec) -> bool:
    handler = NODE_TYPES.get(node.type)
    return bool(handler and handler.timed and node.is_enabled)


def validate_graph(graph: Graph) -> list[GraphError]:
    return GraphValidator(graph).validate()
