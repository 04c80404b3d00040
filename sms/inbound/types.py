"""What a provider hands over for one received message (poll answer or push)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime


@dataclass(frozen=True)
class ReceivedSms:
    provider_message_id: str
    sender: str  # as the provider wrote it (any notation)
    line: str  # our number that received it
    text: str
    received_at: datetime | None = None  # the provider's time; None = when we store it
    # the provider's time is in whole seconds (Kavenegar's unix seconds): it stands for any moment of that second
    whole_seconds: bool = False


@dataclass(frozen=True)
class ReceiveAnswer:
    """One inbox answer: the messages, and where the next request starts ("" = no cursor: the provider marks what
    it handed over as read)."""

    messages: list[ReceivedSms]
    cursor: str = ""
