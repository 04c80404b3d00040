"""Bounded counts for checks that must stay cheap at a million rows (the launch check).

An audience is looked at through ``AudienceSample``: its first ``SAMPLE`` targets, their ids taken from the
audience's small side (a list's membership index, a journey's live executions) and the targets then read by
primary key — never a pass over the audience itself. Every per-reason count of the check is counted among those
rows: exact when they are the whole audience, else scaled to the audience's size and said as an estimate
(«حدود …»). ``capped_count`` counts at most ``cap`` + 1 rows (``LIMIT``). Inside ``reads_shared()`` the same read
over the same rows is made once (``shared_read``): a chain package checks each member on one audience.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

from django.db.models import QuerySet

from campaigns.platform.bulk import ids_match

SAMPLE = 2_000
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
    """The first targets of an audience as ``(id, mobile)``: all of it (``complete``) or its first ``SAMPLE``."""

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


def audience_sample(
    subjects: QuerySet,
    first_ids: QuerySet | Iterable[int],
    *,
    audience: int | None,
    size: int | None = None,
    members: QuerySet | None = None,
) -> AudienceSample:
    """The audience ``subjects`` (a target queryset) through its first ``size`` ids from ``first_ids`` (its small
    side: a values list of target ids, walked along an index), read by primary key in one query; ``audience``:
    its size when known (None: the rows' number when complete, else ``size`` rows were seen, the caller scales).
    ``members``: a values list of the audience's target ids to probe by id (default: ``subjects``' own ids)."""
    size = size or SAMPLE
    head = first_ids[: size + 1] if isinstance(first_ids, QuerySet) else list(first_ids)[: size + 1]
    key = (_key("sample", head) if isinstance(head, QuerySet) else ("sample", tuple(head)), _key("of", subjects))

    def read() -> tuple[tuple[tuple[int, str | None], ...], bool]:
        ids = list(head)
        rows = subjects.filter(ids_match("id", ids[:size])).order_by("pk").values_list("pk", "mobile")
        return tuple(rows), len(ids) <= size

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
