"""The set-based move of a version migration: one chunk of executions, one statement (PostgreSQL).

``move_chunk`` picks the next ``limit`` executions by id that stand at a planned node of the old version and
are neither claimed by a worker (queued, processing) nor in doubt (held after an unknown outcome, or settling),
locks them ``FOR UPDATE SKIP LOCKED`` (a row the tick is claiming at that moment is left to the next sweep),
moves or exits them and appends one event each — all in one statement, so an execution never moves without its
event. Every write is guarded again by version and status: a row is moved at most once.

Moved: ``version``, ``current_node`` and ``needs_budget`` of the new node, ``revision`` + 1, retries restart on
another step; a wait keeps its due time (``WAIT_DUE`` in the metadata, read by the wait handler) unless the
plan recomputes it from the new wait (the moment the node was entered + the new duration, or the new
moment); a row moved from a wait to a step that is not a wait is due at once. Exited: ``cancelled`` with
``new_version_exit``. Event data: the migration, both versions (ids and numbers) and both node keys.

Elsewhere (SQLite) the same, one row at a time through the ORM.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from django.db import connection
from django.db.models import F
from django.utils import timezone

from automation import events
from automation.choices import HELD_UNKNOWN, WAIT_DUE, EndReason, EventType, MigrationChoice, NodeType
from automation.choices import ExecutionStatus as S
from automation.engine.graph import NodeSpec, wait_seconds
from automation.models import Execution, ExecutionEvent, WorkflowVersion
from campaigns.platform.database import is_postgresql

MOVABLE = (S.PENDING, S.ACTIVE, S.WAITING, S.PAUSED)


@dataclass(frozen=True)
class PlanEntry:
    old_node: int
    old_key: str
    old_budget: bool
    from_wait: bool
    choice: str
    new_node: int | None = None
    new_key: str | None = None
    new_budget: bool = False
    to_wait: bool = False
    wait_secs: float | None = None  # a duration wait: seconds after entering the node
    wait_until: datetime | None = None  # a wait until a moment

    @classmethod
    def of(cls, source: NodeSpec, choice: str, target: NodeSpec | None) -> PlanEntry:
        secs = until = None
        if target is not None and target.type == NodeType.WAIT:
            config = target.config or {}
            if config.get("mode", target.subtype) == "until":
                import zoneinfo

                naive = datetime.fromisoformat(str(config["at"]))
                zone = zoneinfo.ZoneInfo(config.get("timezone", "Asia/Tehran"))
                until = naive if naive.tzinfo else naive.replace(tzinfo=zone)
            else:
                secs = float(wait_seconds(config))
        return cls(
            old_node=source.id,
            old_key=source.node_key,
            old_budget=source.consumes_budget,
            from_wait=source.type == NodeType.WAIT,
            choice=choice,
            new_node=target.id if target else None,
            new_key=target.node_key if target else None,
            new_budget=bool(target and target.consumes_budget),
            to_wait=bool(target and target.type == NodeType.WAIT),
            wait_secs=secs,
            wait_until=until,
        )


@dataclass
class MoveStep:
    migration_id: str
    from_version: WorkflowVersion
    to_version: WorkflowVersion
    campaign_ids: list[int]
    entries: list[PlanEntry]
    recompute_waits: bool
    actor_id: int | None


@dataclass
class Moved:
    scanned: int = 0
    last_id: int | None = None
    moved: int = 0
    exited: int = 0


def move_chunk(step: MoveStep, *, after_id: int, limit: int) -> Moved:
    """Move (or exit) up to ``limit`` executions after ``after_id``; runs in the caller's transaction."""
    if is_postgresql(connection):
        return _move_postgresql(step, after_id, limit)
    return _move_portable(step, after_id, limit)


def _event_data(step: MoveStep) -> dict:
    return {
        "migration": step.migration_id,
        "from_version": step.from_version.id,
        "to_version": step.to_version.id,
        "from_version_number": step.from_version.version_number,
        "to_version_number": step.to_version.version_number,
    }


# --------------------------------------------------------------------------- PostgreSQL
def _sql() -> str:
    qn = connection.ops.quote_name
    ex, ev = qn(Execution._meta.db_table), qn(ExecutionEvent._meta.db_table)
    movable = ", ".join(f"'{s}'" for s in MOVABLE)
    # Table names come from the models, statuses are code constants; every value is a parameter.
    return f"""
    WITH plan AS (
        SELECT * FROM unnest(
            %(old_node)s::bigint[], %(old_key)s::text[], %(old_budget)s::bool[], %(from_wait)s::bool[],
            %(choice)s::text[], %(new_node)s::bigint[], %(new_key)s::text[], %(new_budget)s::bool[],
            %(to_wait)s::bool[], %(wait_secs)s::float8[], %(wait_until)s::timestamptz[]
        ) AS p(old_node, old_key, old_budget, from_wait, choice, new_node, new_key, new_budget, to_wait,
               wait_secs, wait_until)
    ), picked AS (
        SELECT e.id, e.status AS old_status, e.current_node_id AS old_node
        FROM {ex} e JOIN plan p ON p.old_node = e.current_node_id
        WHERE e.campaign_id = ANY(%(campaigns)s::bigint[]) AND e.version_id = %(from_version)s
          AND e.id > %(after)s AND e.status IN ({movable})
          AND NOT (e.metadata ? %(held_key)s)
          AND NOT (p.old_budget AND NOT e.needs_budget AND e.status IN ('active', 'waiting'))
        ORDER BY e.id
        LIMIT %(limit)s
        FOR UPDATE OF e SKIP LOCKED
    ), moved AS (
        UPDATE {ex} e SET
            version_id = CASE WHEN p.choice = 'move' THEN %(to_version)s ELSE e.version_id END,
            current_node_id = CASE WHEN p.choice = 'move' THEN p.new_node ELSE e.current_node_id END,
            needs_budget = CASE WHEN p.choice = 'move' THEN p.new_budget ELSE e.needs_budget END,
            status = CASE WHEN p.choice = 'exit' THEN 'cancelled' ELSE e.status END,
            end_reason = CASE WHEN p.choice = 'exit' THEN %(exit_reason)s ELSE e.end_reason END,
            completed_at = CASE WHEN p.choice = 'exit' THEN %(now)s ELSE e.completed_at END,
            next_run_at = CASE
                WHEN p.choice = 'exit' THEN NULL
                WHEN e.status = 'pending' THEN e.next_run_at
                WHEN p.to_wait AND %(recompute)s AND p.wait_secs IS NOT NULL
                    THEN COALESCE(e.node_entered_at, %(now)s) + make_interval(secs => p.wait_secs)
                WHEN p.to_wait AND %(recompute)s THEN p.wait_until
                WHEN p.from_wait AND NOT p.to_wait THEN LEAST(COALESCE(e.next_run_at, %(now)s), %(now)s)
                ELSE e.next_run_at END,
            eligible_at = CASE
                WHEN p.choice = 'move' AND p.to_wait AND %(recompute)s AND e.status <> 'pending' THEN NULL
                ELSE e.eligible_at END,
            retry_count = CASE WHEN p.choice = 'move' AND p.new_key = p.old_key THEN e.retry_count ELSE 0 END,
            metadata = CASE
                WHEN p.choice = 'move' AND p.from_wait AND p.to_wait AND NOT %(recompute)s
                     AND e.next_run_at IS NOT NULL AND e.status <> 'pending'
                    THEN (e.metadata - %(due_key)s) || jsonb_build_object(
                        %(due_key)s, jsonb_build_object('node', p.new_key, 'at', e.next_run_at),
                        '_waiting', p.new_key)
                WHEN p.choice = 'move' THEN e.metadata - %(due_key)s - '_waiting'
                ELSE e.metadata END,
            lock_token = CASE WHEN p.choice = 'exit' THEN NULL ELSE e.lock_token END,
            revision = e.revision + 1,
            updated_at = %(now)s
        FROM picked JOIN plan p ON p.old_node = picked.old_node
        WHERE e.id = picked.id AND e.version_id = %(from_version)s AND e.status = picked.old_status
        RETURNING e.id, e.workspace_id, e.campaign_id, e.subject_type_id, e.subject_id, e.current_node_id,
                  picked.old_status, p.choice, p.old_key, p.new_key
    ), ev AS (
        INSERT INTO {ev} (workspace_id, execution_id, campaign_id, subject_type_id, subject_id, node_id, type,
                          from_status, to_status, message, data, actor_id, occurred_at)
        SELECT m.workspace_id, m.id, m.campaign_id, m.subject_type_id, m.subject_id, m.current_node_id,
               CASE WHEN m.choice = 'exit' THEN %(cancelled_type)s ELSE %(migrated_type)s END,
               CASE WHEN m.choice = 'exit' THEN m.old_status ELSE '' END,
               CASE WHEN m.choice = 'exit' THEN 'cancelled' ELSE '' END,
               CASE WHEN m.choice = 'exit' THEN %(exit_reason)s ELSE '' END,
               %(data)s::jsonb || jsonb_build_object('from_node', m.old_key, 'to_node', m.new_key),
               %(actor)s, %(now)s
        FROM moved m
    )
    SELECT (SELECT count(*) FROM picked), (SELECT max(id) FROM picked),
           (SELECT count(*) FROM moved WHERE choice = 'move'), (SELECT count(*) FROM moved WHERE choice = 'exit')
    """  # noqa: S608


def _move_postgresql(step: MoveStep, after_id: int, limit: int) -> Moved:
    entries = step.entries
    params = {
        "old_node": [e.old_node for e in entries],
        "old_key": [e.old_key for e in entries],
        "old_budget": [e.old_budget for e in entries],
        "from_wait": [e.from_wait for e in entries],
        "choice": [e.choice for e in entries],
        "new_node": [e.new_node for e in entries],
        "new_key": [e.new_key for e in entries],
        "new_budget": [e.new_budget for e in entries],
        "to_wait": [e.to_wait for e in entries],
        "wait_secs": [e.wait_secs for e in entries],
        "wait_until": [e.wait_until for e in entries],
        "campaigns": list(step.campaign_ids),
        "from_version": step.from_version.id,
        "to_version": step.to_version.id,
        "after": after_id,
        "limit": limit,
        "held_key": HELD_UNKNOWN,
        "due_key": WAIT_DUE,
        "exit_reason": EndReason.NEW_VERSION_EXIT.value,
        "recompute": step.recompute_waits,
        "now": timezone.now(),
        "cancelled_type": EventType.CANCELLED.value,
        "migrated_type": EventType.VERSION_MIGRATED.value,
        "data": events.encode_json(_event_data(step)),
        "actor": step.actor_id,
    }
    with connection.cursor() as cursor:
        cursor.execute(_sql(), params)
        scanned, last_id, moved, exited = cursor.fetchone()
    return Moved(scanned=scanned, last_id=last_id, moved=moved, exited=exited)


# --------------------------------------------------------------------------- SQLite and the rest
def _move_portable(step: MoveStep, after_id: int, limit: int) -> Moved:
    by_node = {e.old_node: e for e in step.entries}
    now = timezone.now()
    rows = list(
        Execution.objects.filter(
            campaign_id__in=step.campaign_ids,
            version_id=step.from_version.id,
            id__gt=after_id,
            status__in=MOVABLE,
            current_node_id__in=list(by_node),
        )
        .select_related("current_node")
        .order_by("id")[:limit]
    )
    out = Moved(scanned=len(rows), last_id=rows[-1].id if rows else None)
    pending: list[events.EventRow] = []
    data = _event_data(step)
    for ex in rows:
        entry = by_node[ex.current_node_id]
        metadata = dict(ex.metadata or {})
        settling = entry.old_budget and not ex.needs_budget and ex.status in (S.ACTIVE, S.WAITING)
        if HELD_UNKNOWN in metadata or settling:
            continue
        fields = {"revision": F("revision") + 1, "updated_at": now}
        if entry.choice == MigrationChoice.EXIT:
            fields |= {
                "status": S.CANCELLED,
                "end_reason": EndReason.NEW_VERSION_EXIT,
                "completed_at": now,
                "next_run_at": None,
                "lock_token": None,
            }
        else:
            metadata.pop(WAIT_DUE, None)
            waiting = metadata.pop("_waiting", None)
            next_run_at, eligible_at = ex.next_run_at, ex.eligible_at
            if ex.status != S.PENDING:
                if entry.to_wait and step.recompute_waits:
                    entered = ex.node_entered_at or now
                    next_run_at = entered + timedelta(seconds=entry.wait_secs) if entry.wait_secs else entry.wait_until
                    eligible_at = None
                elif entry.to_wait and entry.from_wait and ex.next_run_at is not None:
                    metadata[WAIT_DUE] = {"node": entry.new_key, "at": ex.next_run_at.isoformat()}
                    metadata["_waiting"] = entry.new_key
                elif entry.from_wait and not entry.to_wait:
                    next_run_at = min(ex.next_run_at or now, now)
            elif waiting:
                metadata["_waiting"] = waiting
            fields |= {
                "version_id": step.to_version.id,
                "current_node_id": entry.new_node,
                "needs_budget": entry.new_budget,
                "next_run_at": next_run_at,
                "eligible_at": eligible_at,
                "retry_count": ex.retry_count if entry.new_key == entry.old_key else 0,
                "metadata": metadata,
            }
        if not Execution.objects.filter(pk=ex.pk, status=ex.status, revision=ex.revision).update(**fields):
            continue
        exited = entry.choice == MigrationChoice.EXIT
        out.exited += exited
        out.moved += not exited
        pending.append(
            events.EventRow(
                ex.workspace_id,
                ex.id,
                ex.campaign_id,
                ex.subject_type_id,
                ex.subject_id,
                ex.current_node_id if exited else entry.new_node,
                EventType.CANCELLED if exited else EventType.VERSION_MIGRATED,
                ex.status if exited else "",
                S.CANCELLED if exited else "",
                EndReason.NEW_VERSION_EXIT if exited else "",
                data | {"from_node": entry.old_key, "to_node": entry.new_key},
                step.actor_id,
                now,
            )
        )
    events.insert_events(pending)
    return out
