"""Reads of two-way SMS: the inbox and a target's conversation (sent and received in one thread)."""

from __future__ import annotations

from itertools import chain

from django.db.models import Q, QuerySet

from campaigns.platform.tenancy import Actor, scoped
from campaigns.selectors import target_get
from sms.choices import AttemptStatus
from sms.inbound.models import InboundSms
from sms.models import SmsAttempt

CONVERSATION_LIMIT = 200
_NOT_SENT = (AttemptStatus.QUEUED,)


def inbound_queryset(*, actor: Actor) -> QuerySet:
    """The workspace's replies, newest first."""
    return scoped(InboundSms, actor.workspace).select_related("target", "campaign").order_by("-received_at", "-id")


def conversation(*, actor: Actor, target_id: int, limit: int = CONVERSATION_LIMIT) -> list[dict]:
    """The last ``limit`` messages between the workspace and the target (its mobile), oldest first: each
    ``{"direction": "out"|"in", "id", "at", "text", "line", "status", "campaign_id"}``."""
    target = target_get(actor=actor, target_id=target_id)
    received = scoped(InboundSms, actor.workspace).filter(
        Q(target=target) | Q(number=target.mobile) if target.mobile else Q(target=target)
    )
    sent = (
        scoped(SmsAttempt, actor.workspace).filter(phone=target.mobile).exclude(status__in=_NOT_SENT)
        if target.mobile
        else SmsAttempt.objects.none()
    )
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
