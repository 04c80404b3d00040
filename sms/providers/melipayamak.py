"""Melipayamak legacy REST: ``POST /api/SendSMS/{SendSMS|GetDeliveries2}`` (form) → ``{Value, RetStatus,
StrRetStatus}``.

No status query by our local id exists: an unknown outcome follows the step's ``on_unknown_outcome``.
Delivery is polled by the provider's message id (``recId``) with ``GetDeliveries2``, one id per call.
"""

from __future__ import annotations

from rest_framework import serializers

from campaigns.platform.text import StrictCharField
from sms.providers.base import (
    CodeMeaning,
    Provider,
    SendRequest,
    SendResponse,
    StatusAnswer,
    base_url,
    national,
    post_form,
    transport_failure,
)

# RetStatus of a send → our result (help pages).
SEND_CODES = {
    0: "unavailable",  # wrong username/password
    1: "submitted",
    2: "unavailable",  # insufficient credit
    3: "failed",  # daily send limit
    4: "failed",  # volume limit
    5: "rejected",  # invalid sender
    6: "failed",  # system updating
    7: "rejected",  # filtered word
    9: "unavailable",  # public lines not allowed via web service
    10: "unavailable",  # user inactive
    11: "failed",  # not sent
    12: "unavailable",  # documents incomplete
    14: "rejected",  # text contains a link
    15: "rejected",  # several recipients without the opt-out word
}
SEND_LABELS = {
    0: "wrong username/password",
    2: "insufficient credit",
    3: "daily send limit",
    4: "volume limit",
    5: "invalid sender",
    6: "system updating",
    7: "filtered word",
    9: "public lines not allowed",
    10: "user inactive",
    11: "not sent",
    12: "documents incomplete",
    14: "text contains a link",
    15: "several recipients without opt-out",
}
# GetDeliveries2 ``Value`` → meaning.
DELIVERY_CODES = {
    0: CodeMeaning("sent", "sent", "sent to telecom"),
    1: CodeMeaning("sent", "delivered", "delivered"),
    2: CodeMeaning("sent", "failed", "not delivered"),
    3: CodeMeaning("sent", "failed", "telecom error"),
    5: CodeMeaning("sent", "failed", "unknown error"),
    8: CodeMeaning("sent", "sent", "reached telecom"),
    16: CodeMeaning("sent", "failed", "did not reach telecom"),
    35: CodeMeaning("rejected", "rejected", "blacklist"),
    100: CodeMeaning("unknown", "", "unknown"),
    200: CodeMeaning("sent", "sent", "sent"),
    300: CodeMeaning("rejected", "rejected", "filtered"),
    400: CodeMeaning("sent", "submitted", "in send list"),
    500: CodeMeaning("rejected", "rejected", "not accepted"),
}


class MelipayamakCredentials(serializers.Serializer):
    username = StrictCharField(label="نام کاربری", max_length=100)
    password = StrictCharField(label="گذرواژه", max_length=200)


class MelipayamakProvider(Provider):
    kind = "melipayamak"
    label = "ملی‌پیامک"
    default_url = "https://rest.payamak-panel.com"
    credentials_serializer = MelipayamakCredentials
    status_by_message_id = True
    status_batch_size = 1
    send_codes = SEND_CODES
    delivery_codes = DELIVERY_CODES

    def _url(self, method: str) -> str:
        return f"{base_url(self.kind, self.default_url)}/api/SendSMS/{method}"

    def send(self, credentials, request: SendRequest) -> SendResponse:
        outcome = post_form(
            self._url("SendSMS"),
            {
                "username": credentials.get("username", ""),
                "password": credentials.get("password", ""),
                "to": national(request.phone),
                "from": request.sender,
                "text": request.text,
                "isFlash": "false",
            },
        )
        failure = transport_failure(outcome)
        if failure:
            return failure
        body = outcome.body if isinstance(outcome.body, dict) else {}
        try:
            ret = int(body.get("RetStatus"))
        except (TypeError, ValueError):  # a gateway 5xx page or foreign JSON: the request may have been accepted
            return SendResponse(
                "unknown", error_code=f"http_{outcome.status}", error_message="not a provider answer", raw=body
            )
        text = str(body.get("StrRetStatus", ""))[:500]
        result = SEND_CODES.get(ret, "failed")
        if result == "submitted":
            return SendResponse("submitted", message_id=str(body.get("Value", "")), raw=body)
        return SendResponse(result, error_code=str(ret), error_message=text or SEND_LABELS.get(ret, "error"), raw=body)

    def query_status(self, credentials, *, local_ids=(), message_ids=()) -> dict[str, StatusAnswer]:
        answers: dict[str, StatusAnswer] = {}
        for rec_id in message_ids:
            outcome = post_form(
                self._url("GetDeliveries2"),
                {
                    "username": credentials.get("username", ""),
                    "password": credentials.get("password", ""),
                    "recId": rec_id,
                },
            )
            body = outcome.body if outcome.status is not None and isinstance(outcome.body, dict) else {}
            try:
                ret = int(body.get("RetStatus"))
                value = int(body.get("Value"))
            except (TypeError, ValueError):
                continue  # no usable answer: asked again later
            if ret != 1:
                continue
            answers[rec_id] = self.answer_for(value, message_id=rec_id, raw=body)
        return answers


class Fixtures:
    """Melipayamak's wire answers, for the fake server of the tests."""

    @staticmethod
    def send(ret: int, rec_id: str = "") -> tuple[int, dict]:
        value = rec_id if ret == 1 else str(ret)
        return 200, {"Value": value, "RetStatus": ret, "StrRetStatus": "Ok" if ret == 1 else SEND_LABELS.get(ret, "")}

    @staticmethod
    def delivery(code: int) -> tuple[int, dict]:
        return 200, {"Value": str(code), "RetStatus": 1, "StrRetStatus": "Ok"}


MelipayamakProvider.fixtures = Fixtures
PROVIDER = MelipayamakProvider()
