"""What a handler, guard or action sees while one execution runs one step."""

from __future__ import annotations

import uuid
import zoneinfo
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.contrib.contenttypes.models import ContentType

from automation.choices import EndReason, EventType
from automation.engine.counters import Budget, campaign_budget
from automation.engine.graph import Graph, NodeSpec, published_graph
from automation.engine.outcome import Outcome
from automation.engine.transitions import ExecutionRow
from automation.engine.window import SendWindow, local_day
from automation.events import PendingEvent
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
    execution: Execution | ExecutionRow  # a lean row on the batched path; read attributes only
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
        """The limits of a send on the workspace's day (one per campaign, channel and day for a whole job)."""
        day = local_day(self.now, self.tz)
        key = ("budget", self.campaign.id, channel, day)
        if key not in self.cache:
            self.cache[key] = campaign_budget(self.campaign, channel=channel, day=day, settings=self.settings)
        return self.cache[key]


class RunContext:
    """What one job's pass over one execution carries and records: the node handlers step through this
    (``move``, ``event``, ``finish``, ...); the runner's step loop drives it."""

    def __init__(
        self, execution: Execution | ExecutionRow, campaign: Campaign, now: datetime, job_token: uuid.UUID, cache: dict
    ):
        self.ex = execution
        self.claimed_at: datetime | None = None  # when the scheduler claimed it (recorded on the outcome row)
        self.campaign = campaign
        self.now = now
        self.job_token = job_token
        self.graph: Graph = published_graph(execution.version_id)
        self.workspace = campaign.workspace
        key = ("settings", campaign.workspace_id)
        if key not in cache:
            cache[key] = automation_settings(self.workspace)
        self.settings = cache[key]
        self.tz = workspace_tz(self.workspace, self.settings)
        wkey = ("window", campaign.id)
        if wkey not in cache:
            cache[wkey] = effective_window(campaign, self.graph.settings, self.settings, self.tz)
        self.window = cache[wkey]
        self.events: list[PendingEvent] = []
        self.metadata = dict(execution.metadata or {})
        self.fields: dict[str, Any] = {}
        self.cache = cache
        self.subject = self._load_subject()

    # --- helpers -----------------------------------------------------------------------------------
    @property
    def execution(self) -> Execution | ExecutionRow:
        """Conditions read ``execution.metadata``/``cycle`` through this (live metadata of this run)."""
        self.ex.metadata = self.metadata
        return self.ex

    def _load_subject(self):
        key = ("subject", self.ex.subject_type_id, self.ex.subject_id)
        if key in self.cache:  # prefetched for the whole batch
            return self.cache[key]
        model = ContentType.objects.get_for_id(self.ex.subject_type_id).model_class()
        return model._default_manager.filter(pk=self.ex.subject_id).first() if model else None

    def event(self, type: str, node: NodeSpec | None = None, message: str = "", **data) -> None:
        self.events.append(PendingEvent(type, node.id if node else None, message, data, self.now))

    def node(self) -> NodeSpec:
        return self.graph.by_id[self.fields.get("current_node_id", self.ex.current_node_id)]

    def enter(self, node: NodeSpec, at: datetime) -> None:
        self.fields.update(
            current_node_id=node.id,
            needs_budget=node.consumes_budget,
            node_entered_at=at,
            retry_count=0,
            eligible_at=at,
            next_run_at=at,
        )
        self.event(EventType.NODE_ENTERED, node)

    def move(self, node: NodeSpec, *ports: str, at: datetime | None = None) -> NodeSpec | None:
        """Follow the first connected port; None when the path ends (treated as complete)."""
        key = self.graph.next_key(node.node_key, *ports)
        if key is None:
            return None
        nxt = self.graph.by_key[key]
        self.enter(nxt, at or self.now)
        return nxt

    def entered_at(self) -> datetime:
        return self.fields.get("node_entered_at") or self.ex.node_entered_at or self.now

    def retry_count(self) -> int:
        return self.fields.get("retry_count", self.ex.retry_count)

    def finish(self, transition: str, reason: str, event: str) -> Outcome:
        extra = {"end_reason": reason, "next_run_at": None}
        if transition in ("complete", "fail", "cancel", "blacklist"):
            extra["completed_at"] = self.now
        return Outcome(
            transition, extra, PendingEvent(event, self.fields.get("current_node_id", self.ex.current_node_id), reason)
        )

    def after_move(self, nxt: NodeSpec | None, step: int) -> Outcome | None:
        """After following a port: the path's end completes; a budget-consuming step goes back to the scheduler."""
        if nxt is None:
            return self.finish("complete", EndReason.COMPLETED, EventType.COMPLETED)
        if nxt.consumes_budget:
            return Outcome("ready")
        return None
