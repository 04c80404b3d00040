"""The end node type: its engine handler (``handler.py``) and its builder step (``step.py``)."""

from automation.engine.nodes.end.handler import EndNode
from automation.engine.nodes.end.step import End

__all__ = ["End", "EndNode"]
