"""Development provider: logs (without number or text) and accepts; nothing to poll."""

import logging

from sms.providers.base import Provider, SendRequest, SendResponse

logger = logging.getLogger("sms.console")


class ConsoleProvider(Provider):
    kind = "console"
    label = "کنسول (آزمایشی)"

    def send(self, credentials, request: SendRequest) -> SendResponse:
        logger.info("console sms accepted: local_id=%s chars=%d", request.local_id, len(request.text))
        return SendResponse("submitted", message_id=f"console-{request.local_id}", raw={"accepted": True})


PROVIDER = ConsoleProvider()
