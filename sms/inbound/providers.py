"""The providers' inbox answers → ``ReceiveAnswer`` (sms-providers.md "Inbox"); the provider classes call these.

Kavenegar ``sms/receive`` entries: ``messageid``, ``message``, ``sender``, ``receptor``, ``date`` (unix seconds).
Melipayamak ``GetMessagesAfterID``: ``MessagesBL`` rows with ``MsgID``, ``Body``, ``SendDate`` (Tehran time
without an offset, whole seconds unless it writes a fraction), ``Sender``, ``Receiver``; the next cursor is
the highest ``MsgID`` handed over. Its push GETs ``to``, ``body``, ``from`` and carries no message id: the id
stored is a digest of the three and the 10-minute span it arrived in, so the panel repeating one push is stored
once. A time in whole seconds is marked so (``ReceivedSms.whole_seconds``): replies are linked at its end.
"""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime
from zoneinfo import ZoneInfo

from django.utils import timezone

from campaigns.platform.text import typed_int
from sms.inbound.transport import xml_records
from sms.inbound.types import ReceiveAnswer, ReceivedSms

MELIPAYAMAK_RECEIVE_BATCH = 100
TEHRAN = ZoneInfo("Asia/Tehran")
PUSH_SPAN_SECONDS = 600


def kavenegar_inbox(body: dict | None, *, line: str) -> ReceiveAnswer | None:
    if body is None:
        return None
    messages = []
    for entry in body.get("entries") or []:
        if not isinstance(entry, dict) or not str(entry.get("messageid") or "").strip():
            continue
        try:
            at = datetime.fromtimestamp(int(entry.get("date")), tz=UTC)
        except (TypeError, ValueError, OverflowError, OSError):
            at = None
        messages.append(
            ReceivedSms(
                provider_message_id=str(entry["messageid"]),
                sender=str(entry.get("sender") or ""),
                line=str(entry.get("receptor") or line),
                text=str(entry.get("message") or ""),
                received_at=at,
                whole_seconds=at is not None,
            )
        )
    return ReceiveAnswer(messages)


def _tehran_time(raw: str) -> datetime | None:
    try:
        value = datetime.fromisoformat(raw.strip())
    except ValueError:
        return None
    return value if timezone.is_aware(value) else value.replace(tzinfo=TEHRAN)


def melipayamak_inbox(text: str | None, *, cursor: str) -> ReceiveAnswer | None:
    rows = xml_records(text, "MessagesBL") if text else None
    if rows is None:
        return None
    messages, highest = [], typed_int(cursor) or 0
    for row in rows:
        message_id = row.get("MsgID", "")
        if (number := typed_int(message_id)) is None:
            continue
        highest = max(highest, number)
        messages.append(
            ReceivedSms(
                provider_message_id=message_id,
                sender=row.get("Sender", ""),
                line=row.get("Receiver", ""),
                text=row.get("Body", ""),
                received_at=_tehran_time(row.get("SendDate", "")),
                whole_seconds="." not in row.get("SendDate", ""),
            )
        )
    return ReceiveAnswer(messages, cursor=str(highest) if highest else str(cursor or ""))


def melipayamak_push(params: dict[str, str], *, now: datetime | None = None) -> ReceivedSms | None:
    sender, line, body = (str(params.get(key) or "") for key in ("from", "to", "body"))
    if not sender.strip():
        return None
    now = now or timezone.now()
    span = int(now.timestamp()) // PUSH_SPAN_SECONDS
    digest = hashlib.sha256(f"{sender}\n{line}\n{body}\n{span}".encode()).hexdigest()[:40]
    return ReceivedSms(provider_message_id=f"push-{digest}", sender=sender, line=line, text=body, received_at=now)
