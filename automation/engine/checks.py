"""What a publish-time check records: the errors found so far, per node.

The validator walks the whole graph with one ``GraphCheck``; each node type's handler reports its own
rules into it (``check.add`` / ``check.require``) without knowing the validator.
"""

from __future__ import annotations

from dataclasses import dataclass

from automation.choices import port_label
from automation.engine.graph import Graph, NodeSpec


@dataclass(frozen=True)
class GraphError:
    node_key: str | None
    code: str
    message: str

    def as_dict(self) -> dict:
        return {"node_key": self.node_key, "code": self.code, "message": self.message}


class GraphCheck:
    def __init__(self, graph: Graph) -> None:
        self.graph = graph
        self.errors: list[GraphError] = []

    def add(self, node: NodeSpec | None, code: str, message: str) -> None:
        self.errors.append(GraphError(node.node_key if node else None, code, message))

    def require(self, node: NodeSpec, *options: str) -> None:
        """One of these ports of the node must be connected."""
        ports = self.graph.out.get(node.node_key, {})
        if not any(p in ports for p in options):
            self.add(node, "PORT_NOT_CONNECTED", f"درگاه «{port_label(options[0])}» این گام به جایی وصل نیست.")
