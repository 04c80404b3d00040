"""Kavenegar: ``POST /v1/{APIKEY}/sms/{method}.json`` (form) → ``return.status`` + ``entries[]``.

``sms/send`` carries our numeric ``localid``; ``sms/statuslocalmessageid`` answers "was local id N
sent?" (unknown outcomes are settled with it) and ``sms/status`` answers by message id (delivery is
polled: the push format is not verified, seed D6). Both take comma-separated ids.
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

# ``return.status`` of a send → our result (sms-providers.md "Mapping to our results").
SEND_CODES = {
    200: "submitted",
    400: "rejected",  # argument error
    401: "unavailable",  # account disabled
    402: "failed",  # failed (the provider answered: retryable)
    403: "unavailable",  # bad API key
    404: "rejected",  # unknown method
    405: "rejected",  # wrong verb
    406: "rejected",  # missing field
    407: "unavailable",  # no permission
    409: "failed",  # server unavailable
    411: "rejected",  # bad receptor
    412: "rejected",  # bad sender
    413: "rejected",  # bad message
    414: "failed",  # request limit
    417: "rejected",  # bad time
    418: "unavailable",  # insufficient credit
    424: "rejected",  # template not found
}
# Entry status (send answer, ``sms/status``, ``sms/statuslocalmessageid``).
ENTRY_CODES = {
    1: CodeMeaning("sent", "submitted", "queued"),
    2: CodeMeaning("sent", "submitted", "scheduled"),
    4: CodeMeaning("sent", "sent", "sent to centre"),
    5: CodeMeaning("sent", "sent", "sent to carrier"),
    6: CodeMeaning("rejected", "failed", "failed"),
    10: CodeMeaning("sent", "delivered", "delivered"),
    11: CodeMeaning("sent", "failed", "undelivered"),  # it left us: never resend
    13: CodeMeaning("rejected", "rejected", "cancelled"),
    14: CodeMeaning("rejected", "rejected", "filtered"),
    50: CodeMeaning("sent", "delivered", "received"),
    100: CodeMeaning("not_sent", "", "invalid / no such message"),
}


class KavenegarCredentials(serializers.Serializer):
    api_key = StrictCharField(label="کلید API", max_length=200)


def _answer(outcome):
    """(return.status, message, body) of a Kavenegar answer, or None when it is not Kavenegar's JSON."""
    body = outcome.body if isinstance(outcome.body, dict) else {}
    ret = body.get("return")
    if not isinstance(ret, dict) or not isinstance(ret.get("status"), int):
        return None
    return ret["status"], str(ret.get("message", ""))[:500], body


class KavenegarProvider(Provider):
    kind = "kavenegar"
    label = "کاوه‌نگار"
    default_url = "https://api.kavenegar.com"
    credentials_serializer = KavenegarCredentials
    status_by_local_id = True
    status_by_message_id = True
    status_batch_size = 100
    send_codes = SEND_CODES
    delivery_codes = ENTRY_CODES

    def _url(self, credentials, method: str) -> str:
        return f"{base_url(self.kind, self.default_url)}/v1/{credentials.get('api_key', '')}/sms/{method}.json"

    def send(self, credentials, request: SendRequest) -> SendResponse:
        outcome = post_form(
            self._url(credentials, "send"),
            {
                "receptor": national(request.phone),
                "sender": request.sender,
                "message": request.text,
                "localid": request.local_id,
            },
        )
        failure = transport_failure(outcome)
        if failure:
            return failure
        answer = _answer(outcome)
        if answer is None:  # a proxy/gateway page or foreign JSON: the request may have been accepted
            return SendResponse(
                "unknown",
                error_code=f"http_{outcome.status}",
                error_message="not a provider answer",
                raw=outcome.body if isinstance(outcome.body, dict) else {},
            )
        code, message, body = answer
        if code == 200:
            entries = body.get("entries") or []
            entry = entries[0] if entries and isinstance(entries[0], dict) else {}
            meaning = self.meaning(entry.get("status"))
            if meaning.state in ("rejected", "not_sent"):
                return SendResponse(
                    "rejected",
                    str(entry.get("messageid", "")),
                    f"entry_{entry.get('status')}",
                    str(entry.get("statustext", "")),
                    body,
                )
            return SendResponse("submitted", str(entry.get("messageid", "") or ""), raw=body)
        # Any other refusal the provider itself answered with is retryable.
        return SendResponse(SEND_CODES.get(code, "failed"), error_code=str(code), error_message=message, raw=body)

    def query_status(self, credentials, *, local_ids=(), message_ids=()) -> dict[str, StatusAnswer]:
        answers: dict[str, StatusAnswer] = {}
        for method, field, ids, key in (
            ("statuslocalmessageid", "localid", list(local_ids), "localid"),
            ("status", "messageid", list(message_ids), "messageid"),
        ):
            if not ids:
                continue
            outcome = post_form(self._url(credentials, method), {field: ",".join(ids)})
            answer = _answer(outcome) if outcome.status is not None and outcome.readable else None
            if answer is None or answer[0] != 200:
                continue  # no usable answer: the caller asks again later
            entries = [e for e in (answer[2].get("entries") or []) if isinstance(e, dict)]
            for position, entry in enumerate(entries):
                asked = str(entry.get(key) or "") or (ids[position] if len(entries) == len(ids) else "")
                if asked in ids:
                    answers[asked] = self.answer_for(
                        entry.get("status"), message_id=str(entry.get("messageid", "") or ""), raw=entry
                    )
        return answers


class Fixtures:
    """Kavenegar's wire answers, for the fake server of the tests."""

    @staticmethod
    def entry(message_id: int, status: int, local_id: str = "", receptor: str = "") -> dict:
        return {
            "messageid": message_id,
            "localid": local_id,
            "status": status,
            "statustext": ENTRY_CODES[status].label if status in ENTRY_CODES else "",
            "receptor": receptor,
        }

    @staticmethod
    def ok(entries: list[dict]) -> tuple[int, dict]:
        return 200, {"return": {"status": 200, "message": "تایید شد"}, "entries": entries}

    @staticmethod
    def error(code: int) -> tuple[int, dict]:
        return code, {"return": {"status": code, "message": "خطا"}, "entries": None}


KavenegarProvider.fixtures = Fixtures
PROVIDER = KavenegarProvider()
