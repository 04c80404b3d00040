"""The action node type: its engine handler (``handler.py``) and its builder step (``step.py``)."""

from automation.engine.nodes.action.handler import ActionNode
from automation.engine.nodes.action.step import Send

__all__ = ["ActionNode", "Send"]
