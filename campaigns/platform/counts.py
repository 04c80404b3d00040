"""Bounded counts for checks that must stay cheap at a million rows (the launch check).

An audience is looked at through ``AudienceSample``: ``SAMPLE`` of its targets spread over its ids (``STRATA`` even
id ranges, the lowest of each), their ids taken by index seeks on the audience's small side (a list's membership
index, a journey's live executions) and the targets then read by primary key — never a pass over the audience.
Every per-reason count of the check is counted among those rows: exact when they are the whole audience, else
scaled to the audience's size and said as an estimate («حدود …»). ``capped_count`` counts at most ``cap`` + 1 rows
(``LIMIT``). Inside ``reads_shared()`` the same read over the same rows is made once (``shared_read``): a chain
package checks each member on one audience.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from itertools import pairwise
from typing import Any

from django.db import connections
from django.db.models import QuerySet
from django.db.models.expressions import RawSQL

from campaigns.platform.bulk import ids_match
from campaigns.platform.database import is_postgresql

SAMPLE = 2_000
STRATA = 20  # the id ranges a large audience's sample is spread over (``_spread_ids``)
_SHARED: ContextVar[dict | None] = ContextVar("shared_reads", default=None)


@contextmanager
def reads_shared() -> Iterator[None]:
    """Within it, ``shared_read`` answers a read it already made (same key) from memory."""
    token = _SHARED.set({})
    try:
        yield
    finally:
        _SHARED.reset(token)


def shared_read(key: tuple, read: Callable[[], Any]) -> Any:
    """``read()``, or its first answer for ``key`` inside ``reads_shared()`` — the same object, not a copy (a copy of
    a 2,000-row sample per member cost more than its read): callers only read it."""
    memo = _SHARED.get()
    if memo is None:
        return read()
    if key not in memo:
        memo[key] = read()
    return memo[key]


def _key(kind: str, queryset: QuerySet, *numbers: int | None) -> tuple:
    sql, params = queryset.query.sql_with_params()
    return (kind, sql, tuple(map(str, params)), *numbers)


def capped_count(queryset: QuerySet, cap: int) -> dict[str, Any]:
    """``{"count": n, "capped": n > cap, "estimated": False}``; a capped count is ``cap``."""
    rows = queryset.order_by().values("pk")[: cap + 1]
    n = shared_read(_key("count", rows), rows.count)
    return {"count": min(n, cap), "capped": n > cap, "estimated": False}


@dataclass(frozen=True)
class AudienceSample:
    """Targets of an audience as ``(id, mobile)``: all of it (``complete``) or ``SAMPLE`` spread over its ids."""

    rows: tuple[tuple[int, str | None], ...]
    complete: bool
    audience: int  # the audience's size (kept or counted by the caller; the rows' number when complete)
    # ``members(target ids) → those of them in the audience`` (one indexed probe), for a reason whose kept set is
    # small enough to be driven from (``sms.launch``: the blacklist, the operators' blocks); None: not offered
    members: Callable[[list[int]], set[int]] | None = field(default=None, compare=False)

    @property
    def ids(self) -> list[int]:
        return [pk for pk, _ in self.rows]

    def counted(self, n: int) -> dict[str, Any]:
        """``n`` of the rows, as a count of the audience: exact when the rows are all of it, else scaled."""
        if self.complete or not self.rows:
            return {"count": n, "capped": False, "estimated": False}
        return {"count": round(n * self.audience / len(self.rows)), "capped": False, "estimated": True}

    def scaled(self, shares: dict[str, int], total: int) -> dict[str, int]:
        """Counts among the rows (``shares``) spread over ``total`` people in the same proportions."""
        whole = sum(shares.values())
        return {key: round(total * n / whole) if whole else 0 for key, n in shares.items()}


def _spread_ids(first_ids: QuerySet | Iterable[int], size: int) -> tuple[list[int], bool]:
    """At most ``size`` ids of ``first_ids`` standing for all of them, ascending, and whether they are all of them.

    A queryset (a values list walked along an index, ordered by its one id column) is read in two queries of
    index seeks, never a pass: its lowest ``size`` + 1 ids with its highest (one union: when they are at most
    ``size``, that is the whole audience), else ``STRATA`` even id ranges between the lowest and the highest, the
    lowest ``size / STRATA`` ids of each by a seek ``>=`` its start (one query: the ranges joined laterally to the
    index). An audience imported in batches (an old batch without mobiles, a recent one live elsewhere) is then
    seen across its batches, not through its oldest; the same rows give the same ids. A range holding fewer people
    than its share gives what it holds."""
    if not isinstance(first_ids, QuerySet):
        ids = sorted(set(first_ids))
        if len(ids) <= size:
            return ids, True
        return sorted({ids[i * len(ids) // size] for i in range(size)}), False
    column = first_ids.query.values_select[0] if first_ids.query.values_select else "pk"
    connection = connections[first_ids.db]
    postgresql = is_postgresql(connection)
    if postgresql:
        head = list(first_ids[: size + 1].union(first_ids.reverse()[:1], all=True))
    else:  # SQLite refuses a slice inside a compound statement: the same rows in two queries
        head = [*first_ids[: size + 1], *first_ids.reverse()[:1]]
    if not head:
        return [], True
    head.sort()
    highest, head = head[-1], head[:-1]  # the union's one extra row is the highest id
    if len(head) <= size:
        return head, True
    lowest, strata = head[0], min(STRATA, size)
    per, span = -(-size // strata), highest - lowest + 1
    starts = [lowest + i * span // strata for i in range(strata)] + [highest + 1]
    bounds = [(start, end) for start, end in pairwise(starts) if end > start]
    if not postgresql:  # the embedded default's small data: a query per range
        ranges = [first_ids.filter(**{f"{column}__gte": lo, f"{column}__lt": hi})[:per] for lo, hi in bounds]
        return sorted({pk for rows in ranges for pk in rows})[:size], False
    # One query, the range's seek compiled once (twenty compiled querysets cost more than their reads): each
    # range's ``(lo, hi)`` joined laterally to the small side's index, ``LIMIT per`` within it.
    seek = first_ids.filter(**{f"{column}__gte": RawSQL("r.lo", ()), f"{column}__lt": RawSQL("r.hi", ())})[:per]
    sql, params = seek.query.sql_with_params()
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT s.* FROM unnest(%s::bigint[], %s::bigint[]) AS r(lo, hi) CROSS JOIN LATERAL ({sql}) AS s",  # noqa: S608 (Django's SQL)
            [[lo for lo, _ in bounds], [hi for _, hi in bounds], *params],
        )
        return sorted({row[0] for row in cursor.fetchall()})[:size], False


def audience_sample(
    subjects: QuerySet,
    first_ids: QuerySet | Iterable[int],
    *,
    audience: int | None,
    size: int | None = None,
    members: QuerySet | None = None,
) -> AudienceSample:
    """The audience ``subjects`` (a target queryset) through ``size`` ids spread over it from ``first_ids`` (its
    small side: a values list of target ids, ordered along an index; ``_spread_ids``), read by primary key in one
    query; ``audience``: its size when known (None: the rows' number when complete, else ``size`` rows were seen,
    the caller scales). ``members``: a values list of the audience's target ids to probe by id (default:
    ``subjects``' own ids)."""
    size = size or SAMPLE
    head = first_ids if isinstance(first_ids, QuerySet) else tuple(first_ids)
    key = (_key("sample", head, size) if isinstance(head, QuerySet) else ("sample", head, size), _key("of", subjects))

    def read() -> tuple[tuple[tuple[int, str | None], ...], bool]:
        ids, complete = _spread_ids(head, size)
        rows = subjects.filter(ids_match("id", ids)).order_by("pk").values_list("pk", "mobile")
        return tuple(rows), complete

    rows, complete = shared_read(key, read)
    if complete:
        audience = len(rows)
    probe = members if members is not None else subjects.values_list("pk", flat=True)
    field_name = probe.query.values_select[0] if probe.query.values_select else "pk"

    def in_audience(ids: list[int]) -> set[int]:
        if not ids:
            return set()
        column = "id" if field_name == "pk" else field_name
        found = probe.filter(ids_match(column, ids)).order_by()
        return shared_read(("members", _key("of", found)), lambda: set(found))

    return AudienceSample(rows=rows, complete=complete, audience=max(audience or 0, len(rows)), members=in_audience)
