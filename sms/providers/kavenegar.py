"""Kavenegar: ``POST /v1/{APIKEY}/sms/send.json`` (form) → ``return.status`` + ``entries[]``."""

from .base import Provider, SendRequest, SendResponse, base_url, national, post_form, transport_failure

REJECTED = {400, 404, 405, 406, 411, 412, 413, 417, 424}
UNAVAILABLE = {401, 403, 407, 418}
FAILED = {402, 409, 414}
ENTRY_ACCEPTED = {1, 2, 4, 5, 10}
ENTRY_REJECTED = {6, 11, 13, 14, 100}


class KavenegarProvider(Provider):
    kind = "kavenegar"
    default_url = "https://api.kavenegar.com"

    def credentials_problem(self, credentials) -> str | None:
        return None if credentials.get("api_key") else "kavenegar api_key missing"

    def send(self, credentials, request: SendRequest) -> SendResponse:
        url = f"{base_url(self.kind, self.default_url)}/v1/{credentials.get('api_key', '')}/sms/send.json"
        outcome = post_form(
            url,
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
        body = outcome.body if isinstance(outcome.body, dict) else {}
        ret = body.get("return") or {}
        code = ret.get("status") if isinstance(ret.get("status"), int) else outcome.status
        message = str(ret.get("message", ""))[:500]
        if code == 200:
            entries = body.get("entries") or []
            entry = entries[0] if entries else {}
            entry_status = entry.get("status")
            if entry_status in ENTRY_REJECTED:
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
        elif code in FAILED or (isinstance(code, int) and code >= 500):
            status = "failed"
        else:
            status = "failed"
        return SendResponse(status, error_code=str(code), error_message=message, raw=body)
