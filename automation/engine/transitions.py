"""Execution transitions: one conditional UPDATE on (id, status, revision) plus event rows.

django-fsm-2 decides whether a named transition is allowed and what the
target status is; the write is ``UPDATE … WHERE id=%s AND status=%s AND
revision=%s`` (``campaigns.platform.fsm.fsm_apply``). A lost race writes nothing (no event either)
and returns False.
Hot bulk paths (claim, reap, lifecycle) use queryset updates as the transition.
A job's own bookkeeping transitions (queued → processing) write no row of their
own: the job's outcome row records them (journeys.md "Decisions").

The batched job reads executions as ``ExecutionRow`` values (``UPDATE … RETURNING``)
and asks ``transition_target`` — the same django-fsm declarations — where a
named transition leads, so its hot path builds no model instances.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, fields
from datetime import datetime
from functools import cache
from typing import Any

from django.db.models import F
from django.utils import timezone

from automation.events import PendingEvent, event_row, insert_events
from automation.models import Execution
from campaigns.platform.fsm import fsm_apply


@dataclass(slots=True)
class ExecutionRow:
    """An execution as a job reads and steps it: plain column values, not a model instance.

    The attribute names are the model's, so node handlers, guards and actions read either."""

    id: int
    workspace_id: int
    campaign_id: int
    workflow_id: int
    version_id: int
    subject_type_id: int
    subject_id: int
    current_node_id: int | None
    needs_budget: bool
    cycle: int
    status: str
    revision: int
    retry_count: int
    node_entered_at: datetime | None
    eligible_at: datetime | None
    next_run_at: datetime | None
    completed_at: datetime | None
    paused_at: datetime | None
    paused_from_status: str
    end_reason: str
    last_error: str
    metadata: dict

    @property
    def pk(self) -> int:
        return self.id


EXECUTION_ROW_COLUMNS = tuple(f.name for f in fields(ExecutionRow))


@cache
def _targets() -> dict[tuple[str, str], str]:
    found = {}
    for t in Execution._meta.get_field("status").get_all_transitions(Execution):
        if isinstance(t.target, str):  # RETURN_VALUE targets (resume) are decided by the instance
            found[(t.name, t.source)] = t.target
    return found


def transition_target(name: str, from_status: str) -> str | None:
    """Where ``Execution.<name>()`` leads from ``from_status`` (django-fsm's declaration); None if not allowed."""
    targets = _targets()
    return targets.get((name, from_status), targets.get((name, "*")))


def apply_transition(
    execution: Execution,
    name: str,
    *,
    event: PendingEvent | None,
    extra: dict[str, Any] | None = None,
    more_events: list[PendingEvent] | None = None,
    actor=None,
    now: datetime | None = None,
    strict: bool = False,
) -> bool:
    """Persist ``execution.<name>()`` and its event rows (``campaigns.platform.fsm.fsm_apply``'s convention).

    ``event=None`` only for a job's queued → processing: its outcome row records it."""
    now = now or timezone.now()

    def record(from_status: str, to_status: str) -> None:
        rows = [*(more_events or [])]
        if event is not None:
            event.from_status, event.to_status = from_status, to_status
            rows.append(event)
        insert_events([event_row(execution, e, actor=actor, now=now) for e in rows])

    return fsm_apply(execution, name, values=extra, now=now, strict=strict, on_applied=record)


def bulk_transition(rows: list[dict[str, Any]], *, source: Iterable[str], now: datetime, **values: Any) -> int:
    """A hot path's transition (reap, a campaign's start or end): the locked ``rows`` (``EVENT_ROW_FIELDS``)
    still in a ``source`` status take ``values`` in one UPDATE, their revision bumped; how many did. The caller
    writes their event rows."""
    ids = [r["id"] for r in rows]
    return Execution.objects.filter(pk__in=ids, status__in=source).update(
        revision=F("revision") + 1, updated_at=now, **values
    )
