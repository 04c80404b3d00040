"""The lease of a running job (journeys.md "Leases").

A claimed execution carries ``lock_token`` + ``locked_at``. The lease of a
``processing`` row starts when the job moves it to processing (not at the
scheduler's claim: a batch may wait in the broker) and the job extends it
while it runs (``Lease.beat`` between provider calls), so the reaper only
takes rows whose job stopped beating — a dead job. A Celery time limit is
never swallowed by the engine's "a step failed" handlers (``STOP_EXCEPTIONS``).
"""

from __future__ import annotations

import time
from datetime import datetime, timedelta

from billiard.exceptions import SoftTimeLimitExceeded, TimeLimitExceeded
from django.conf import settings

from automation.choices import ExecutionStatus
from automation.models import Execution

# Raised into a task by Celery when its time is up: the job must stop, not record a step error and go on.
STOP_EXCEPTIONS: tuple[type[BaseException], ...] = (SoftTimeLimitExceeded, TimeLimitExceeded)


def heartbeat_seconds() -> float:
    beat = settings.AUTOMATION_LEASE_HEARTBEAT_SECONDS
    return float(beat) if beat is not None else min(60.0, settings.AUTOMATION_LEASE_SECONDS / 4)


class Lease:
    """The rows one job holds; ``beat`` moves their ``locked_at`` forward (at most every heartbeat interval)."""

    def __init__(self, items: list[tuple[int, str]], now: datetime) -> None:
        self.ids = [int(i) for i, _ in items]
        self.tokens = sorted({str(t) for _, t in items})
        self.now = now  # the job's clock (tests simulate it); real elapsed time is added to it
        self.started = self.last = time.monotonic()
        self.beats = 0

    def beat(self, *, force: bool = False) -> None:
        moment = time.monotonic()
        if not self.ids or (not force and moment - self.last < heartbeat_seconds()):
            return
        self.last = moment
        self.beats += 1
        at = self.now + timedelta(seconds=moment - self.started)
        Execution.objects.filter(pk__in=self.ids, status=ExecutionStatus.PROCESSING, lock_token__in=self.tokens).update(
            locked_at=at
        )
