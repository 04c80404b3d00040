"""The builder's start: holds the trigger (``manual`` by default); executions begin at the first step."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from automation.choices import NodeType
from automation.engine.nodes.step import Step


@dataclass(frozen=True, kw_only=True)
class Start(Step):
    """The start node (not a step of a list: ``WorkflowSequence.start``)."""

    key: str = "start"
    name: str = "شروع"
    subtype: str = "manual"

    node_type: ClassVar[str] = NodeType.START
    kind: ClassVar[str] = "start"
    label: ClassVar[str] = "شروع"
