"""The builder's start: holds the trigger (``manual`` by default); executions begin at the first step."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from automation.choices import NodeType
from automation.engine.nodes.step import JSON, Step


@dataclass(frozen=True)
class Start(Step):
    """The start node (not a step of a list: ``WorkflowSequence.start``)."""

    key: str = "start"
    name: str = "شروع"
    subtype: str = "manual"
    config: JSON = field(default_factory=dict)
    enabled: bool = True

    node_type: ClassVar[str] = NodeType.START
    kind: ClassVar[str] = "start"
    label: ClassVar[str] = "شروع"
