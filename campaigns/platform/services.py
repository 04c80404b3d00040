"""Write helpers every app's services use.

``model_update`` is the one way an update service changes plain fields of a row: it sets only the
named fields, validates them (``full_clean`` limited to what changed) and saves exactly those columns,
so two services updating different fields of one row never overwrite each other (no whole-row save
over counters that another service changes concurrently). Status fields never go through it: they
change by FSM transitions (``campaigns.platform.fsm``).

``lock_in_pk_order`` is the one way to lock several rows: ordered by primary key before
``SELECT … FOR UPDATE``, so two transactions locking overlapping sets never deadlock.
"""

from collections.abc import Iterable
from typing import Any, TypeVar

from django.db import models

M = TypeVar("M", bound=models.Model)


def model_update(*, instance: M, fields: Iterable[str], data: dict[str, Any], auto_now: bool = True) -> tuple[M, bool]:
    """Set ``fields`` of ``instance`` from ``data`` (only keys present), validate and save those columns.

    Returns ``(instance, changed)``; nothing is written when no value changed.
    """
    changed: list[str] = []
    for field in fields:
        if field in data and getattr(instance, field) != data[field]:
            setattr(instance, field, data[field])
            changed.append(field)
    if not changed:
        return instance, False
    excluded = [f.name for f in instance._meta.fields if f.name not in changed]
    instance.full_clean(exclude=excluded)
    if auto_now:
        changed += [f.name for f in instance._meta.fields if getattr(f, "auto_now", False) and f.name not in changed]
    instance.save(update_fields=changed)
    return instance, True


def lock_in_pk_order(queryset: models.QuerySet[M], *, skip_locked: bool = False) -> list[M]:
    """Lock the queryset's rows in primary-key order (``FOR UPDATE OF self``); call inside ``atomic()``."""
    return list(queryset.order_by("pk").select_for_update(of=("self",), skip_locked=skip_locked))
