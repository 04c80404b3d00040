"""Kavenegar: ``POST /v1/{APIKEY}/sms/send.json`` (form) → ``return.status`` + ``entries[]``;
``sms/statuslocalmessageid.json`` answers "was local id N sent?" after an unknown outcome."""

from sms.providers.base import (
    Provider,
    SendRequest,
    SendResponse,
    StatusAnswer,
    base_url,
    national,
    post_form,
    transport_failure,
)

REJECTED = {400, 404, 405, 406, 411, 412, 413, 417, 424}
UNAVAILABLE = {401, 403, 407, 418}
FAILED = {402, 409, 414}
# Entry status: 1 queued, 2 scheduled, 4 sent to centre, 5 sent to carrier, 10 delivered, 11 undelivered
# (it left us: never resend), 13 cancelled, 14 filtered, 100 invalid (no such message).
ENTRY_ACCEPTED = {1, 2, 4, 5, 10, 11}
ENTRY_REJECTED = {6, 13, 14}
ENTRY_NOT_FOUND = 100


def _answer(outcome):
    """(return.status, message, body) of a Kavenegar answer, or None when it is not Kavenegar's JSON."""
    body = outcome.body if isinstance(outcome.body, dict) else {}
    ret = body.get("return")
    if not isinstance(ret, dict) or not isinstance(ret.get("status"), int):
        return None
    return ret["status"], str(ret.get("message", ""))[:500], body


class KavenegarProvider(Provider):
    kind = "kavenegar"
    default_url = "https://api.kavenegar.com"
    has_status_query = True

    def credentials_problem(self, credentials) -> str | None:
        return None if credentials.get("api_key") else "kavenegar api_key missing"

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
            entry_status = entry.get("status")
            if entry_status in ENTRY_REJECTED or entry_status == ENTRY_NOT_FOUND:
                return SendResponse(
                    "rejected",
                    str(entry.get("messageid", "")),
                    f"entry_{entry_status}",
                    str(entry.get("statustext", "")),
                    body,
                )
            return SendResponse("submitted", str(entry.get("messageid", "") or ""), raw=body)
        if code in REJECTED:
            status = "rejected"
        elif code in UNAVAILABLE:
            status = "unavailable"
        else:  # 402, 409, 414 and any other refusal the provider itself answered with: retryable
            status = "failed"
        return SendResponse(status, error_code=str(code), error_message=message, raw=body)

    def query_status(self, credentials, local_id: str) -> StatusAnswer:
        outcome = post_form(self._url(credentials, "statuslocalmessageid"), {"localid": local_id})
        answer = _answer(outcome) if outcome.status is not None and outcome.readable else None
        if answer is None:
            return StatusAnswer("unknown", error_code=outcome.error or f"http_{outcome.status}")
        code, _, body = answer
        if code != 200:
            return StatusAnswer("unknown", error_code=str(code), raw=body)
        entries = body.get("entries") or []
        entry = entries[0] if entries and isinstance(entries[0], dict) else {}
        status = entry.get("status")
        message_id = str(entry.get("messageid", "") or "")
        if status == ENTRY_NOT_FOUND:
            return StatusAnswer("not_sent", raw=body)
        if status in ENTRY_ACCEPTED:
            return StatusAnswer("sent", message_id=message_id, raw=body)
        if status in ENTRY_REJECTED:
            return StatusAnswer("rejected", message_id=message_id, error_code=f"entry_{status}", raw=body)
        return StatusAnswer("unknown", error_code=f"entry_{status}", raw=body)
