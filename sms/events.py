"""Append-only history of a workspace's SMS channel: one function per ``SmsChannelEventType`` (the only writer)."""

from datetime import datetime
from typing import Any

from campaigns.platform.events import event_write
from sms.choices import SmsChannelEventType as T
from sms.models import SmsChannelEvent


def _write(workspace_id: int, type: str, *, actor=None, data: dict[str, Any] | None = None) -> SmsChannelEvent:
    return event_write(SmsChannelEvent, workspace_id=workspace_id, type=type, actor=actor, data=data)


def circuit_opened_event(*, workspace_id: int, reason: str, until: datetime) -> SmsChannelEvent:
    """The channel became unusable (provider outage): sends pause until ``until``."""
    return _write(workspace_id, T.CIRCUIT_OPENED, data={"reason": reason, "until": until.isoformat()})


def circuit_closed_event(*, workspace_id: int, cause: str = "") -> SmsChannelEvent:
    """A probe send succeeded (or, ``cause`` "credit", the credit read saw credit again): the outage is over."""
    return _write(workspace_id, T.CIRCUIT_CLOSED, data={"cause": cause} if cause else None)


def manual_resume_event(*, workspace_id: int, actor, was_paused_until: datetime | None) -> SmsChannelEvent:
    """A person pressed "fixed, resume"."""
    return _write(workspace_id, T.MANUAL_RESUME, actor=actor, data={"was_paused_until": str(was_paused_until)})


def webhook_token_rotated_event(*, workspace_id: int, actor) -> SmsChannelEvent:
    return _write(workspace_id, T.WEBHOOK_TOKEN_ROTATED, actor=actor)


def test_message_event(
    *, workspace_id: int, actor, account_id: int, status: str, error_code: str | None
) -> SmsChannelEvent:
    """A test message was sent from the settings page (its outcome, never the number or the text)."""
    return _write(
        workspace_id,
        T.TEST_MESSAGE,
        actor=actor,
        data={"account_id": account_id, "status": status, "error_code": error_code},
    )


def retention_purge_event(
    *, workspace_id: int, days: int, before: datetime, attempts: int, replies: int = 0
) -> SmsChannelEvent:
    """The retention job erased the texts and numbers of ``attempts`` attempts and ``replies`` stored replies older
    than ``before``."""
    return _write(
        workspace_id,
        T.RETENTION_PURGE,
        data={"days": days, "before": before.isoformat(), "attempts": attempts, "replies": replies},
    )
