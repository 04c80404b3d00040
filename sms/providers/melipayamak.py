"""Melipayamak legacy REST: ``POST /api/SendSMS/SendSMS`` (form) → ``{Value, RetStatus, StrRetStatus}``.

No status query by our local id exists: an unknown outcome follows the step's ``on_unknown_outcome``.
"""

from sms.providers.base import Provider, SendRequest, SendResponse, base_url, national, post_form, transport_failure

# RetStatus codes from the provider's help pages.
REJECTED = {
    5: "invalid sender",
    7: "filtered word",
    14: "text contains a link",
    15: "several recipients without opt-out",
}
UNAVAILABLE = {
    0: "wrong username/password",
    2: "insufficient credit",
    9: "public lines not allowed",
    10: "user inactive",
    12: "documents incomplete",
}
FAILED = {3: "daily send limit", 4: "volume limit", 6: "system updating", 11: "not sent"}


class MelipayamakProvider(Provider):
    kind = "melipayamak"
    default_url = "https://rest.payamak-panel.com"

    def credentials_problem(self, credentials) -> str | None:
        return (
            None if credentials.get("username") and credentials.get("password") else "melipayamak credentials missing"
        )

    def send(self, credentials, request: SendRequest) -> SendResponse:
        url = f"{base_url(self.kind, self.default_url)}/api/SendSMS/SendSMS"
        outcome = post_form(
            url,
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
        if ret == 1:
            value = str(body.get("Value", ""))
            return SendResponse("submitted", message_id=value, raw=body)
        if ret in REJECTED:
            return SendResponse("rejected", error_code=str(ret), error_message=text or REJECTED[ret], raw=body)
        if ret in UNAVAILABLE:
            return SendResponse("unavailable", error_code=str(ret), error_message=text or UNAVAILABLE[ret], raw=body)
        return SendResponse("failed", error_code=str(ret), error_message=text or FAILED.get(ret, "error"), raw=body)
