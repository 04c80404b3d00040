"""A dispatched batch of executions: ``process_batch`` runs it.

Elsewhere than PostgreSQL (or for one item) each execution is ``runner.process_execution``. On PostgreSQL
the batched job takes the same steps with fewer round trips:

1. One statement claims the whole batch: ``UPDATE … RETURNING`` moves the rows
   still queued with their token to processing and reads them back as lean
   ``ExecutionRow`` values (no model instances on the hot path).
2. Subjects are prefetched in one query as column values (``SubjectRow``: no
   model instances); each execution then runs its step loop exactly as in the
   per-row path (actions keep their own short transactions and never hold one
   during network calls).
3. One transaction writes every outcome: ``UPDATE … FROM (VALUES …)`` guarded
   by (id, status='processing', revision) — a row that lost a race is simply
   not updated and gets no events — then one ``COPY`` of the events: one row
   per step outcome, which also records the claim and the move to processing
   (``runner.finish_run``).
"""

from __future__ import annotations

import json
from collections import defaultdict
from datetime import datetime

import psycopg
from django.contrib.contenttypes.models import ContentType
from django.db import connection, transaction
from django.utils import timezone

from automation.choices import ExecutionStatus
from automation.engine.lease import STOP_EXCEPTIONS, Lease
from automation.engine.registry import ACTIONS
from automation.engine.runner import Finished, failed_outcome, finish_run, process_execution, start_run
from automation.engine.subjects import subject_rows
from automation.engine.transitions import EXECUTION_ROW_COLUMNS, ExecutionRow, transition_target
from automation.events import encode_json, event_row, insert_events
from automation.models import Execution
from campaigns.platform.bulk import unnest_columns
from campaigns.platform.collector import collector_paused
from campaigns.platform.database import is_postgresql

# Columns the final write sets (every other column is untouched).
_COLUMNS = [
    ("status", "varchar"),
    ("current_node_id", "bigint"),
    ("needs_budget", "boolean"),
    ("deferred_by_limit", "boolean"),
    ("node_entered_at", "timestamptz"),
    ("retry_count", "integer"),
    ("eligible_at", "timestamptz"),
    ("next_run_at", "timestamptz"),
    ("metadata", "jsonb"),
    ("cycle", "integer"),
    ("end_reason", "varchar"),
    ("completed_at", "timestamptz"),
    ("paused_at", "timestamptz"),
    ("paused_from_status", "varchar"),
    ("last_error", "text"),
]


def _claim_sql() -> str:
    table = Execution._meta.db_table
    returning = ", ".join(f"e.{c}" for c in EXECUTION_ROW_COLUMNS)
    # Rows still queued with the token they were dispatched with; the CTE locks them and keeps the
    # scheduler's claim moment (locked_at before this UPDATE), recorded on the job's outcome row.
    return (
        f"WITH mine AS (SELECT x.id, x.locked_at FROM {table} AS x"  # noqa: S608
        " JOIN unnest(%b::bigint[], %b::uuid[]) AS d(id, token) ON x.id = d.id AND x.lock_token = d.token"
        " WHERE x.status = 'queued' FOR UPDATE OF x)"
        f" UPDATE {table} AS e SET status = 'processing', revision = e.revision + 1, last_run_at = %s,"
        " locked_at = %s, updated_at = %s FROM mine WHERE e.id = mine.id"
        f" RETURNING {returning}, mine.locked_at, e.lock_token"
    )


def _row(values: tuple) -> tuple[ExecutionRow, datetime | None, str]:
    *columns, claimed_at, token = values
    row = ExecutionRow(*columns)
    if isinstance(row.metadata, str):  # Django reads jsonb as text; parse it here
        row.metadata = json.loads(row.metadata)
    row.metadata = row.metadata or {}
    return row, claimed_at, str(token)


def _claim(items: list[tuple[int, str]], now: datetime) -> list[tuple[ExecutionRow, datetime | None, str]]:
    """Tx1 for the whole batch: queued → processing for the rows still holding their token, read back with
    ``RETURNING`` into lean rows (no model instances). The transition's record is the outcome row."""
    ids = [int(i) for i, _ in items]
    tokens = [str(t) for _, t in items]
    with transaction.atomic():
        connection.ensure_connection()
        with psycopg.Cursor(connection.connection) as cursor:
            cursor.execute(_claim_sql(), [ids, tokens, now, now, now], binary=True)
            rows = [_row(values) for values in cursor.fetchall()]
    order = {pk: index for index, pk in enumerate(ids)}  # dispatch order = the scheduler's fairness order
    rows.sort(key=lambda r: order[r[0].id])
    return rows


def _prefetch_subjects(executions: list[ExecutionRow], cache: dict) -> None:
    by_type = defaultdict(list)
    for ex in executions:
        by_type[ex.subject_type_id].append(ex.subject_id)
    for type_id, ids in by_type.items():
        model = ContentType.objects.get_for_id(type_id).model_class()
        found = subject_rows(model, ids) if model else {}
        for subject_id in ids:
            cache[("subject", type_id, subject_id)] = found.get(subject_id)
    cache["batch_subjects"] = [s for key, s in cache.items() if isinstance(key, tuple) and key[0] == "subject" and s]
    cache["batch_execution_ids"] = [ex.pk for ex in executions]


def _write_many(done: list[Finished], now: datetime) -> dict[str, int]:
    counts: dict[str, int] = defaultdict(int)
    rows, expected = [], {}
    for item in done:
        ex = item.ex
        target = transition_target(item.transition, ex.status)
        if target is None:  # pragma: no cover - the runner only picks allowed transitions
            counts["lost_race"] += 1
            continue
        revision = ex.revision
        ex.status = target
        values = []
        for column, _ in _COLUMNS:
            value = item.extra[column] if column in item.extra else getattr(ex, column)
            if column == "metadata":
                value = encode_json(value or {})
            if column in ("end_reason", "paused_from_status", "last_error") and value is None:
                value = ""
            values.append(value)
        rows.append((ex.pk, revision, *values))
        expected[ex.pk] = item
    if not rows:
        return dict(counts)
    table = Execution._meta.db_table
    names = ["id", "revision", *[c for c, _ in _COLUMNS]]
    casts = ["bigint", "integer", *["text" if t == "jsonb" else t for _, t in _COLUMNS]]
    sets = ", ".join(f"{c} = v.{c}::jsonb" if t == "jsonb" else f"{c} = v.{c}" for c, t in _COLUMNS)
    columns = [(list(column), cast, "") for column, cast in zip(zip(*rows, strict=True), casts, strict=True)]
    selects, source, values = unnest_columns(columns)  # a value the whole batch shares is bound once
    named = ", ".join(f"{expr} AS {name}" for expr, name in zip(selects, names, strict=True))
    sql = (
        f"UPDATE {table} AS e SET {sets}, revision = e.revision + 1, updated_at = %s, lock_token = NULL, "  # noqa: S608
        f"locked_at = NULL FROM (SELECT {named} FROM {source}) AS v "
        "WHERE e.id = v.id AND e.revision = v.revision AND e.status = 'processing' RETURNING e.id"
    )
    params = [now, *values]
    with transaction.atomic():
        connection.ensure_connection()
        # Server-side binding: the arrays travel as parameters (no client-side quoting of thousands of values).
        with psycopg.Cursor(connection.connection) as cursor:
            cursor.execute(sql, params)
            written = {r[0] for r in cursor.fetchall()}
        events = []
        for pk, item in expected.items():
            if pk not in written:
                counts["lost_race"] += 1
                continue
            item.event.from_status, item.event.to_status = ExecutionStatus.PROCESSING, item.ex.status
            events += [event_row(item.ex, e, now=now) for e in [*item.events, item.event]]
            counts[item.transition] += 1
        insert_events(events)
    return dict(counts)


def _run_all(claimed: list[tuple[ExecutionRow, datetime | None, str]], now: datetime, cache: dict) -> list[Finished]:
    """Advance every execution's step loop; actions requested at the same moment run together
    through ``Action.execute_many`` (one round of short transactions for the whole group)."""
    runs = [start_run(ex, token, now, cache, claimed_at) for ex, claimed_at, token in claimed]
    outcomes: dict[int, object] = {}
    waiting: dict[int, tuple] = {}  # index → (generator, ctx)

    def advance(index: int, gen, value=None) -> None:
        try:
            ctx = gen.send(value) if value is not None else next(gen)
        except StopIteration as stop:
            outcomes[index] = stop.value
        except STOP_EXCEPTIONS:
            raise
        except Exception as exc:
            outcomes[index] = failed_outcome(runs[index], exc)
        else:
            waiting[index] = (gen, ctx)

    for index, run in enumerate(runs):
        advance(index, run.steps())
    lease = cache.get("lease")
    while waiting:
        if lease is not None:
            lease.beat()
        groups: dict[str, list[int]] = defaultdict(list)
        for index, (_, ctx) in waiting.items():
            groups[ctx.node.subtype].append(index)
        current, waiting = waiting, {}
        for key, indexes in groups.items():
            action = ACTIONS.get(key)
            ctxs = [current[i][1] for i in indexes]
            try:
                results = action.execute_many(ctxs)
            except STOP_EXCEPTIONS:
                raise
            except Exception as exc:
                for i in indexes:
                    outcomes[i] = failed_outcome(runs[i], exc)
                continue
            for i, result in zip(indexes, results, strict=True):
                advance(i, current[i][0], result)
    return [finish_run(runs[i], outcomes[i]) for i in range(len(runs))]


def process_batch_postgres(items: list[tuple[int, str]], *, now: datetime) -> dict[str, int]:
    claimed = _claim(items, now)
    cache: dict = {"lease": Lease([(ex.id, token) for ex, _, token in claimed], now)}
    _prefetch_subjects([ex for ex, _, _ in claimed], cache)
    done = _run_all(claimed, now, cache)
    counts = _write_many(done, now)
    stale = len(items) - len(claimed)
    if stale:
        counts["stale"] = counts.get("stale", 0) + stale
    return counts


def process_batch(items: list[tuple[int, str]], *, now: datetime | None = None) -> dict[str, int]:
    """Run a dispatched batch. On PostgreSQL the claim and the final writes are batched (above)."""
    now = now or timezone.now()
    if is_postgresql(connection) and len(items) > 1:
        with collector_paused():
            return process_batch_postgres(items, now=now)
    cache: dict = {}
    counts: dict[str, int] = {}
    for execution_id, token in items:
        result = process_execution(execution_id, token, now=now, cache=cache)
        counts[result] = counts.get(result, 0) + 1
    return counts
