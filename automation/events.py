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
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, NamedTuple

from django.core.serializers.json import DjangoJSONEncoder
from django.db import connection
from django.utils import timezone

from automation.choices import EventType
from automation.choices import ExecutionStatus as S
from automation.models import Execution, ExecutionEvent
from campaigns.platform.database import is_postgresql

# The execution columns the bulk ``*_events`` helpers read from each row (``qs.values(*EVENT_ROW_FIELDS)``).
EVENT_ROW_FIELDS = ("id", "workspace_id", "campaign_id", "subject_type_id", "subject_id", "current_node_id", "status")

# --- the writer: rows appended by one COPY (the engine's transitions and the helpers below) ---------------

# One encoder for the hot paths (json.dumps(cls=...) builds a new one per value).
encode_json = DjangoJSONEncoder().encode


@dataclass
class PendingEvent:
    type: str
    node_id: int | None = None
    message: str = ""
    data: dict[str, Any] = field(default_factory=dict)
    occurred_at: datetime | None = None
    from_status: str = ""
    to_status: str = ""


class EventRow(NamedTuple):
    """One ``ExecutionEvent`` to insert (a plain tuple: hot paths insert thousands at once)."""

    workspace_id: int
    execution_id: int
    campaign_id: int
    subject_type_id: int
    subject_id: int
    node_id: int | None
    type: str
    from_status: str
    to_status: str
    message: str
    data: dict
    actor_id: int | None
    occurred_at: datetime


def event_row(execution: Execution, event: PendingEvent, *, actor=None, now: datetime | None = None) -> EventRow:
    return EventRow(
        execution.workspace_id,
        execution.id,
        execution.campaign_id,
        execution.subject_type_id,
        execution.subject_id,
        event.node_id,
        event.type,
        event.from_status,
        event.to_status,
        event.message[:500],
        event.data,
        getattr(actor, "pk", actor),
        event.occurred_at or now or timezone.now(),
    )


def insert_events(rows: list[EventRow]) -> None:
    """Append events: ``COPY … FROM STDIN`` on PostgreSQL (the cheapest bulk insert), bulk_create elsewhere."""
    if not rows:
        return
    if not is_postgresql(connection):
        ExecutionEvent.objects.bulk_create([ExecutionEvent(**r._asdict()) for r in rows], batch_size=1000)
        return
    data_index = EventRow._fields.index("data")
    sql = f"COPY {ExecutionEvent._meta.db_table} ({', '.join(EventRow._fields)}) FROM STDIN"
    with connection.cursor() as cursor, cursor.cursor.copy(sql) as copy:
        for row in rows:
            values = list(row)
            values[data_index] = encode_json(values[data_index] or {})
            copy.write_row(values)


def bulk_events(executions, *, type: str, from_status: str, to_status: str, message: str = "", data=None, now=None):
    """Insert one event per execution in one multi-row INSERT (bulk transitions)."""
    now = now or timezone.now()
    insert_events(
        [
            EventRow(
                e["workspace_id"],
                e["id"],
                e["campaign_id"],
                e["subject_type_id"],
                e["subject_id"],
                e.get("current_node_id"),
                type,
                from_status or e.get("status", ""),
                to_status,
                message,
                data or {},
                None,
                now,
            )
            for e in executions
        ]
    )


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
