"""Start: where every execution enters; follows its one default port."""

from __future__ import annotations

from automation.choices import NodeType, Port
from automation.engine.nodes.base import NodeHandler
from automation.engine.nodes.start.step import Start


class StartNode(NodeHandler):
    key = NodeType.START
    label = "شروع"
    ports = frozenset({Port.DEFAULT})
    step = Start

    def validate(self, node, config, check) -> None:
        check.require(node, Port.DEFAULT)

    def run(self, run, node, step):
        return run.after_move(run.move(node, Port.DEFAULT), step)
