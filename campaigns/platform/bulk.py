"""Set-based statements for hot paths (PostgreSQL): one ``INSERT … SELECT FROM unnest`` per call, with no model
instances and no per-value field preparation (callers on other databases use ``bulk_create``), and the
"one of these ids" filter as ``= ANY(one array parameter)``."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import psycopg
from django.core.serializers.json import DjangoJSONEncoder
from django.db import connection
from django.db.models import DateTimeField, F, JSONField, Lookup, Model, Q, QuerySet
from django.utils import timezone
from psycopg.types.datetime import TimestamptzLoader

from campaigns.platform.database import is_postgresql


def _missing_value(field, now):
    if isinstance(field, DateTimeField) and (field.auto_now or field.auto_now_add):
        return now
    return field.get_default()  # the default, "" for text, else None (a NOT NULL column then refuses it)


def bulk_insert(
    model: type[Model],
    rows: Sequence[dict[str, Any]],
    *,
    returning: Sequence[str] = ("id",),
    conflict_do_nothing: bool = False,
) -> list[tuple]:
    """Insert ``rows`` (attname → value, the values as the database takes them: ids, text, numbers, aware
    datetimes, UUIDs; JSON fields take Python data) and return the ``returning`` columns of the rows written
    (in no promised order: match them by a key). Fields absent from the rows take their default (or now, for
    ``auto_now``/``auto_now_add``). ``conflict_do_nothing``: rows that hit a unique index are skipped."""
    if not rows:
        return []
    given = set().union(*(row.keys() for row in rows))
    fields = [f for f in model._meta.concrete_fields if not (f.primary_key and f.attname not in given)]
    now = timezone.now()
    qn = connection.ops.quote_name
    columns = []
    for field in fields:
        if field.attname in given:
            values = [row.get(field.attname) for row in rows]
        else:
            values = [_missing_value(field, now)] * len(rows)
        db_type = field.db_type(connection).split("(")[0]
        if isinstance(field, JSONField):
            values = [None if v is None else json.dumps(v, cls=DjangoJSONEncoder) for v in values]
            columns.append((values, "text", "::jsonb"))
        else:
            columns.append((values, db_type, ""))
    selects, source, params = unnest_columns(columns)
    names = ", ".join(qn(f.column) for f in fields)
    sql = (
        f"INSERT INTO {qn(model._meta.db_table)} ({names}) SELECT {', '.join(selects)} FROM {source}"  # noqa: S608
        + (" ON CONFLICT DO NOTHING" if conflict_do_nothing else "")
        + f" RETURNING {', '.join(qn(model._meta.get_field(name).column) for name in returning)}"
    )
    connection.ensure_connection()
    # Server-side binding: one parameter per array. Errors surface as Django's (IntegrityError …).
    with connection.wrap_database_errors, psycopg.Cursor(connection.connection) as cursor:
        cursor.execute(sql, params)
        return cursor.fetchall()


def unnest_columns(columns: Sequence[tuple[list, str, str]]) -> tuple[list[str], str, list]:
    """Rows given as columns — (values, SQL type, a cast after it or "") — as one select expression per column,
    the ``unnest(…) AS v(…)`` source and the parameters (in that order: the expressions', then the source's).

    A column whose values are all the same (a batch's workspace, node, status, empty result fields …) is bound
    once as a value, not as an array of copies: the driver dumps every element of an array in Python, the
    largest share of a batched statement's cost. At least one column stays an array (it gives the row count)."""
    shared = [len(values) > 1 and _all_same(values) for values, _, _ in columns]
    if all(shared):
        shared[0] = False
    selects, scalars, arrays, aliases = [], [], [], []
    for index, ((values, db_type, cast), one) in enumerate(zip(columns, shared, strict=True)):
        if one:
            selects.append(f"%b::{db_type}{cast}")
            scalars.append(values[0])
        else:
            selects.append(f"v.c{index}{cast}")
            arrays.append((values, db_type))
            aliases.append(f"c{index}")
    unnest = ", ".join(f"%b::{db_type}[]" for _, db_type in arrays)
    return selects, f"unnest({unnest}) AS v({', '.join(aliases)})", [*scalars, *(values for values, _ in arrays)]


def _all_same(values: list) -> bool:
    first = values[0]
    return all(type(v) is type(first) and v == first for v in values)


def id_array(ids: list[int]) -> str:
    """A PostgreSQL ``bigint[]`` literal of ``ids``: one text parameter instead of one per id (the driver's
    per-parameter work, not the database, was most of a 500-id query's time)."""
    return "{" + ",".join(str(int(i)) for i in ids) + "}"


def text_array(values: list[str]) -> str:
    """A PostgreSQL ``text[]`` literal of ``values`` (each quoted: commas, quotes and backslashes are kept)."""
    return "{" + ",".join('"' + str(v).replace("\\", "\\\\").replace('"', '\\"') + '"' for v in values) + "}"


class _AnyOf(Lookup):
    """``<column> = ANY(<one array parameter>)``: the planner knows the array's length (its row estimate
    is right, so it probes the index), and the driver binds one value instead of one per element."""

    lookup_name = "any_of"
    prepare_rhs = False

    def __init__(self, lhs, rhs, *, texts: bool = False) -> None:
        super().__init__(lhs, rhs)
        self.texts = texts

    def get_prep_lookup(self):
        return self.rhs

    def as_sql(self, compiler, connection):
        lhs, lhs_params = self.process_lhs(compiler, connection)
        if self.texts:
            return f"{lhs} = ANY(%s::text[])", [*lhs_params, text_array(self.rhs)]
        return f"{lhs} = ANY(%s::bigint[])", [*lhs_params, id_array(self.rhs)]


def ids_match(field: str, ids: list[int]) -> Q | Lookup:
    """A filter "``field`` is one of ``ids``" for a chunk: ``= ANY(array)`` on PostgreSQL, ``IN`` elsewhere."""
    if not is_postgresql(connection):
        return Q(**{f"{field}__in": list(ids)})
    return _AnyOf(F(field), list(ids))


def texts_match(field: str, values: list[str]) -> Q | Lookup:
    """``ids_match`` for a text column (phone numbers, keys)."""
    if not is_postgresql(connection):
        return Q(**{f"{field}__in": list(values)})
    return _AnyOf(F(field), list(values), texts=True)


def values_rows(queryset: QuerySet) -> list[tuple]:
    """The rows of a ``values_list`` queryset, read on PostgreSQL with psycopg's own timestamp loader.

    Django reads every ``timestamptz`` through a Python subclass of psycopg's loader — a Python call per
    value, half the time of a 500-row read of a model with three timestamps. Its loader only sets the
    connection's time zone; with the session in UTC (Django's default) psycopg's C loader returns the same
    aware datetimes. Every other value goes through Django's converters as usual."""
    if not is_postgresql(connection) or connection.timezone_name != "UTC":
        return [tuple(row) for row in queryset]
    compiler = queryset.query.get_compiler(using=queryset.db)
    sql, params = compiler.as_sql()
    with connection.cursor() as cursor:  # Django's cursor (query logging and wrappers), psycopg's loader
        cursor.cursor.adapters.register_loader("timestamptz", TimestamptzLoader)
        cursor.execute(sql, params)
        rows = cursor.fetchall()
    converters = compiler.get_converters([column for column, _, _ in compiler.select])
    return [tuple(row) for row in compiler.apply_converters(rows, converters)] if converters else rows
