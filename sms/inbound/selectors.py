"""Reads of two-way SMS: the inbox and a target's conversation (sent and received in one thread)."""

from __future__ import annotations

from datetime import datetime
from itertools import chain

from django.db.models import Exists, OuterRef, Q, QuerySet

from campaigns.models import Campaign
from campaigns.platform.permissions import Perm
from campaigns.platform.tenancy import Actor, scoped
from campaigns.selectors import target_get
from sms.choices import AttemptStatus
from sms.inbound.models import InboundSms
from sms.models import SmsAttempt, SmsProviderAccount

CONVERSATION_LIMIT = 200
_NOT_SENT = (AttemptStatus.QUEUED,)


def inbound_queryset(*, actor: Actor) -> QuerySet:
    """The workspace's replies, newest first."""
    return scoped(InboundSms, actor.workspace).select_related("target", "campaign").order_by("-received_at", "-id")


def conversation(
    *, actor: Actor, target_id: int, limit: int = CONVERSATION_LIMIT, before: datetime | None = None
) -> list[dict]:
    """The last ``limit`` messages between the workspace and the target (its mobile) before ``before`` (None: now),
    oldest first: each ``{"direction": "out"|"in", "id", "at", "text", "line", "status", "campaign_id"}``.

    Two index range reads of ``limit`` rows each (the attempts by workspace + phone + time, the replies by target
    and by number), merged here — a target with years of messages costs the same."""
    target = target_get(actor=actor, target_id=target_id)
    received = scoped(InboundSms, actor.workspace).filter(
        Q(target=target) | Q(number=target.mobile) if target.mobile else Q(target=target)
    )
    sent = (
        scoped(SmsAttempt, actor.workspace).filter(phone=target.mobile).exclude(status__in=_NOT_SENT)
        if target.mobile
        else SmsAttempt.objects.none()
    )
    if before is not None:
        sent, received = sent.filter(request_at__lt=before), received.filter(received_at__lt=before)
    rows = chain(
        (
            {
                "direction": "out",
                "id": a.id,
                "at": a.request_at,
                "text": a.message,
                "line": a.sender,
                "status": a.status,
                "campaign_id": a.campaign_id,
            }
            for a in sent.order_by("-request_at", "-id")[:limit]
        ),
        (
            {
                "direction": "in",
                "id": m.id,
                "at": m.received_at,
                "text": m.text,
                "line": m.line,
                "status": "read" if m.is_read else "unread",
                "campaign_id": m.campaign_id,
            }
            for m in received.order_by("-received_at", "-id")[:limit]
        ),
    )
    newest = sorted(rows, key=lambda row: (row["at"], row["direction"] == "in", row["id"]), reverse=True)[:limit]
    return newest[::-1]


INBOX_STATES = ("unread", "all", "read")


def inbox_queryset(
    *,
    actor: Actor,
    state: str = "unread",
    campaign_id: int | None = None,
    line: str = "",
    matched: bool | None = None,
    outcome: str = "",
) -> QuerySet:
    """The inbox page's replies, newest first (paged by keyset on ``received_at``): unread ones unless ``state``
    says "all" or "read"; ``matched`` None = both, ``outcome`` one of ``InboundOutcome`` ("" = any)."""
    actor.require(Perm.VIEW_SMS_LOGS)
    qs = inbound_queryset(actor=actor)
    if state != "all":
        qs = qs.filter(is_read=state == "read")
    if campaign_id:
        qs = qs.filter(campaign_id=campaign_id)
    if line:
        qs = qs.filter(line=line)
    if matched is not None:
        qs = qs.filter(target__isnull=not matched)
    if outcome:
        qs = qs.filter(outcome=outcome)
    return qs


def inbox_unread_count(*, actor: Actor, cap: int = 1000) -> int:
    """Unread replies of the workspace, counted up to ``cap`` (the partial unread index; "999+" beyond)."""
    return scoped(InboundSms, actor.workspace).filter(is_read=False)[:cap].count()


def campaigns_with_replies(*, actor: Actor) -> QuerySet:
    """The inbox's campaign choices: the workspace's campaigns that have a reply (one index probe each)."""
    replied = InboundSms.objects.filter(campaign_id=OuterRef("pk"))
    return scoped(Campaign, actor.workspace).filter(Exists(replied)).order_by("name", "id")


def inbox_lines(*, actor: Actor) -> list[str]:
    """The inbox's line choices: every sender line of the workspace's accounts."""
    lines = set()
    for senders in scoped(SmsProviderAccount, actor.workspace).values_list("senders", flat=True):
        lines.update(str(s) for s in senders or ())
    return sorted(lines)
