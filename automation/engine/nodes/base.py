"""The shape of a journey node type: one handler validates a node at publish and runs it in a job.

A handler is registered in ``NODE_TYPES`` (below, shaped like ``ACTIONS``) under its ``key`` (the
``type`` stored on ``WorkflowNode``). The validator, the runner, the API catalog, the draft check
and the builder (its steps, ports, editors, summaries and diff lines) all read the registry, so a new
node type is one folder (``handler.py`` + ``step.py``) plus one ``NODE_TYPES.register(...)`` call — no
engine or builder file, no choices, no migration.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from automation.engine.registry import Registry

if TYPE_CHECKING:
    from automation.engine.checks import GraphCheck
    from automation.engine.context import RunContext
    from automation.engine.graph import Graph, NodeSpec
    from automation.engine.nodes.step import Step
    from automation.engine.outcome import Outcome


class NodeHandler:
    key: str = ""
    label: str = ""
    # Outgoing ports a node of this type may connect (the validator refuses any other).
    ports: frozenset[str] = frozenset()
    # A cycle through an enabled node of this type is delayed (the cycle rule accepts it).
    timed: bool = False
    # The builder's step for this type (``automation.engine.nodes.step.Step``); None = the step list cannot
    # draw it (the builder shows such a workflow read-only).
    step: type[Step] | None = None

    def kind_label(self, subtype: str) -> str:
        """A node's kind for people, in Persian (an action node: its action's label)."""
        return self.label

    def draft_errors(self, node: NodeSpec) -> list[str]:
        """What even a stored draft must satisfy (e.g. size caps); messages without the node key."""
        return []

    def validate(self, node: NodeSpec, config: dict[str, Any], check: GraphCheck) -> None:
        """Publish-time rules: report with ``check.add(node, CODE, message)`` / ``check.require(node, port)``."""

    def jumps(self, graph: Graph, node: NodeSpec) -> list[str]:
        """Node keys reached without an edge (a loop's target); used for reachability."""
        return []

    def run(self, run: RunContext, node: NodeSpec, step: int) -> Outcome | None:  # pragma: no cover - interface
        """One step of the job at this node: an Outcome ends the job's pass, None continues the loop.

        May be a generator: it yields a ``StepContext`` when an action must execute and receives
        the ``ActionResult`` (see ``nodes.action``).
        """
        raise NotImplementedError

    def as_catalog(self) -> dict[str, Any]:
        return {"key": self.key, "label": self.label, "ports": sorted(self.ports)}


NODE_TYPES: Registry[NodeHandler] = Registry("node_types")
