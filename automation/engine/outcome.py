"""What one step of a job decides, and the execution metadata keys the engine and people share.

Imported by the runner, the node handlers and the services alike; it imports nothing of the engine
(the event type is the history writer's, ``automation.events``; the metadata keys are choices), so every side
reads the same values without importing each other.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from automation.choices import FIRST_SEND_AT, HELD_UNKNOWN, LAST_SEND_AT, RESEND_UNKNOWN, SKIP_UNKNOWN
from automation.events import PendingEvent

__all__ = [
    "ERROR_BACKOFF",
    "FIRST_SEND_AT",
    "HELD_UNKNOWN",
    "LAST_SEND_AT",
    "RESEND_UNKNOWN",
    "SKIP_UNKNOWN",
    "Outcome",
    "PendingEvent",
]

# How long a step that failed (or a deferral without a time) waits before the next try.
ERROR_BACKOFF = timedelta(minutes=5)


@dataclass
class Outcome:
    """The end of a job's pass over one execution: the transition to apply, its fields and its event."""

    transition: str
    extra: dict[str, Any] = field(default_factory=dict)
    event: PendingEvent | None = None
