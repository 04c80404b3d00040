"""Personal data retention: after N days the texts and numbers of SMS attempts are erased (rows kept).

Workspace setting ``Workspace.settings["sms_retention_days"]`` (a positive integer; absent or 0 = keep
forever). A daily beat job erases, for attempts requested before ``now - N days``, the message, its
template, the phone number and the provider's raw answers (attempt and its log events), and records one
``SmsChannelEvent`` (``retention_purge``) per workspace with how many rows it erased. Rows, statuses,
dates, providers and counts stay, so dashboards and daily counters do not change.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from campaigns.models import Workspace
from sms.events import retention_purge_event
from sms.models import SmsAttempt, SmsLogEvent

SETTING = "sms_retention_days"
ERASED_PHONE = ""


def retention_days(workspace: Workspace) -> int:
    try:
        days = int((workspace.settings or {}).get(SETTING) or 0)
    except (TypeError, ValueError):
        return 0
    return max(days, 0)


def sms_retention_purge(*, workspace_id: int, now: datetime | None = None, batch: int = 5000) -> int:
    """Erase old texts and numbers of one workspace; returns how many attempts were erased (audited)."""
    now = now or timezone.now()
    workspace = Workspace.objects.get(pk=workspace_id)
    days = retention_days(workspace)
    if not days:
        return 0
    cutoff = now - timedelta(days=days)
    old = SmsAttempt.objects.filter(workspace_id=workspace_id, request_at__lt=cutoff).filter(
        ~Q(message="") | ~Q(phone=ERASED_PHONE) | ~Q(template="") | Q(provider_response__isnull=False)
    )
    total = 0
    while True:
        ids = list(old.values_list("id", flat=True)[:batch])
        if not ids:
            break
        with transaction.atomic():
            total += SmsAttempt.objects.filter(pk__in=ids).update(
                message="", template="", phone=ERASED_PHONE, provider_response=None
            )
            SmsLogEvent.objects.filter(attempt_id__in=ids).update(payload={})
    if total:
        retention_purge_event(workspace_id=workspace_id, days=days, before=cutoff, attempts=total)
    return total


def sms_retention_purge_all(*, now: datetime | None = None) -> dict[int, int]:
    """Beat, daily: every workspace that set a retention period."""
    done = {}
    for workspace in Workspace.objects.filter(settings__has_key=SETTING):
        if retention_days(workspace):
            done[workspace.id] = sms_retention_purge(workspace_id=workspace.id, now=now)
    return done
