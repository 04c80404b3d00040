"""Conversion events: recorded from the API and from target status changes matching the campaign goal.

Conversions never block run completion or campaign FINISHED and never touch a
frozen audience; a child reads them once, at its build, up to its cutoff.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from django.db import IntegrityError, transaction
from django.utils import timezone

from ...errors import ValidationFailed
from ...models import Target
from ...permissions import Perm
from ...tenancy import Actor, get_scoped
from ..run_models import CampaignRun, ConversionEvent
from .audience import conversions_from_target_status
from .choices import ConversionSource


def conversion_event_record(
    *,
    actor: Actor,
    target_id: int,
    name: str,
    occurred_at: datetime,
    data: dict | None = None,
    external_id: str | None = None,
) -> tuple[ConversionEvent, bool]:
    """Record one event; the same ``external_id`` twice returns the first event (created = False)."""
    actor.require(Perm.MANAGE_TARGETS)
    name = (name or "").strip()
    if not name:
        raise ValidationFailed.field("name", "نام رویداد لازم است.")
    if occurred_at > timezone.now() + timedelta(minutes=5):
        raise ValidationFailed.field("occurred_at", "زمان رخداد نمی‌تواند در آینده باشد.")
    target = get_scoped(Target, actor.workspace, target_id)
    if external_id:
        existing = ConversionEvent.objects.filter(workspace=actor.workspace, external_id=external_id).first()
        if existing:
            return existing, False
    try:
        with transaction.atomic():
            event = ConversionEvent.objects.create(
                workspace=actor.workspace,
                target=target,
                name=name[:100],
                occurred_at=occurred_at,
                data=data or {},
                source=ConversionSource.API,
                external_id=external_id or None,
            )
    except IntegrityError:
        return ConversionEvent.objects.get(workspace=actor.workspace, external_id=external_id), False
    return event, True


def conversions_evaluate(*, now: datetime | None = None, limit: int = 200) -> int:
    """Job: turns still inside their attribution window (finished/cancelled campaigns included)."""
    now = now or timezone.now()
    created = 0
    runs = (
        CampaignRun.objects.filter(started_at__isnull=False, started_at__gte=now - timedelta(days=366))
        .select_related("campaign")
        .order_by("conversions_checked_at", "id")
    )
    for run in runs[:limit]:
        window_end = run.started_at + timedelta(days=run.campaign.attribution_window_days or 0)
        if window_end < (run.conversions_checked_at or run.started_at):
            continue
        created += conversions_from_target_status(run, now=min(now, window_end))
    return created
