"""Personal data retention: after N days the texts and numbers of SMS attempts and replies are erased (rows kept).

Workspace setting ``Workspace.settings["sms_retention_days"]`` (a positive integer; absent or 0 = keep
forever). A daily beat job erases, for attempts requested before ``now - N days``, the message, its
template, the phone number and the provider's raw answers (attempt and its log events), and records one
``SmsChannelEvent`` (``retention_purge``) per workspace with how many rows it erased. Stored replies
(``InboundSms``) received before the same cutoff lose their text and sender number the same way. Rows, statuses,
dates, providers, outcomes and counts stay, so dashboards, daily counters and the inbox's counts do not change.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from campaigns.models import Workspace
from sms import frequency_cap
from sms.events import retention_purge_event
from sms.inbound.models import InboundSms
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
    """Erase old texts and numbers of one workspace; returns how many attempts and replies were erased (audited)."""
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
    replies = _erase_replies(workspace_id=workspace_id, cutoff=cutoff, batch=batch)
    if total or replies:
        retention_purge_event(workspace_id=workspace_id, days=days, before=cutoff, attempts=total, replies=replies)
    return total + replies


def _erase_replies(*, workspace_id: int, cutoff: datetime, batch: int) -> int:
    """Text and sender number of the workspace's replies received before ``cutoff`` (target, outcome kept)."""
    old = InboundSms.objects.filter(workspace_id=workspace_id, received_at__lt=cutoff).filter(
        ~Q(text="") | ~Q(number=ERASED_PHONE)
    )
    total = 0
    while True:
        ids = list(old.values_list("id", flat=True)[:batch])
        if not ids:
            return total
        total += InboundSms.objects.filter(pk__in=ids).update(text="", number=ERASED_PHONE)


def sms_retention_purge_all(*, now: datetime | None = None) -> dict[int, int]:
    """Beat, daily: every workspace that set a retention period; and the frequency cap's old day counters."""
    frequency_cap.prune(today=(now or timezone.now()).date())
    done = {}
    for workspace in Workspace.objects.filter(settings__has_key=SETTING):
        if retention_days(workspace):
            done[workspace.id] = sms_retention_purge(workspace_id=workspace.id, now=now)
    return done
