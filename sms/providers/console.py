"""Development provider: logs (without number or text) and accepts.

It remembers the last ``REMEMBERED`` local ids it accepted in its own process and answers "was local id N
sent?" from that memory, so a send interrupted inside a running worker is settled like a real provider's
(Kavenegar's ``statuslocalmessageid``). A worker that dies takes its memory with it: its successor answers
"not sent" and the step is logged once more — the console has no recipient. No delivery reports to poll."""

import logging
import threading
from collections import OrderedDict

from sms.providers.base import Provider, SendRequest, SendResponse, StatusAnswer

logger = logging.getLogger("sms.console")
REMEMBERED = 100_000


class _Memory:
    def __init__(self, size: int) -> None:
        self.size, self.lock, self.ids = size, threading.Lock(), OrderedDict()

    def add(self, local_id: str, message_id: str) -> None:
        with self.lock:
            self.ids[local_id] = message_id
            if len(self.ids) > self.size:
                self.ids.popitem(last=False)

    def get(self, local_id: str) -> str | None:
        with self.lock:
            return self.ids.get(local_id)


class ConsoleProvider(Provider):
    kind = "console"
    label = "کنسول (آزمایشی)"
    status_by_local_id = True
    status_batch_size = 100

    def __init__(self) -> None:
        self.memory = _Memory(REMEMBERED)

    @property
    def polls_delivery(self) -> bool:
        return False

    def send(self, credentials, request: SendRequest) -> SendResponse:
        message_id = f"console-{request.local_id}"
        self.memory.add(request.local_id, message_id)
        logger.info("console sms accepted: local_id=%s chars=%d", request.local_id, len(request.text))
        return SendResponse("submitted", message_id=message_id, raw={"accepted": True})

    def query_status(self, credentials, *, local_ids=(), message_ids=()) -> dict[str, StatusAnswer]:
        answers = {}
        for local_id in local_ids:
            message_id = self.memory.get(local_id)
            answers[local_id] = StatusAnswer("sent", message_id=message_id) if message_id else StatusAnswer("not_sent")
        return answers


PROVIDER = ConsoleProvider()
