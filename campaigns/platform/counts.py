"""Bounded counts for checks that must stay cheap at a million rows (the launch check).

``capped_count`` counts at most ``cap`` + 1 rows (``LIMIT``): right for a reason driven from a small side (a
blacklist). ``scanned_count`` is for a reason that must look at every row of the audience (no mobile, live
elsewhere): exact up to ``scan`` audience rows, else counted among the first ``scan`` (by id) and scaled to the
audience — an estimate, said as such. Inside ``reads_shared()`` the same read over the same rows is made once
(``shared_read``): a chain package checks each member on one audience.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from django.db.models import QuerySet

SCAN = 20_000
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
    """``read()``, or a copy of its first answer for ``key`` inside ``reads_shared()`` (callers may change it)."""
    memo = _SHARED.get()
    if memo is None:
        return read()
    if key not in memo:
        memo[key] = read()
    return copy.deepcopy(memo[key])


def _key(kind: str, queryset: QuerySet, *numbers: int | None) -> tuple:
    sql, params = queryset.query.sql_with_params()
    return (kind, sql, tuple(map(str, params)), *numbers)


def capped_count(queryset: QuerySet, cap: int) -> dict[str, Any]:
    """``{"count": n, "capped": n > cap, "estimated": False}``; a capped count is ``cap``."""
    rows = queryset.order_by().values("pk")[: cap + 1]
    n = shared_read(_key("count", rows), rows.count)
    return {"count": min(n, cap), "capped": n > cap, "estimated": False}


def scanned_count(
    subjects: QuerySet, narrow: Callable[[QuerySet], QuerySet], *, audience: int, cap: int, scan: int | None = None
) -> dict[str, Any]:
    """``narrow(subjects)`` counted exactly (capped) when the audience is at most ``scan``, else among the
    audience's first ``scan`` rows by id, scaled (``estimated``)."""
    scan = scan or SCAN
    if audience <= scan:
        return capped_count(narrow(subjects), cap)
    first = subjects.order_by("pk").values("pk")[:scan]
    scanned = narrow(subjects.filter(pk__in=first)).order_by()
    n = shared_read(_key("count", scanned), scanned.count)
    return {"count": round(n * audience / scan), "capped": False, "estimated": True}
