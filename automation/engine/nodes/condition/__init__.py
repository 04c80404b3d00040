"""The condition node type: its engine handler (``handler.py``) and its builder step (``step.py``)."""

from automation.engine.nodes.condition.handler import ConditionNode
from automation.engine.nodes.condition.step import Condition

__all__ = ["Condition", "ConditionNode"]
