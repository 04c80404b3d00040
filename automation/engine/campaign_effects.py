"""What a journey campaign's status change does to its executions (the journey kind's lifecycle effects).

``automation.apps`` registers ``JOURNEY_EFFECTS`` on the journey kind handler; the campaign lifecycle
(``campaigns.services.lifecycle``) runs them after the status write, in its transaction, whoever changed
the status (a person, the scheduler at ``starts_at`` / ``ends_at``, a chain run):

* start  → the campaign's pending executions become active;
* cancel → its live executions are cancelled (``campaign_cancelled``);
* finish → its live executions are cancelled (``campaign_ended``).

Pause and resume need nothing here: the tick claims only executions of active campaigns.
"""

from __future__ import annotations

from datetime import datetime

from django.db import transaction

from automation import events
from automation.choices import LIVE_STATUSES, EndReason, ExecutionStatus
from automation.engine.transitions import bulk_transition
from automation.models import Execution
from campaigns.models import Campaign

S = ExecutionStatus


def activate_pending(campaign: Campaign, now: datetime) -> int:
    with transaction.atomic():
        rows = list(
            Execution.objects.select_for_update()
            .filter(campaign=campaign, status=S.PENDING)
            .values(*events.EVENT_ROW_FIELDS)
        )
        if not rows:
            return 0
        count = bulk_transition(rows, source=[S.PENDING], now=now, status=S.ACTIVE, started_at=now)
        events.activated_events(rows, now=now)
    return count


def cancel_live_executions(*, campaign_id: int | None = None, subject=None, reason: str, now: datetime) -> int:
    """Bulk transition of every live execution of a campaign (or of a subject) to cancelled."""
    from django.contrib.contenttypes.models import ContentType

    qs = Execution.objects.filter(status__in=LIVE_STATUSES)
    if campaign_id is not None:
        qs = qs.filter(campaign_id=campaign_id)
    if subject is not None:
        qs = qs.filter(subject_type=ContentType.objects.get_for_model(subject), subject_id=subject.pk)
    with transaction.atomic():
        rows = list(qs.select_for_update().values(*events.EVENT_ROW_FIELDS))
        if not rows:
            return 0
        ended = {"end_reason": reason, "completed_at": now, "lock_token": None, "next_run_at": None}
        count = bulk_transition(rows, source=LIVE_STATUSES, now=now, status=S.CANCELLED, **ended)
        events.cancelled_events(rows, reason=reason, now=now)
    return count


def journey_started(*, campaign: Campaign, actor, now: datetime) -> None:
    activate_pending(campaign, now)


def journey_cancelled(*, campaign: Campaign, actor, now: datetime) -> None:
    cancel_live_executions(campaign_id=campaign.id, reason=EndReason.CAMPAIGN_CANCELLED, now=now)


def journey_finished(*, campaign: Campaign, actor, now: datetime) -> None:
    cancel_live_executions(campaign_id=campaign.id, reason=EndReason.CAMPAIGN_ENDED, now=now)


JOURNEY_EFFECTS = {"start": journey_started, "cancel": journey_cancelled, "finish": journey_finished}
