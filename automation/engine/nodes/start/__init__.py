"""The start node type: its engine handler (``handler.py``) and its builder step (``step.py``)."""

from automation.engine.nodes.start.handler import StartNode
from automation.engine.nodes.start.step import Start

__all__ = ["Start", "StartNode"]
