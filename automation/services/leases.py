"""The engine's resumable jobs — an enrollment batch's commit, a version migration — share one lease rule.

A job row works under a lease (``lease_until``), moved on while its worker makes progress, and counts its
runs (``attempts``). The beat job re-queues a working job whose lease ran out (its worker died), or fails it
after ``MAX_ATTEMPTS`` runs; the job's items carry their outcome, so a resumed run goes on where the dead one
stopped.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

from django.db.models import Model

LEASE = timedelta(minutes=3)
MAX_ATTEMPTS = 3


def leased_jobs_resume(
    model: type[Model], *, working: str, failed: dict[str, Any], send: Callable[[Any], None], now: datetime
) -> dict[str, int]:
    """Beat: each ``working`` job of ``model`` whose lease ran out is sent again (``send(pk)``, its lease
    renewed), or after the last try takes ``failed`` (its status, an error), its lease dropped."""
    resumed = gave_up = 0
    stale = model.objects.filter(status=working, lease_until__lt=now)
    for pk, attempts in list(stale.values_list("pk", "attempts")):
        row = model.objects.filter(pk=pk, status=working, lease_until__lt=now)
        if attempts >= MAX_ATTEMPTS:
            gave_up += row.update(**failed, lease_until=None, finished_at=now, updated_at=now)
        elif row.update(attempts=attempts + 1, lease_until=now + LEASE, updated_at=now):
            resumed += 1
            send(pk)
    return {"resumed": resumed, "failed": gave_up}
