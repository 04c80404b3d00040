"""GraphValidator: every publish-time rule of journeys.md, with per-node errors.

Drafts may be saved invalid; publishing refuses while ``validate`` returns errors.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from automation.choices import NodeType, Port
from automation.engine.conditions import tree_errors, tree_size_errors
from automation.engine.graph import END_BEHAVIORS, WAIT_UNITS, Graph, NodeSpec, graph_size_errors
from automation.engine.registry import ACTIONS
from automation.engine.retry import retry_config_errors
from automation.engine.variables import unknown_variables
from automation.engine.window import SendWindow, WindowError

MIN_LOOP_DELAY = 3600
ALLOWED_PORTS = {
    NodeType.START: {Port.DEFAULT},
    NodeType.ACTION: {Port.DEFAULT, Port.SUCCESS, Port.FAILURE},
    NodeType.WAIT: {Port.DEFAULT},
    NodeType.CONDITION: {Port.YES, Port.NO},
    NodeType.END: set(),
}


@dataclass(frozen=True)
class GraphError:
    node_key: str | None
    code: str
    message: str

    def as_dict(self) -> dict:
        return {"node_key": self.node_key, "code": self.code, "message": self.message}


def delay_seconds(delay) -> int:
    if not isinstance(delay, dict):
        return 0
    try:
        return int(delay.get("amount", 0)) * WAIT_UNITS.get(delay.get("unit", "days"), 0)
    except (TypeError, ValueError):
        return 0


class GraphValidator:
    def __init__(self, graph: Graph) -> None:
        self.graph = graph
        self.errors: list[GraphError] = []

    def add(self, node: NodeSpec | None, code: str, message: str) -> None:
        self.errors.append(GraphError(node.node_key if node else None, code, message))

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
        return self.errors

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
                self.add(source, "DUPLICATE_PORT", f"درگاه «{edge.port}» بیش از یک اتصال دارد.")
            seen.add((edge.from_key, edge.port))
            if edge.port not in ALLOWED_PORTS.get(source.type, set()):
                self.add(source, "INVALID_PORT", f"درگاه «{edge.port}» برای این نوع گام مجاز نیست.")
            if target.type == NodeType.START:
                self.add(source, "EDGE_TO_START", "هیچ اتصالی نباید به گام شروع برگردد.")

    def _require(self, node: NodeSpec, *options: str) -> None:
        ports = self.graph.out.get(node.node_key, {})
        if not any(p in ports for p in options):
            self.add(node, "PORT_NOT_CONNECTED", f"درگاه «{options[0]}» این گام به جایی وصل نیست.")

    def _node(self, node: NodeSpec) -> None:
        cfg = node.config if isinstance(node.config, dict) else {}
        if not isinstance(node.config, dict):
            self.add(node, "INVALID_CONFIG", "پیکربندی گام باید یک شیء باشد.")
        if "goto_workflow" in (node.subtype, cfg.get("behavior")):
            self.add(node, "GOTO_WORKFLOW_RESERVED", "رفتن به گردش‌کار دیگر هنوز پشتیبانی نمی‌شود.")
            return
        if node.type == NodeType.START:
            self._require(node, Port.DEFAULT)
        elif node.type == NodeType.ACTION:
            action = ACTIONS.get(node.subtype)
            if action is None:
                self.add(node, "UNKNOWN_ACTION", f"اقدام «{node.subtype}» ناشناخته است.")
                return
            for message in action.validate_config(cfg):
                self.add(node, "INVALID_ACTION_CONFIG", message)
            for message in retry_config_errors(cfg.get("retry")):
                self.add(node, "INVALID_RETRY", message)
            for text in action.template_texts(cfg):
                for name in unknown_variables(text):
                    self.add(node, "UNKNOWN_VARIABLE", f"متغیر «{name}» ناشناخته است.")
            if cfg.get("on_unknown_outcome", "continue") not in ("continue", "hold"):
                self.add(node, "INVALID_ACTION_CONFIG", "on_unknown_outcome باید continue یا hold باشد.")
            self._require(node, Port.SUCCESS, Port.DEFAULT)
        elif node.type == NodeType.WAIT:
            self._wait(node, cfg)
            self._require(node, Port.DEFAULT)
        elif node.type == NodeType.CONDITION:
            too_big = tree_size_errors(cfg)
            for message in too_big:
                self.add(node, "CONDITION_TOO_LARGE", message)
            for message in [] if too_big else tree_errors(cfg):
                self.add(node, "INVALID_CONDITION", message)
            self._require(node, Port.YES)
            self._require(node, Port.NO)
        elif node.type == NodeType.END:
            self._end(node, cfg)
        else:
            self.add(node, "UNKNOWN_NODE_TYPE", f"نوع گام «{node.type}» ناشناخته است.")

    def _wait(self, node: NodeSpec, cfg: dict) -> None:
        mode = cfg.get("mode", node.subtype)
        if mode == "duration":
            amount = cfg.get("amount")
            if not isinstance(amount, int) or amount <= 0 or cfg.get("unit", "days") not in WAIT_UNITS:
                self.add(node, "INVALID_WAIT", "مدت انتظار باید عددی مثبت با واحد دقیقه، ساعت یا روز باشد.")
        elif mode == "until":
            try:
                datetime.fromisoformat(str(cfg.get("at")))
                SendWindow.from_config({"timezone": cfg.get("timezone", "Asia/Tehran")})
            except (ValueError, WindowError):
                self.add(node, "INVALID_WAIT", "زمان یا منطقه زمانی انتظار نامعتبر است.")
        else:
            self.add(node, "INVALID_WAIT", "نوع انتظار باید duration یا until باشد.")

    def _end(self, node: NodeSpec, cfg: dict) -> None:
        behavior = node.behavior
        if behavior not in END_BEHAVIORS:
            self.add(node, "INVALID_END", f"رفتار پایان «{behavior}» ناشناخته است.")
            return
        if self.graph.out.get(node.node_key):
            self.add(node, "END_HAS_EDGES", "گام پایان نباید اتصال خروجی داشته باشد.")
        if behavior in ("loop", "restart"):
            if delay_seconds(cfg.get("delay")) < MIN_LOOP_DELAY:
                self.add(node, "LOOP_DELAY", "تکرار یا شروع دوباره دست‌کم یک ساعت فاصله لازم دارد.")
            max_cycles = cfg.get("max_cycles")
            if not isinstance(max_cycles, int) or max_cycles < 1:
                self.add(node, "LOOP_MAX_CYCLES", "سقف تعداد دورها (max_cycles) لازم است.")
        if behavior == "loop":
            target = self.graph.by_key.get(str(cfg.get("to_node", "")))
            if target is None or target.type == NodeType.START:
                self.add(node, "LOOP_TARGET", "گام مقصد تکرار معتبر نیست.")

    def _successors(self, key: str, *, with_jumps: bool) -> list[str]:
        g = self.graph
        nxt = list(g.out.get(key, {}).values())
        node = g.by_key.get(key)
        if with_jumps and node is not None and node.type == NodeType.END:
            if node.behavior == "loop" and node.config.get("to_node") in g.by_key:
                nxt.append(node.config["to_node"])
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
            timed = any(g.by_key[k].type == NodeType.WAIT and g.by_key[k].is_enabled for k in component)
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


def validate_graph(graph: Graph) -> list[GraphError]:
    return GraphValidator(graph).validate()
