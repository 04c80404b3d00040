"""Conversion events: recorded from the API and from target status changes matching the campaign goal.

Conversions never block run completion or campaign FINISHED and never touch a
frozen audience; a child reads them once, at its build, up to its cutoff.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from django.db import IntegrityError, transaction
from django.utils import timezone

from campaigns.chains.run_models import CampaignRun, ConversionEvent
from campaigns.chains.runs.audience import attribution_window, conversions_from_target_status
from campaigns.chains.runs.choices import ConversionSource
from campaigns.models import Target
from campaigns.platform.errors import ValidationFailed
from campaigns.platform.permissions import Perm
from campaigns.platform.tenancy import Actor
from campaigns.selectors import target_get


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
    target = target_get(actor=actor, target_id=target_id)  # an operator: only the targets they own
    external_id = (external_id or "").strip() or None
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
                external_id=external_id,
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


def conversion_on_target_status(*, target: Target, status: str, now: datetime | None = None) -> int:
    """Hook of the target update service: a status change that matches the goal of a run the target
    was sent in — still inside that run's attribution window — is recorded now, once per run window
    (the job ``chain-run-conversions`` only catches what this missed, e.g. imports)."""
    now = now or timezone.now()
    name = f"target_status:{status}"
    runs = (
        CampaignRun.objects.filter(
            workspace_id=target.workspace_id,
            executions__target_id=target.id,
            executions__execution_id__isnull=False,
            started_at__isnull=False,
            started_at__lte=now,
            started_at__gte=now - timedelta(days=366),
        )
        .select_related("campaign")
        .distinct()
    )
    created = 0
    for run in runs:
        goal = run.campaign.goal or {}
        if goal.get("type") != "TARGET_STATUS" or status not in (goal.get("statuses") or []):
            continue
        window = attribution_window(run, now)
        if window is None or now > window[1]:
            continue
        exists = ConversionEvent.objects.filter(
            workspace_id=target.workspace_id, target_id=target.id, name=name, occurred_at__gte=window[0]
        ).exists()
        if not exists:
            ConversionEvent.objects.create(
                workspace_id=target.workspace_id,
                target_id=target.id,
                name=name,
                occurred_at=now,
                source=ConversionSource.TARGET_STATUS,
                data={"status": status},
            )
            created += 1
    return created
