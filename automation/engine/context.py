"""What a handler, guard or action sees while one execution runs one step."""

from __future__ import annotations

import uuid
import zoneinfo
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from automation.engine.counters import Budget, campaign_budget
from automation.engine.graph import Graph, NodeSpec
from automation.engine.window import SendWindow, local_day
from automation.models import AutomationSettings, Execution
from campaigns.models import Campaign, Workspace


def automation_settings(workspace: Workspace) -> AutomationSettings:
    settings, _ = AutomationSettings.objects.get_or_create(workspace=workspace)
    return settings


def workspace_tz(workspace: Workspace, settings: AutomationSettings | None = None) -> str:
    tz = (settings.timezone if settings else "") or workspace.time_zone or "Asia/Tehran"
    try:
        zoneinfo.ZoneInfo(tz)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        return "Asia/Tehran"
    return tz


def effective_window(
    campaign: Campaign, graph_settings: dict, settings: AutomationSettings, tz: str
) -> SendWindow | None:
    """campaign ?? version ?? workspace default ?? none."""
    config = campaign.send_window or graph_settings.get("send_window") or settings.default_send_window
    return SendWindow.from_config(config, default_tz=tz)


@dataclass
class StepContext:
    execution: Execution
    graph: Graph
    node: NodeSpec
    campaign: Campaign
    workspace: Workspace
    subject: Any
    now: datetime
    settings: AutomationSettings
    tz: str
    job_token: uuid.UUID
    window: SendWindow | None = None
    scratch: dict[str, Any] = field(default_factory=dict)
    # Shared by every execution of one job (a batch): plug-ins may memoise per-workspace reads here.
    cache: dict[Any, Any] = field(default_factory=dict)

    @property
    def config(self) -> dict[str, Any]:
        return self.node.config

    def heartbeat(self) -> None:
        """Extend the job's lease (actions call this before each slow network call)."""
        lease = self.cache.get("lease")
        if lease is not None:
            lease.beat()

    def budget(self, channel: str) -> Budget:
        return campaign_budget(self.campaign, channel=channel, day=local_day(self.now, self.tz), settings=self.settings)
