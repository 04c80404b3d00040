"""Execution timeline events: one helper per event type that services and the scheduler write.

A single event goes with its status change (``apply_transition(..., event=paused_event())``: the conditional
UPDATE and the row in one transaction); the ``*_events`` variants write one row per execution in one bulk
insert (``COPY`` on PostgreSQL) for the bulk transitions. The step loop of the runner records the events of
the node handlers as ``PendingEvent`` rows and inserts them through the same ``insert_events``.

The scheduler's claim (→ queued) and the job's move to processing write no rows of their own: the job's outcome
row records both (``claimed_at`` in its data, ``from_status`` processing, ``occurred_at`` = processing started);
a claim whose job never ran shows as the ``lease_expired`` row ``from_status`` queued. Rows of the old
``claimed``/``processing`` types stay readable (journeys.md "Decisions").
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import Any

from automation.choices import EventType
from automation.choices import ExecutionStatus as S
from automation.engine.transitions import PendingEvent, bulk_events

# The execution columns the bulk ``*_events`` helpers read from each row (``qs.values(*EVENT_ROW_FIELDS)``).
EVENT_ROW_FIELDS = ("id", "workspace_id", "campaign_id", "subject_type_id", "subject_id", "current_node_id", "status")

# --- one execution (passed to apply_transition) -----------------------------------------------------------


def paused_event() -> PendingEvent:
    return PendingEvent(EventType.PAUSED)


def resumed_event(*, node_id: int | None = None, data: dict[str, Any] | None = None) -> PendingEvent:
    return PendingEvent(EventType.RESUMED, node_id, data=data or {})


def removed_event() -> PendingEvent:
    return PendingEvent(EventType.REMOVED)


def restarted_event(*, node_id: int) -> PendingEvent:
    return PendingEvent(EventType.RESTARTED, node_id)


# --- many executions at once (bulk transitions) ------------------------------------------------------------


def enrolled_events(
    executions: Iterable, *, status: str, now: datetime, message: str = "", data: dict[str, Any] | None = None
) -> None:
    bulk_events(
        executions, type=EventType.ENROLLED, from_status="", to_status=status, message=message, data=data, now=now
    )


def activated_events(executions: Iterable, *, now: datetime) -> None:
    bulk_events(executions, type=EventType.ACTIVATED, from_status=S.PENDING, to_status=S.ACTIVE, now=now)


def lease_expired_events(executions: Iterable, *, now: datetime) -> None:
    bulk_events(executions, type=EventType.LEASE_EXPIRED, from_status="", to_status=S.WAITING, now=now)


def cancelled_events(executions: Iterable, *, reason: str, now: datetime) -> None:
    bulk_events(executions, type=EventType.CANCELLED, from_status="", to_status=S.CANCELLED, message=reason, now=now)
