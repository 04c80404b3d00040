"""FSM transitions as compare-and-set UPDATEs.

django-fsm-2 decides whether a transition is allowed and what the target
state is; ``fsm_apply`` then writes it with
``UPDATE … WHERE id = %s AND status = %s AND revision = %s``. A lost race
updates nothing and raises ``StaleRevision``; nothing else is written.
"""

from collections.abc import Callable

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
    extra_updates: dict | None = None,
    on_applied: Callable[[str, str], None] | None = None,
) -> models.Model:
    """Run ``instance.<transition>()`` and persist it atomically.

    ``on_applied(from_status, to_status)`` runs inside the same transaction
    (write the event row there). Returns the refreshed instance.
    """
    method = getattr(instance, transition)
    if not can_proceed(method):
        raise InvalidTransition(
            details={"from": getattr(instance, field), "transition": transition},
        )
    from_status = getattr(instance, field)
    revision = instance.revision
    method()
    to_status = getattr(instance, field)
    values = {field: to_status, "revision": F("revision") + 1, **(extra_updates or {})}
    if any(f.name == "updated_at" for f in instance._meta.fields):
        values["updated_at"] = timezone.now()
    with transaction.atomic():
        updated = (
            type(instance)
            ._default_manager.filter(pk=instance.pk, **{field: from_status}, revision=revision)
            .update(**values)
        )
        if updated != 1:
            instance.refresh_from_db()
            raise StaleRevision(details={"current_status": getattr(instance, field)})
        if on_applied:
            on_applied(from_status, to_status)
    instance.refresh_from_db()
    return instance
