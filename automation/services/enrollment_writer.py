"""The one writer of new executions: a chunk of checked subjects → executions + their ``enrolled`` events.

PostgreSQL: one statement per chunk — ``INSERT … SELECT FROM unnest(subject ids) ON CONFLICT DO NOTHING
RETURNING id, subject_id`` feeding the event ``INSERT`` in the same statement (a data-modifying CTE), so
an execution never exists without its event. The live partial unique index
(``execution_one_live_per_subject``) is the final guard: a subject it refuses — enrolled by someone else
since the caller's check, or waiting on another transaction that commits first — is simply not returned
and is reported as "added concurrently". Every column comes from the model (its defaults, ``auto_now``
stamps and database types), so a new field needs no change here.

Elsewhere (SQLite, the embedded default): ``bulk_create``, one row at a time when the index refuses part
of the chunk, then the events through ``automation.events`` — slower, same outcome.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.db import IntegrityError, connection, transaction
from django.db.models import Model

from automation import events
from automation.choices import LIVE_STATUSES, EventType
from automation.models import Execution, ExecutionEvent
from campaigns.platform.bulk import id_array
from campaigns.platform.database import is_postgresql

LIVE_INDEX = "execution_one_live_per_subject"


@dataclass
class Enrolled:
    """What the index let in (subject id → execution id) and what it refused (subject ids)."""

    added: dict[int, int] = field(default_factory=dict)
    concurrently: list[int] = field(default_factory=list)


def executions_insert(
    *,
    template: Execution,
    subject_ids: list[int],
    now: datetime,
    message: str = "",
    data: dict[str, Any] | None = None,
) -> Enrolled:
    """Insert one execution per subject id, copied from ``template`` (every field but the subject), and one
    ``enrolled`` event each. Runs in the caller's transaction."""
    if not subject_ids:
        return Enrolled()
    event = ExecutionEvent(
        workspace_id=template.workspace_id,
        campaign_id=template.campaign_id,
        subject_type_id=template.subject_type_id,
        node_id=template.current_node_id,
        type=EventType.ENROLLED,
        from_status="",
        to_status=template.status,
        message=message,
        data=data or {},
        actor_id=None,
        occurred_at=now,
    )
    if is_postgresql(connection):
        return _insert_postgresql(template, event, subject_ids)
    return _insert_portable(template, event, subject_ids, now)


# --------------------------------------------------------------------------- PostgreSQL
@functools.cache
def _columns(model: type[Model], skip: frozenset[str]) -> tuple[tuple, list[str], list[str]]:
    """The concrete fields but the primary key and ``skip``, their quoted columns and ``CAST(%s AS type)``."""
    fields = tuple(f for f in model._meta.concrete_fields if not f.primary_key and f.attname not in skip)
    qn = connection.ops.quote_name
    return fields, [qn(f.column) for f in fields], [f"CAST(%s AS {f.db_type(connection)})" for f in fields]


def _constants(instance: Model, skip: frozenset[str]) -> tuple[list[str], list[str], list[Any]]:
    """Column names, placeholders and values of every concrete field of ``instance`` but ``skip``."""
    fields, names, placeholders = _columns(type(instance), skip)
    return names, placeholders, [f.get_db_prep_save(f.pre_save(instance, True), connection) for f in fields]


def _live_predicate() -> str:
    statuses = [str(s.value) for s in LIVE_STATUSES]
    # Code constants, inlined: the unique index is inferred at planning time, from literals.
    assert all(s.isidentifier() for s in statuses)
    return "{} IN ({})".format(connection.ops.quote_name("status"), ", ".join(f"'{s}'" for s in statuses))


def _insert_postgresql(template: Execution, event: ExecutionEvent, subject_ids: list[int]) -> Enrolled:
    qn = connection.ops.quote_name
    ex_cols, ex_marks, ex_values = _constants(template, frozenset({"subject_id"}))
    ev_cols, ev_marks, ev_values = _constants(event, frozenset({"execution_id", "subject_id"}))
    (live,) = [c for c in Execution._meta.constraints if c.name == LIVE_INDEX]
    conflict_cols = ", ".join(qn(Execution._meta.get_field(f).column) for f in live.fields)
    ex_table, ev_table = qn(Execution._meta.db_table), qn(ExecutionEvent._meta.db_table)
    # Table, column and type names come from the models and every value is a parameter.
    sql = f"""
        WITH ins AS (
            INSERT INTO {ex_table} ({", ".join(ex_cols)}, {qn("subject_id")})
            SELECT {", ".join(ex_marks)}, s.subject_id FROM unnest(%s::bigint[]) AS s(subject_id)
            ON CONFLICT ({conflict_cols}) WHERE {_live_predicate()} DO NOTHING
            RETURNING {qn("id")}, {qn("subject_id")}
        ), ev AS (
            INSERT INTO {ev_table} ({", ".join(ev_cols)}, {qn("execution_id")}, {qn("subject_id")})
            SELECT {", ".join(ev_marks)}, ins.id, ins.subject_id FROM ins
        )
        SELECT subject_id, id FROM ins
    """  # noqa: S608
    with connection.cursor() as cursor:
        cursor.execute(sql, [*ex_values, id_array(subject_ids), *ev_values])
        added = dict(cursor.fetchall())
    return Enrolled(added=added, concurrently=[s for s in subject_ids if s not in added])


# --------------------------------------------------------------------------- SQLite and the rest
def _insert_portable(template: Execution, event: ExecutionEvent, subject_ids: list[int], now: datetime) -> Enrolled:
    values = {f.attname: getattr(template, f.attname) for f in Execution._meta.concrete_fields if not f.primary_key}

    def build(subject_id: int) -> Execution:
        return Execution(**{**values, "subject_id": subject_id})

    out = Enrolled()
    created: list[Execution] = []
    try:
        with transaction.atomic():
            created = Execution.objects.bulk_create([build(s) for s in subject_ids])
    except IntegrityError:  # someone enrolled some of these meanwhile: one by one, the index decides
        created = []
        for subject_id in subject_ids:
            try:
                with transaction.atomic():
                    created.append(Execution.objects.bulk_create([build(subject_id)])[0])
            except IntegrityError:
                out.concurrently.append(subject_id)
    rows = [
        {
            "id": e.id,
            "workspace_id": e.workspace_id,
            "campaign_id": e.campaign_id,
            "subject_type_id": e.subject_type_id,
            "subject_id": e.subject_id,
            "current_node_id": e.current_node_id,
        }
        for e in created
    ]
    events.enrolled_events(rows, status=template.status, message=event.message, data=event.data, now=now)
    out.added = {e.subject_id: e.id for e in created}
    return out
