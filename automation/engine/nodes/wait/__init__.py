"""The wait node type: its engine handler (``handler.py``) and its builder step (``step.py``)."""

from automation.engine.nodes.wait.handler import WaitNode
from automation.engine.nodes.wait.step import Wait

__all__ = ["Wait", "WaitNode"]
