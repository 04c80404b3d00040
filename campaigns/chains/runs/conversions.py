"""Conversion events: recorded from the API, from target status changes matching the campaign goal and from
a target's replies when a run it was sent in has the goal "replied".

Conversions never block run completion or campaign FINISHED and never touch a
frozen audience; a child reads them once, at its build, up to its cutoff.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from django.db import IntegrityError, transaction
from django.utils import timezone

from campaigns.chains.run_models import CampaignRun, ConversionEvent
from campaigns.chains.runs.audience import REPLY_EVENT, attribution_window, conversions_from_target_status
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
    created = 0
    for run in _runs_sent_to(target.workspace_id, target.id, now):
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


def _runs_sent_to(workspace_id: int, target_id: int, now: datetime):
    """The runs of the last year that sent to the target (its latest conversion may be theirs)."""
    return (
        CampaignRun.objects.filter(
            workspace_id=workspace_id,
            executions__target_id=target_id,
            executions__execution_id__isnull=False,
            started_at__isnull=False,
            started_at__lte=now,
            started_at__gte=now - timedelta(days=366),
        )
        .select_related("campaign")
        .distinct()
    )


def conversion_on_reply(*, workspace_id: int, target_id: int, reply_id: int, text: str, received_at: datetime) -> bool:
    """A target's reply, recorded as one ``reply`` conversion event (external id ``reply:<id>``: once per reply)
    when a run it was sent in has the goal "replied" and the reply falls in that run's attribution window. The
    goal's words are matched at the child's build (``converted_targets``), so the event keeps the text."""
    wanted = False
    for run in _runs_sent_to(workspace_id, target_id, received_at):
        window = attribution_window(run, received_at)
        if (run.campaign.goal or {}).get("type") == "REPLIED" and window is not None and received_at <= window[1]:
            wanted = True
            break
    if not wanted:
        return False
    try:
        with transaction.atomic():
            _, created = ConversionEvent.objects.get_or_create(
                workspace_id=workspace_id,
                external_id=f"reply:{reply_id}",
                defaults={
                    "target_id": target_id,
                    "name": REPLY_EVENT,
                    "occurred_at": received_at,
                    "source": ConversionSource.REPLY,
                    "data": {"text": str(text or "")[:500]},
                },
            )
    except IntegrityError:
        return False
    return created
