"""WorkflowSequence: a journey as the builder draws it — a vertical list of steps.

A list of steps ends in an ``End``. A ``Condition`` closes its list and each of its branches (yes / no)
is a list of its own. A ``Send`` may carry a failure list, taken when the action fails for good (the
engine's ``failure`` port; without one, the step's retry ``on_exhausted`` decides). A list may also be
left open while a draft is incomplete: the validator then reports the unconnected port of its last step.

``WorkflowSequence.compile()`` gives the engine's graph in the ``Graph.to_dict`` format (nodes, edges,
settings) that ``workflow_graph_save`` accepts; ``decompile(graph)`` reads a graph back and raises
``Undrawable`` (a code and a Persian reason) for graphs a list cannot show: merge points, plain-edge
cycles, steps not reachable from the start, ... — the page shows those read-only with the reason.
Loop and restart are not edges in the graph (an ``End`` names its loop target in its config), so they
never stop a graph from being drawn.

Node keys, names, subtypes and configs are kept as they are, so ``decompile(seq.compile()) == seq``.
Not kept: canvas positions, edge labels and ``consumes_budget`` (computed at publish); an action's
``success`` port is written back as ``default`` (the engine reads either).
"""

from __future__ import annotations

import copy
import secrets
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from automation.choices import NodeType, Port, port_label
from automation.engine.graph import Graph
from automation.engine.nodes import NODE_TYPES, builder_step, builder_steps, step_display_name

# The built-in steps live in their node type's folder (automation/engine/nodes/<type>/step.py); re-exported
# here for code that builds sequences.
from automation.engine.nodes.action.step import Retry, Send  # noqa: F401
from automation.engine.nodes.condition.step import Condition  # noqa: F401
from automation.engine.nodes.end.step import End  # noqa: F401
from automation.engine.nodes.start.step import Start
from automation.engine.nodes.step import SequenceError, Step, as_steps
from automation.engine.nodes.wait.step import Wait  # noqa: F401
from campaigns.platform.jalali import fa_digits
from campaigns.platform.text import typed_int

JSON = dict[str, Any]
# A step's place: indexes into lists and branch names, e.g. (2, "no", 0) = first step of the "no"
# branch of the third main step; () is the start.
StepPath = tuple[int | str, ...]


def branch_names() -> set[str]:
    """Every branch name a registered step has (``yes``, ``no``, ``failure`` for the built-ins)."""
    return {branch for step in builder_steps() for branch in step.branch_fields}


class Undrawable(Exception):
    """A graph the step list cannot draw; ``message`` is the reason shown on the read-only page."""

    def __init__(self, code: str, message: str, node_key: str | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.node_key = node_key

    def as_dict(self) -> dict[str, Any]:
        return {"code": self.code, "message": self.message, "node_key": self.node_key}


def _shown(node) -> str:
    """A graph node named for people (its title, else its kind), never by its internal key."""
    return step_display_name(node.type, node.subtype, node.name)


def new_step_key() -> str:
    """A fresh node key in the format the workflow services use."""
    return f"n_{secrets.token_hex(4)}"


# --- the sequence ------------------------------------------------------------------------------


def _check_list(steps: tuple[Step, ...], seen: set[str], where: str) -> None:
    for index, step in enumerate(steps):
        if not isinstance(step, Step) or isinstance(step, Start):
            raise SequenceError(f"{where}[{index}] is not a step: {step!r}")
        if not step.key:
            raise SequenceError(f"{where}[{index}] has an empty key")
        if step.key in seen:
            raise SequenceError(f"the key {step.key!r} is used twice")
        seen.add(step.key)
        if step.terminates and index != len(steps) - 1:
            raise SequenceError(f"{where}[{index}] ({step.key}) must be the last step of its list")
        for branch, sub in step.branches().items():
            _check_list(sub, seen, f"{where}[{index}].{branch}")


@dataclass(frozen=True)
class WorkflowSequence:
    """A journey as a list of steps (see the module docstring); ``settings`` are the version settings."""

    steps: tuple[Step, ...] = ()
    start: Start = field(default_factory=Start)
    settings: JSON = field(default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "steps", as_steps(self.steps))
        _check_list(self.steps, {self.start.key}, "steps")

    # --- reading ---------------------------------------------------------------------------------
    def walk(self) -> Iterator[tuple[StepPath, Step]]:
        """Every step with its path, in the order the list shows them (a branch right below its step)."""

        def visit(steps: tuple[Step, ...], prefix: StepPath) -> Iterator[tuple[StepPath, Step]]:
            for index, step in enumerate(steps):
                path = (*prefix, index)
                yield path, step
                for branch, sub in step.branches().items():
                    yield from visit(sub, (*path, branch))

        return visit(self.steps, ())

    def paths(self) -> dict[str, StepPath]:
        """node_key → path (the start's key maps to ``()``)."""
        return {self.start.key: (), **{step.key: path for path, step in self.walk()}}

    def path_of(self, key: str) -> StepPath | None:
        return self.paths().get(key)

    def step_at(self, path: StepPath) -> Step:
        steps, index = self._list_at(path)
        if not 0 <= index < len(steps):
            raise SequenceError(f"no step at {format_path(path)}")
        return steps[index]

    def _list_at(self, path: StepPath) -> tuple[tuple[Step, ...], int]:
        if not path or len(path) % 2 != 1:
            raise SequenceError(f"not a step path: {path!r}")
        steps = self.steps
        for i in range(0, len(path) - 1, 2):
            index, branch = path[i], path[i + 1]
            if not isinstance(index, int) or not 0 <= index < len(steps):
                raise SequenceError(f"not a step path: {path!r}")
            owner = steps[index]
            if branch not in owner.branches():
                raise SequenceError(f"{owner.key} has no {branch!r} branch")
            steps = owner.branches()[branch]
        if not isinstance(path[-1], int):
            raise SequenceError(f"not a step path: {path!r}")
        return steps, path[-1]

    # --- editing (each returns a new sequence) -----------------------------------------------------
    def _with_list(self, path: StepPath, change: Callable[[tuple[Step, ...], int], tuple[Step, ...]]):
        self._list_at(path)  # the path must address a list

        def rebuild(steps: tuple[Step, ...], rest: StepPath) -> tuple[Step, ...]:
            if len(rest) == 1:
                return change(steps, rest[0])
            index, branch = rest[0], rest[1]
            owner = steps[index]
            new_owner = owner.with_branch(branch, rebuild(owner.branches()[branch], rest[2:]))
            return (*steps[:index], new_owner, *steps[index + 1 :])

        return replace(self, steps=rebuild(self.steps, path))

    def insert(self, path: StepPath, step: Step) -> WorkflowSequence:
        """Insert ``step`` at ``path`` (its index may be the list's length: append). A condition
        inserted before other steps takes them as its "yes" branch; an end cannot be."""

        def change(steps: tuple[Step, ...], index: int) -> tuple[Step, ...]:
            if not 0 <= index <= len(steps):
                raise SequenceError(f"no place {format_path(path)}")
            following = steps[index:]
            adopted = step.adopt(following)
            if adopted is not None:
                return (*steps[:index], adopted)
            return (*steps[:index], step, *following)

        return self._with_list(path, change)

    def insert_after(self, path: StepPath, step: Step) -> WorkflowSequence:
        """The add-step menu under a step (``()`` = under the start)."""
        if path == ():
            return self.insert((0,), step)
        return self.insert((*path[:-1], path[-1] + 1), step)

    def replace_step(self, path: StepPath, step: Step) -> WorkflowSequence:
        def change(steps: tuple[Step, ...], index: int) -> tuple[Step, ...]:
            if not 0 <= index < len(steps):
                raise SequenceError(f"no step at {format_path(path)}")
            return (*steps[:index], step, *steps[index + 1 :])

        return self._with_list(path, change)

    def remove(self, path: StepPath) -> WorkflowSequence:
        """Remove the step at ``path`` with its branches (a list may be left open; the validator says so)."""

        def change(steps: tuple[Step, ...], index: int) -> tuple[Step, ...]:
            if not 0 <= index < len(steps):
                raise SequenceError(f"no step at {format_path(path)}")
            return (*steps[:index], *steps[index + 1 :])

        return self._with_list(path, change)

    # --- graph -----------------------------------------------------------------------------------
    def compile(self) -> JSON:
        """The engine's graph (``Graph.to_dict`` format: nodes, edges, settings)."""
        nodes: list[JSON] = [_node(self.start)]
        edges: list[JSON] = []

        def emit(source: str, port: str, steps: tuple[Step, ...]) -> None:
            for step in steps:
                edges.append({"from": source, "to": step.key, "port": port, "label": ""})
                nodes.append(_node(step))
                for branch, sub in step.branches().items():  # a branch leaves by the port of its name
                    emit(step.key, branch, sub)
                source, port = step.key, Port.DEFAULT

        emit(self.start.key, Port.DEFAULT, self.steps)
        return {"nodes": nodes, "edges": edges, "settings": copy.deepcopy(self.settings)}

    def compile_graph(self) -> Graph:
        return Graph.from_dict(self.compile())

    @classmethod
    def decompile(cls, graph: Graph | Mapping[str, Any]) -> WorkflowSequence:
        return decompile(graph)


def _node(step: Step | Start) -> JSON:
    return {
        "node_key": step.key,
        "type": str(step.node_type),
        "subtype": step.subtype,
        "name": step.name,
        "config": copy.deepcopy(step.config),
        "is_enabled": step.enabled,
        "consumes_budget": False,
        "position_x": None,
        "position_y": None,
    }


def format_path(path: StepPath | None) -> str:
    """``(2, "no", 0)`` → ``"2.no.0"``; the start is ``"start"`` (used in links and element ids)."""
    if path is None:
        return ""
    return ".".join(str(p) for p in path) if path else "start"


def parse_path(text: str) -> StepPath:
    if text == "start":
        return ()
    parts: list[int | str] = []
    for i, part in enumerate(text.split(".")):
        if i % 2 == 0:
            number = typed_int(part)
            if number is None:
                raise SequenceError(f"not a step path: {text!r}")
            parts.append(number)
        elif part in branch_names():
            parts.append(part)
        else:
            raise SequenceError(f"not a step path: {text!r}")
    if len(parts) % 2 != 1:
        raise SequenceError(f"not a step path: {text!r}")
    return tuple(parts)


# --- decompile ---------------------------------------------------------------------------------


def drawn_ports() -> dict[str, frozenset[str]]:
    """Node type → the ports the step list draws: those of every registered type that has a builder step."""
    return {key: handler.ports for key, handler in NODE_TYPES if handler.step is not None}


def _as_graph(graph: Graph | Mapping[str, Any]) -> Graph:
    return graph if isinstance(graph, Graph) else Graph.from_dict(dict(graph))


def decompile(graph: Graph | Mapping[str, Any]) -> WorkflowSequence:
    """Read a graph (a ``Graph`` or its dict form) as a step list; ``Undrawable`` says why it cannot be."""
    g = _as_graph(graph)
    _check_structure(g)
    start = next(n for n in g.nodes if n.type == NodeType.START)
    out = {key: dict(ports) for key, ports in g.out.items()}

    def read_list(key: str | None) -> tuple[Step, ...]:
        steps: list[Step] = []
        while key is not None:
            node = g.by_key[key]
            config = copy.deepcopy(node.config)
            common = {"key": node.node_key, "name": node.name, "config": config, "enabled": node.is_enabled}
            step, key = builder_step(node.type).read(node, common, out.get(key, {}), read_list)
            steps.append(step)
        return tuple(steps)

    start_step = Start(
        key=start.node_key,
        name=start.name,
        subtype=start.subtype,
        config=copy.deepcopy(start.config),
        enabled=start.is_enabled,
    )
    try:
        steps = read_list(out.get(start.node_key, {}).get(Port.DEFAULT))
        sequence = WorkflowSequence(steps=steps, start=start_step, settings=copy.deepcopy(g.settings))
        same = graphs_equivalent(sequence.compile(), g)  # a guard: nothing the engine reads may be lost
    except RecursionError:
        raise Undrawable("TOO_DEEP", "شاخه‌های تودرتوی این گردش‌کار برای فهرست گام‌ها بیش از حد عمیق است.") from None
    if not same:
        raise Undrawable("NOT_REPRESENTABLE", "بخشی از این گردش‌کار در فهرست گام‌ها جا نمی‌گیرد.")
    return sequence


def try_decompile(graph: Graph | Mapping[str, Any]) -> tuple[WorkflowSequence | None, Undrawable | None]:
    """``(sequence, None)`` or ``(None, reason)`` — for pages that show undrawable graphs read-only."""
    try:
        return decompile(graph), None
    except Undrawable as exc:
        return None, exc


def _check_structure(g: Graph) -> None:
    drawn = drawn_ports()
    keys = [n.node_key for n in g.nodes]
    if any(not k for k in keys) or len(set(keys)) != len(keys):
        raise Undrawable("DUPLICATE_NODE_KEY", "کلید گام‌ها یکتا یا غیرخالی نیست.")
    for node in g.nodes:
        if node.type not in drawn:
            raise Undrawable("UNKNOWN_NODE_TYPE", f"نوع گام «{node.type}» ناشناخته است.", node.node_key)
        if not isinstance(node.config, dict):
            raise Undrawable("INVALID_CONFIG", "پیکربندی یک گام شیء نیست.", node.node_key)
    starts = [n for n in g.nodes if n.type == NodeType.START]
    if len(starts) != 1:
        raise Undrawable("START_COUNT", "فهرست گام‌ها فقط گردش‌کاری با دقیقاً یک گام شروع را نشان می‌دهد.")
    seen_ports: set[tuple[str, str]] = set()
    incoming: dict[str, list[str]] = {}
    for edge in g.edges:
        source, target = g.by_key.get(edge.from_key), g.by_key.get(edge.to_key)
        if source is None or target is None:
            raise Undrawable("EDGE_UNKNOWN_NODE", "اتصالی به گامی ناموجود اشاره می‌کند.", edge.from_key or None)
        if (edge.from_key, edge.port) in seen_ports:
            message = f"درگاه «{port_label(edge.port)}» یک گام بیش از یک اتصال دارد."
            raise Undrawable("DUPLICATE_PORT", message, edge.from_key)
        seen_ports.add((edge.from_key, edge.port))
        if edge.port not in drawn[source.type]:
            message = f"گام «{_shown(source)}» اتصالی از درگاه «{port_label(edge.port)}» دارد که این نوع گام ندارد."
            raise Undrawable("INVALID_PORT", message, source.node_key)
        if target.type == NodeType.START:
            raise Undrawable("EDGE_TO_START", "اتصالی به گام شروع برمی‌گردد.", source.node_key)
        incoming.setdefault(edge.to_key, []).append(edge.from_key)
    for key, ports in g.out.items():
        if Port.DEFAULT in ports and Port.SUCCESS in ports:
            message = "این گام هم درگاه «پیش‌فرض» و هم «موفق» را به دو جای متفاوت وصل کرده است."
            raise Undrawable("SUCCESS_AND_DEFAULT", message, key)
    cycle = _plain_cycle(g)
    if cycle:
        names = " ← ".join(_shown(g.by_key[k]) for k in cycle)
        message = (
            f"این گردش‌کار حلقه‌ای با اتصال مستقیم دارد ({names}); فهرست گام‌ها فقط تکرار از راه گام پایان "
            "(تکرار یا شروع دوباره) را نشان می‌دهد."
        )
        raise Undrawable("CYCLE", message, cycle[0])
    for key, sources in incoming.items():
        if len(sources) > 1:
            node = g.by_key[key]
            message = (
                f"گام «{_shown(node)}» از {fa_digits(len(sources))} جا به آن می‌رسند (نقطه به‌هم‌پیوستن)؛ "
                "در فهرست گام‌ها هر شاخه گام‌های خودش را دارد."
            )
            raise Undrawable("MERGE_POINT", message, key)
    reachable = _reachable(g, starts[0].node_key)
    for node in g.nodes:
        if node.node_key not in reachable:
            message = f"گام «{_shown(node)}» به شروع وصل نیست و در فهرست جایی ندارد."
            raise Undrawable("UNREACHABLE", message, node.node_key)


def _reachable(g: Graph, start: str) -> set[str]:
    seen, stack = {start}, [start]
    while stack:
        for nxt in g.out.get(stack.pop(), {}).values():
            if nxt not in seen:
                seen.add(nxt)
                stack.append(nxt)
    return seen


def _plain_cycle(g: Graph) -> list[str] | None:
    """One cycle of edges (loop/restart ends are config, not edges), as a list of keys, or None."""
    state: dict[str, int] = {}  # 1 = on the current path, 2 = done
    for root in g.by_key:
        if root in state:
            continue
        path: list[str] = [root]
        iters = [iter(g.out.get(root, {}).values())]
        state[root] = 1
        while iters:
            nxt = next(iters[-1], None)
            if nxt is None:
                state[path.pop()] = 2
                iters.pop()
            elif state.get(nxt) == 1:
                return path[path.index(nxt) :]
            elif nxt not in state:
                state[nxt] = 1
                path.append(nxt)
                iters.append(iter(g.out.get(nxt, {}).values()))
    return None


def _normalized(graph: Graph | Mapping[str, Any]) -> tuple:
    g = _as_graph(graph)
    nodes = {n.node_key: (n.type, n.subtype, n.name, n.config, n.is_enabled) for n in g.nodes}
    edges = set()
    for e in g.edges:
        source = g.by_key.get(e.from_key)
        step = builder_step(source.type) if source is not None else None
        port = step.port_aliases.get(e.port, e.port) if step is not None else e.port
        edges.add((e.from_key, str(port), e.to_key))
    return nodes, edges, g.settings


def graphs_equivalent(a: Graph | Mapping[str, Any], b: Graph | Mapping[str, Any]) -> bool:
    """Same nodes (key, type, subtype, name, config, enabled), edges and settings; positions, labels and
    ``consumes_budget`` aside, an action's ``success`` port counting as ``default``."""
    return _normalized(a) == _normalized(b)


# --- validator problems per step ---------------------------------------------------------------


@dataclass(frozen=True)
class StepProblem:
    """A validator problem placed on the step list; ``path`` None = about the whole journey."""

    path: StepPath | None
    node_key: str | None
    code: str
    message: str

    @property
    def anchor(self) -> str:
        """``"2.no.0"`` / ``"start"`` / ``""`` (whole journey) — for the link to the step."""
        return format_path(self.path)


def problems_by_step(sequence: WorkflowSequence, errors: Iterable[Any]) -> list[StepProblem]:
    """Place validator errors (``GraphError`` objects or their ``as_dict()`` form) on step paths."""
    paths = sequence.paths()
    placed = []
    for error in errors:
        data = error if isinstance(error, Mapping) else error.as_dict()
        key = data.get("node_key")
        placed.append(StepProblem(paths.get(key) if key else None, key, data.get("code", ""), data.get("message", "")))
    return placed


def validate_sequence(sequence: WorkflowSequence) -> list[StepProblem]:
    """The publish-time validator's problems for this sequence, each placed on its step."""
    from automation.engine.validator import validate_graph

    return problems_by_step(sequence, validate_graph(sequence.compile_graph()))
