"""Melipayamak legacy REST: ``POST /api/SendSMS/{SendSMS|GetDeliveries2}`` (form) → ``{Value, RetStatus,
StrRetStatus}``.

No status query by our local id exists: an unknown outcome follows the step's ``on_unknown_outcome``.
Delivery is polled by the provider's message id (``recId``) with ``GetDeliveries2``, one id per call.
"""

from __future__ import annotations

from rest_framework import serializers

from campaigns.platform.jalali import fa_digits
from campaigns.platform.text import StrictCharField
from sms.providers.base import (
    CodeMeaning,
    PriceQueryFailed,
    Provider,
    SendRequest,
    SendResponse,
    StatusAnswer,
    base_url,
    copies,
    groups_of,
    national,
    post_form,
    transport_failure,
)

# RetStatus of a send → our result (help pages).
SEND_CODES = {
    0: "unavailable",  # wrong username/password
    1: "submitted",
    2: "unavailable",  # insufficient credit
    3: "throttled",  # daily send limit: back off, never a failure of the target
    4: "throttled",  # volume limit
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
BATCH = 100  # numbers per SendSMS (one text)
# ``GetSmsPrice`` (Send.asmx) prices a text for counts of two operators' numbers: ``irancellCount`` (Irancell) and
# ``mtnCount`` (read as MCI, Hamrah-e Aval: Irancell has its own count). RighTel is not priced by the provider.
PRICE_COUNTS = {"irancell": ("irancellCount", "mtnCount"), "mci": ("mtnCount", "irancellCount")}
# A one-part Persian text (UCS-2, under 70 characters): what a part of the campaigns' texts costs.
PRICE_PROBE_TEXT = "آزمون بهای یک بخش پیامک"
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
    batch_size = BATCH
    send_codes = SEND_CODES
    delivery_codes = DELIVERY_CODES
    # Delivery status 35: the number is on the operators' advertising blacklist.
    ad_blocked_codes = frozenset({"35"})
    # Send code 7: the text carries a word the provider filters.
    filtered_word_codes = frozenset({"7"})
    no_credit_codes = frozenset({"2"})  # insufficient credit
    credit_query = True
    # ``GetCredit`` gives the credit in messages (its help page since 1402: «بر حسب تعداد پیامک»; docs/sms.md
    # "Credit"), not rials.
    credit_unit = "message"
    price_query = True

    def _url(self, method: str) -> str:
        return f"{base_url(self.kind, self.default_url)}/api/SendSMS/{method}"

    def query_credit(self, credentials, *, unit: str = "rial") -> int | None:
        """``GetCredit``: ``Value`` is the credit left in messages (``RetStatus`` 1); a fraction (the panel keeps
        one) is dropped, so the check never counts a message the credit cannot pay."""
        form = {"username": credentials.get("username", ""), "password": credentials.get("password", "")}
        outcome = post_form(self._url("GetCredit"), form)
        body = outcome.body if outcome.sent and isinstance(outcome.body, dict) else {}
        try:
            if int(body.get("RetStatus")) != 1:
                return None
            return int(float(body.get("Value")))
        except (TypeError, ValueError):
            return None

    def query_prices(self, credentials, *, sender: str) -> dict[str, int]:
        """``GetSmsPrice`` (ASMX HTTP POST on ``/post/Send.asmx``, an XML answer holding one number) asked once
        per operator it prices, for one number of that operator and a one-part text from ``sender``: the price
        of one message part of this account. Any answer that is not a positive number fails the whole read (the
        last known prices stay)."""
        from sms.inbound.transport import post_form_text, xml_scalar

        # The ASMX host; a configured Melipayamak URL (a proxy, the tests' fake) serves it too.
        host = base_url("melipayamak_asmx", base_url(self.kind, "https://api.payamak-panel.com"))
        url = f"{host}/post/Send.asmx/GetSmsPrice"
        prices: dict[str, int] = {}
        for operator, (counted, other) in PRICE_COUNTS.items():
            form = {
                "username": credentials.get("username", ""),
                "password": credentials.get("password", ""),
                counted: 1,
                other: 0,
                "from": sender,
                "text": PRICE_PROBE_TEXT,
            }
            status, text = post_form_text(url, form)
            if status is None:
                raise PriceQueryFailed("سرویس‌دهنده پاسخ نداد.")
            if status != 200:
                raise PriceQueryFailed(f"سرویس‌دهنده با خطای {fa_digits(status)} پاسخ داد.")
            value = xml_scalar(text)
            try:
                price = float(value or "")
            except ValueError:
                raise PriceQueryFailed("پاسخ سرویس‌دهنده بها نبود.") from None
            if price <= 0:  # 0 (wrong username/password, as GetCredit answers on SOAP) or a negative error code
                raise PriceQueryFailed(f"سرویس‌دهنده بها را نداد (کد {fa_digits(int(price))}).")
            prices[operator] = round(price)
        return prices

    def send_batch(self, credentials, requests: list[SendRequest]) -> list[SendResponse]:
        """One ``SendSMS`` per sender and text, up to 100 numbers (comma-separated ``to``); the answer's
        ``Value`` holds one ``recId`` per number, in order."""
        answers: list[SendResponse | None] = [None] * len(requests)
        for positions in groups_of(requests, BATCH):
            rows = [requests[p] for p in positions]
            form = {
                "username": credentials.get("username", ""),
                "password": credentials.get("password", ""),
                "to": ",".join(national(r.phone) for r in rows),
                "from": rows[0].sender,
                "text": rows[0].text,
                "isFlash": "false",
            }
            for position, answer in zip(positions, self._send_call(form, len(rows)), strict=True):
                answers[position] = answer
        return answers

    def _send_call(self, form: dict, count: int) -> list[SendResponse]:
        outcome = post_form(self._url("SendSMS"), form)
        failure = transport_failure(outcome)
        if failure:
            return copies(failure, count)
        body = outcome.body if isinstance(outcome.body, dict) else {}
        try:
            ret = int(body.get("RetStatus"))
        except (TypeError, ValueError):  # a gateway 5xx page or foreign JSON: the request may have been accepted
            return copies(SendResponse("unknown", "", f"http_{outcome.status}", "not a provider answer", body), count)
        text = str(body.get("StrRetStatus", ""))[:500]
        result = SEND_CODES.get(ret, "failed")
        if result != "submitted":
            return copies(SendResponse(result, "", str(ret), text or SEND_LABELS.get(ret, "error"), body), count)
        value = body.get("Value", "")
        rec_ids = [str(v).strip() for v in (value if isinstance(value, list) else str(value).split(","))]
        if len(rec_ids) != count:  # accepted, but the ids cannot be told apart: no delivery poll for these
            rec_ids = [""] * count
        return [
            SendResponse("submitted", message_id=rec_id, raw={"Value": rec_id, "RetStatus": ret}) for rec_id in rec_ids
        ]

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

    # --- inbox: ``GetMessagesAfterID`` (Receive.asmx, HTTP POST, XML) with a message-id cursor, or the push ---
    receives = True
    pushes_replies = True

    def receive_lines(self, account) -> list[str]:
        return [""]  # every line of the account in one request (``from`` empty), after the cursor

    def receive(self, credentials, *, line: str, cursor: str):
        from sms.inbound.providers import MELIPAYAMAK_RECEIVE_BATCH, melipayamak_inbox
        from sms.inbound.transport import post_form_text

        status, text = post_form_text(
            f"{base_url('melipayamak_receive', 'https://api.payamak-panel.com')}/post/Receive.asmx/GetMessagesAfterID",
            {
                "username": credentials.get("username", ""),
                "password": credentials.get("password", ""),
                "location": 1,  # received messages
                "from": line,
                "count": MELIPAYAMAK_RECEIVE_BATCH,
                "msgId": cursor or "0",
            },
        )
        return melipayamak_inbox(text if status == 200 else None, cursor=cursor)

    def parse_inbound_push(self, params):
        from sms.inbound.providers import melipayamak_push

        return melipayamak_push(params)


class Fixtures:
    """Melipayamak's wire answers, for the fake server of the tests."""

    @staticmethod
    def credit(value: float) -> tuple[int, dict]:
        return 200, {"Value": str(value), "RetStatus": 1, "StrRetStatus": "Ok"}

    @staticmethod
    def price(value: float) -> tuple[int, str]:
        """A ``GetSmsPrice`` answer (ASMX HTTP POST: the method's one number in an XML root element)."""
        return 200, f'<?xml version="1.0" encoding="utf-8"?>\n<double xmlns="http://tempuri.org/">{value}</double>'

    @staticmethod
    def send(ret: int, rec_id: str = "") -> tuple[int, dict]:
        value = rec_id if ret == 1 else str(ret)
        return 200, {"Value": value, "RetStatus": ret, "StrRetStatus": "Ok" if ret == 1 else SEND_LABELS.get(ret, "")}

    @staticmethod
    def delivery(code: int) -> tuple[int, dict]:
        return 200, {"Value": str(code), "RetStatus": 1, "StrRetStatus": "Ok"}

    @staticmethod
    def inbox(rows: list[dict]) -> str:
        """A ``GetMessagesAfterID`` answer (ASMX HTTP POST: ``ArrayOfMessagesBL``); rows: MsgID, Body, SendDate,
        Sender, Receiver."""
        from xml.sax.saxutils import escape

        items = "".join(
            "<MessagesBL>" + "".join(f"<{k}>{escape(str(v))}</{k}>" for k, v in row.items()) + "</MessagesBL>"
            for row in rows
        )
        return (
            '<?xml version="1.0" encoding="utf-8"?>'
            f'<ArrayOfMessagesBL xmlns="http://tempuri.org/">{items}</ArrayOfMessagesBL>'
        )


MelipayamakProvider.fixtures = Fixtures
PROVIDER = MelipayamakProvider()
