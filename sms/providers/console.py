"""Development provider: logs (without number or text) and accepts.

It remembers the last ``REMEMBERED`` local ids it accepted in its own process and answers "was local id N
sent?" from that memory, so a send interrupted inside a running worker is settled like a real provider's
(Kavenegar's ``statuslocalmessageid``). A worker that dies takes its memory with it: its successor answers
"not sent" and the step is logged once more — the console has no recipient. No delivery reports to poll.

Its credit read answers a fixed large demo credit in the account's unit (``DEMO_CREDIT``), so the launch check of a
demo journey weighs the cost against a credit instead of warning that none was read."""

import logging
import threading
from collections import deque

from sms.providers.base import Provider, SendRequest, SendResponse, StatusAnswer

logger = logging.getLogger("sms.console")
REMEMBERED = 100_000
# The credit a console account reports, per unit (``sms.choices.CreditUnit``): far above the low-credit thresholds
# and any demo's cost (10 billion rials, a million message parts).
DEMO_CREDIT = {"rial": 10_000_000_000, "message": 1_000_000}


class _Memory:
    """Up to ``size`` accepted local ids, the oldest forgotten first (ints: a third of a string's memory)."""

    def __init__(self, size: int) -> None:
        self.size, self.lock, self.order, self.ids = size, threading.Lock(), deque(), set()

    def add(self, local_id: str) -> None:
        if not local_id.isdigit():
            return
        key = int(local_id)
        with self.lock:
            if key in self.ids:
                return
            self.ids.add(key)
            self.order.append(key)
            if len(self.order) > self.size:
                self.ids.discard(self.order.popleft())

    def __contains__(self, local_id: str) -> bool:
        with self.lock:
            return local_id.isdigit() and int(local_id) in self.ids


class ConsoleProvider(Provider):
    kind = "console"
    label = "کنسول (آزمایشی)"
    status_by_local_id = True
    status_batch_size = 100
    batch_size = 200
    credit_query = True

    def __init__(self) -> None:
        self.memory = _Memory(REMEMBERED)

    @property
    def polls_delivery(self) -> bool:
        return False

    def send(self, credentials, request: SendRequest) -> SendResponse:
        message_id = f"console-{request.local_id}"
        self.memory.add(request.local_id)
        logger.info("console sms accepted: local_id=%s chars=%d", request.local_id, len(request.text))
        return SendResponse("submitted", message_id=message_id, raw={"accepted": True})

    def query_credit(self, credentials, *, unit: str = "rial") -> int | None:
        return DEMO_CREDIT.get(unit, DEMO_CREDIT["rial"])

    def query_status(self, credentials, *, local_ids=(), message_ids=()) -> dict[str, StatusAnswer]:
        return {
            i: StatusAnswer("sent", message_id=f"console-{i}") if i in self.memory else StatusAnswer("not_sent")
            for i in local_ids
        }


PROVIDER = ConsoleProvider()
