"""Condition: a rule tree evaluated against the subject; follows ``yes`` or ``no``."""

from __future__ import annotations

from automation.choices import EventType, NodeType, Port
from automation.engine import conditions
from automation.engine.nodes.base import NodeHandler
from automation.engine.nodes.condition.step import Condition


class ConditionNode(NodeHandler):
    key = NodeType.CONDITION
    label = "شرط"
    ports = frozenset({Port.YES, Port.NO})
    step = Condition

    def draft_errors(self, node) -> list[str]:
        return conditions.tree_size_errors(node.config) if isinstance(node.config, dict) else []

    def validate(self, node, config, check) -> None:
        too_big = conditions.tree_size_errors(config)
        for message in too_big:
            check.add(node, "CONDITION_TOO_LARGE", message)
        for message in [] if too_big else conditions.tree_errors(config):
            check.add(node, "INVALID_CONDITION", message)
        check.require(node, Port.YES)
        check.require(node, Port.NO)

    def run(self, run, node, step):
        matched = conditions.evaluate(node.config, run)
        run.event(EventType.CONDITION_EVALUATED, node, result=matched)
        return run.after_move(run.move(node, Port.YES if matched else Port.NO), step)
