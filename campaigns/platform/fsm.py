"""FSM transitions as compare-and-set UPDATEs: the one helper every status machine uses.

django-fsm-2 decides whether a transition is allowed and what the target
state is; ``fsm_apply`` then writes it with
``UPDATE … WHERE id = %s AND <field> = %s AND revision = %s``.

One return convention: ``True`` when the row was written (the instance is
updated in memory: the new state, ``revision + 1``, ``updated_at`` and the
extra values). When the transition is not allowed from the current state, or
another process changed the row first (a lost race: nothing is written, the
instance is re-read), a ``strict`` call raises ``InvalidTransition`` /
``StaleRevision`` and a non-strict call returns ``False``.
"""

from collections.abc import Callable
from datetime import datetime
from typing import Any

from django.db import models, transaction
from django.db.models import F
from django.utils import timezone
from django_fsm import can_proceed

from campaigns.platform.errors import InvalidTransition, StaleRevision


def fsm_apply(
    instance: models.Model,
    transition: str,
    *,
    field: str = "status",
    values: dict[str, Any] | None = None,
    now: datetime | None = None,
    strict: bool = True,
    on_applied: Callable[[str, str], None] | None = None,
) -> bool:
    """Run ``instance.<transition>()`` and persist it with one conditional UPDATE (see the module docstring).

    ``values`` are plain column values written with the state (no expressions: they are also set in
    memory). ``on_applied(from_status, to_status)`` runs inside the same transaction, after the UPDATE
    (write the event rows there); it does not run when nothing was written."""
    method = getattr(instance, transition)
    if not can_proceed(method):
        if strict:
            raise InvalidTransition(details={"from": getattr(instance, field), "transition": transition})
        return False
    from_status = getattr(instance, field)
    revision = instance.revision
    method()
    to_status = getattr(instance, field)
    extra = dict(values or {})
    if any(f.name == "updated_at" for f in instance._meta.fields):
        extra["updated_at"] = now or timezone.now()
    with transaction.atomic():
        updated = (
            type(instance)
            ._default_manager.filter(pk=instance.pk, **{field: from_status}, revision=revision)
            .update(**{field: to_status, "revision": F("revision") + 1, **extra})
        )
        if updated != 1:
            instance.refresh_from_db()
            if strict:
                raise StaleRevision(details={"current_status": getattr(instance, field)})
            return False
        if on_applied:
            on_applied(from_status, to_status)
    instance.revision = revision + 1
    for name, value in extra.items():
        setattr(instance, name, value)
    return True
