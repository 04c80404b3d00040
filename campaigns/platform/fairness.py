"""Fair shares of a budget shared by every workspace (browser slots, tick claims, delivery polls).

Max-min fairness: every workspace with work gets an equal share; what a workspace cannot use goes to the
others, so nothing is left unused while any workspace has work, and a workspace alone may use all of it.
Priority (or age) orders the work of one workspace only, never across workspaces.
"""

from __future__ import annotations

import heapq
from collections import Counter
from collections.abc import Callable, Hashable, Sequence
from typing import TypeVar

from django.db import transaction
from django.db.models import Exists, OuterRef, QuerySet

from campaigns.platform.models import Workspace

K = TypeVar("K", bound=Hashable)
T = TypeVar("T")


def workspaces_with_rows(rows: QuerySet) -> list[int]:
    """Ids of the workspaces that have a row in ``rows`` (a semi-join: stops at each one's first row)."""
    return list(
        Workspace.objects.filter(Exists(rows.filter(workspace_id=OuterRef("pk"))))
        .order_by("pk")
        .values_list("pk", flat=True)
    )


def fair_fill(queues: dict[K, Sequence[T]], held: Counter, *, size: int, take: Callable[[T], bool]) -> int:
    """Fill ``size`` slots one at a time: the next slot goes to the key holding the fewest (``held``: what it
    held before, plus what it took here), which offers its own items in order (``take`` may refuse one: its
    next item is tried). A key whose items run out leaves its share to the others. Returns how many were
    taken."""
    heap = [(held[key], index, key) for index, key in enumerate(queues)]
    heapq.heapify(heap)
    position = dict.fromkeys(queues, 0)
    taken = 0
    while heap and taken < size:
        count, index, key = heapq.heappop(heap)
        items = queues[key]
        while position[key] < len(items):
            item = items[position[key]]
            position[key] += 1
            if take(item):
                taken += 1
                heapq.heappush(heap, (count + 1, index, key))
                break
    return taken


def fair_rounds(
    groups: dict[K, list[T]],
    budget: int,
    claim: Callable[[T, int], int | None],
    *,
    out_of_time: Callable[[], bool] = lambda: False,
) -> int:
    """Share ``budget`` between keys in rounds, for work claimed in bulk (``groups``: each key's claimers).

    Each round gives every key still hungry an equal share of what is left, and each key's claimers share
    it in turn the same way: a claimer may take what is left of the key's share ÷ the claimers after it
    (``claim(claimer, limit)`` returns how many it took, None when it failed), so one claimer with much to
    do never takes the turn of the others of its key. A claimer that took less than it was allowed has
    nothing more now (what it left goes to the claimers after it); a key left without a claimer that used
    all it was allowed drops out, and the next round shares what it left among the others. Returns how
    many were claimed.
    """
    spent = 0
    hungry = groups
    while hungry and spent < budget and not out_of_time():
        share = max(1, (budget - spent) // len(hungry))
        still: dict[K, list[T]] = {}
        for key, claimers in hungry.items():
            left = min(share, budget - spent)
            for position, claimer in enumerate(claimers):
                if left <= 0 or out_of_time():
                    still.setdefault(key, []).extend(claimers[position:])
                    break
                allowed = max(1, left // (len(claimers) - position))
                n = claim(claimer, allowed)
                if n is None:
                    continue
                spent += n
                left -= n
                if n >= allowed:  # used all it was allowed: it may have more
                    still.setdefault(key, []).append(claimer)
        hungry = still
    return spent


def claim_fairly(due: QuerySet, batch: int, **stamp) -> list[int]:
    """Claim up to ``batch`` rows of ``due`` for one poll, shared between the workspaces that have some
    (``fair_rounds``: one workspace's flood never delays another's), in ``due``'s order within a workspace.
    Each row is locked (rows another poll holds are skipped) and stamped at once with ``stamp``, an update
    that takes it out of ``due``: a later round of this poll takes the next ones, and two polls never take
    the same row. Returns the ids claimed."""
    ids: list[int] = []

    def claim(workspace_id: int, limit: int) -> int:
        picked = list(
            due.filter(workspace_id=workspace_id)
            .select_for_update(skip_locked=True, of=("self",))
            .values_list("id", flat=True)[:limit]
        )
        if picked:
            due.model.objects.filter(id__in=picked).update(**stamp)
            ids.extend(picked)
        return len(picked)

    with transaction.atomic():
        fair_rounds({w: [w] for w in workspaces_with_rows(due)}, batch, claim)
    return ids
