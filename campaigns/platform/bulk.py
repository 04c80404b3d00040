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
from django.db.models import DateTimeField, F, JSONField, Lookup, Model, Q
from django.utils import timezone


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
    arrays, selects = [], []
    for index, field in enumerate(fields):
        if field.attname in given:
            values = [row.get(field.attname) for row in rows]
        else:
            values = [_missing_value(field, now)] * len(rows)
        db_type = field.db_type(connection).split("(")[0]
        if isinstance(field, JSONField):
            values = [None if v is None else json.dumps(v, cls=DjangoJSONEncoder) for v in values]
            selects.append(f"v.c{index}::jsonb")
            db_type = "text"
        else:
            selects.append(f"v.c{index}")
        arrays.append((values, db_type))
    columns = ", ".join(qn(f.column) for f in fields)
    unnest = ", ".join(f"%b::{db_type}[]" for _, db_type in arrays)
    aliases = ", ".join(f"c{i}" for i in range(len(arrays)))
    sql = (
        f"INSERT INTO {qn(model._meta.db_table)} ({columns}) SELECT {', '.join(selects)}"  # noqa: S608
        f" FROM unnest({unnest}) AS v({aliases})"
        + (" ON CONFLICT DO NOTHING" if conflict_do_nothing else "")
        + f" RETURNING {', '.join(qn(model._meta.get_field(name).column) for name in returning)}"
    )
    connection.ensure_connection()
    # Server-side binding: one parameter per array. Errors surface as Django's (IntegrityError …).
    with connection.wrap_database_errors, psycopg.Cursor(connection.connection) as cursor:
        cursor.execute(sql, [values for values, _ in arrays])
        return cursor.fetchall()


def id_array(ids: list[int]) -> str:
    """A PostgreSQL ``bigint[]`` literal of ``ids``: one text parameter instead of one per id (the driver's
    per-parameter work, not the database, was most of a 500-id query's time)."""
    return "{" + ",".join(str(int(i)) for i in ids) + "}"


class _AnyOf(Lookup):
    """``<column> = ANY(<one bigint[] parameter>)``: the planner knows the array's length (its row estimate
    is right, so it probes the index), and the driver binds one value instead of one per id."""

    lookup_name = "any_of"
    prepare_rhs = False

    def get_prep_lookup(self):
        return self.rhs

    def as_sql(self, compiler, connection):
        lhs, lhs_params = self.process_lhs(compiler, connection)
        return f"{lhs} = ANY(%s::bigint[])", [*lhs_params, id_array(self.rhs)]


def ids_match(field: str, ids: list[int]) -> Q | Lookup:
    """A filter "``field`` is one of ``ids``" for a chunk: ``= ANY(array)`` on PostgreSQL, ``IN`` elsewhere."""
    if connection.vendor != "postgresql":
        return Q(**{f"{field}__in": list(ids)})
    return _AnyOf(F(field), list(ids))
