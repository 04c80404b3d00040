"""Bounded counts for checks that must stay cheap at a million rows (the launch check).

``capped_count`` counts at most ``cap`` + 1 rows (``LIMIT``): right for a reason driven from a small side (a
blacklist). ``scanned_count`` is for a reason that must look at every row of the audience (no mobile, live
elsewhere): exact up to ``scan`` audience rows, else counted among the first ``scan`` (by id) and scaled to the
audience — an estimate, said as such.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.db.models import QuerySet

SCAN = 20_000


def capped_count(queryset: QuerySet, cap: int) -> dict[str, Any]:
    """``{"count": n, "capped": n > cap, "estimated": False}``; a capped count is ``cap``."""
    n = queryset.order_by().values("pk")[: cap + 1].count()
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
    n = narrow(subjects.filter(pk__in=first)).order_by().count()
    return {"count": round(n * audience / scan), "capped": False, "estimated": True}
