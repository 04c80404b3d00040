"""Execution transitions: one conditional UPDATE on (id, status, revision) plus event rows.

django-fsm-2 decides whether a named transition is allowed and what the
target status is; the write is ``UPDATE … WHERE id=%s AND status=%s AND
revision=%s`` (``campaigns.platform.fsm.fsm_apply``). A lost race writes nothing (no event either)
and returns False.
Hot bulk paths (claim, reap, lifecycle) use queryset updates as the transition.
A job's own bookkeeping transitions (queued → processing) write no row of their
own: the job's outcome row records them (journeys.md "Decisions").

The batched job reads executions as ``ExecutionRow`` values (``UPDATE … RETURNING``)
and asks ``transition_target`` — the same django-fsm declarations — where a
named transition leads, so its hot path builds no model instances.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from datetime import datetime
from functools import cache
from typing import Any, NamedTuple

from django.core.serializers.json import DjangoJSONEncoder
from django.db import connection
from django.utils import timezone

from automation.models import Execution, ExecutionEvent
from campaigns.platform.database import is_postgresql
from campaigns.platform.fsm import fsm_apply

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


@dataclass(slots=True)
class ExecutionRow:
    """An execution as a job reads and steps it: plain column values, not a model instance.

    The attribute names are the model's, so node handlers, guards and actions read either."""

    id: int
    workspace_id: int
    campaign_id: int
    workflow_id: int
    version_id: int
    subject_type_id: int
    subject_id: int
    current_node_id: int | None
    needs_budget: bool
    cycle: int
    status: str
    revision: int
    retry_count: int
    node_entered_at: datetime | None
    eligible_at: datetime | None
    next_run_at: datetime | None
    completed_at: datetime | None
    paused_at: datetime | None
    paused_from_status: str
    end_reason: str
    last_error: str
    metadata: dict

    @property
    def pk(self) -> int:
        return self.id


EXECUTION_ROW_COLUMNS = tuple(f.name for f in fields(ExecutionRow))


@cache
def _targets() -> dict[tuple[str, str], str]:
    found = {}
    for t in Execution._meta.get_field("status").get_all_transitions(Execution):
        if isinstance(t.target, str):  # RETURN_VALUE targets (resume) are decided by the instance
            found[(t.name, t.source)] = t.target
    return found


def transition_target(name: str, from_status: str) -> str | None:
    """Where ``Execution.<name>()`` leads from ``from_status`` (django-fsm's declaration); None if not allowed."""
    targets = _targets()
    return targets.get((name, from_status), targets.get((name, "*")))


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


def apply_transition(
    execution: Execution,
    name: str,
    *,
    event: PendingEvent | None,
    extra: dict[str, Any] | None = None,
    more_events: list[PendingEvent] | None = None,
    actor=None,
    now: datetime | None = None,
    strict: bool = False,
) -> bool:
    """Persist ``execution.<name>()`` and its event rows (``campaigns.platform.fsm.fsm_apply``'s convention).

    ``event=None`` only for a job's queued → processing: its outcome row records it."""
    now = now or timezone.now()

    def record(from_status: str, to_status: str) -> None:
        rows = [*(more_events or [])]
        if event is not None:
            event.from_status, event.to_status = from_status, to_status
            rows.append(event)
        insert_events([event_row(execution, e, actor=actor, now=now) for e in rows])

    return fsm_apply(execution, name, values=extra, now=now, strict=strict, on_applied=record)


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
