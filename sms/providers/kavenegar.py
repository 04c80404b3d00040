"""Kavenegar: ``POST /v1/{APIKEY}/sms/{method}.json`` (form) → ``return.status`` + ``entries[]``.

Sends go in batches (docs/sms.md "Batched sends"): ``sms/send`` takes one text for up to 200 receptors with
one ``localid`` per receptor (both comma-separated, same order); ``sms/sendarray`` takes per-row senders,
receptors and texts (JSON arrays of equal length) with ``localmessageids``. Each entry of the answer is one
receptor's result. ``sms/send`` carries our numeric ``localid``; ``sms/statuslocalmessageid`` answers "was local id N
sent?" (unknown outcomes are settled with it) and ``sms/status`` answers by message id (delivery is
polled: the push format is not verified, seed D6). Both take comma-separated ids.
"""

from __future__ import annotations

import json
from datetime import datetime

from rest_framework import serializers

from campaigns.platform.text import StrictCharField
from sms.providers.base import (
    CodeMeaning,
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
    409: "throttled",  # server busy: back off, never a failure of the target
    411: "rejected",  # bad receptor
    412: "rejected",  # bad sender
    413: "rejected",  # bad message
    414: "throttled",  # too many requests/records
    417: "rejected",  # bad time
    418: "unavailable",  # insufficient credit
    419: "rejected",  # array lengths differ (sendarray)
    424: "rejected",  # template not found
    451: "throttled",  # too many calls from this address
}
BATCH = 200  # receptors per sms/send, rows per sms/sendarray
STATUS_BY_LOCAL_ID = 200  # ids per sms/statuslocalmessageid
STATUS_BY_MESSAGE_ID = 500  # ids per sms/status
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


def _match_entries(entries: list[dict], rows: list[SendRequest]) -> list[dict | None]:
    """Each row's entry: by its local id when the entries carry them, else by position when there is one
    entry per row, else by receptor (first unused); None when the answer names no entry for it."""
    if not entries:
        return [{} for _ in rows]
    found: list[dict | None] = [None] * len(rows)
    by_local = {str(e.get("localid")): e for e in entries if e.get("localid") not in (None, "")}
    if by_local:
        found = [by_local.get(r.local_id) for r in rows]
        if all(f is not None for f in found):
            return found
    if len(entries) == len(rows) and not by_local:
        return list(entries)
    unused: dict[str, list[dict]] = {}
    for e in entries:
        if e not in found:
            unused.setdefault(str(e.get("receptor", "")), []).append(e)
    for position, row in enumerate(rows):
        if found[position] is None and unused.get(national(row.phone)):
            found[position] = unused[national(row.phone)].pop(0)
    return found


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
    status_by_receptor = True
    status_batch_size = STATUS_BY_LOCAL_ID
    message_status_batch_size = STATUS_BY_MESSAGE_ID
    delivery_status_hours = 48  # ``sms/status`` answers about messages of the last 48 hours
    batch_size = BATCH
    send_codes = SEND_CODES
    no_credit_codes = frozenset({"418"})  # insufficient credit
    delivery_codes = ENTRY_CODES
    # Entry status 14 (filtered: the number refuses advertising), at the send (``entry_14``) or in a status answer.
    ad_blocked_codes = frozenset({"14", "entry_14"})
    credit_query = True

    def _url(self, credentials, method: str) -> str:
        return f"{base_url(self.kind, self.default_url)}/v1/{credentials.get('api_key', '')}/sms/{method}.json"

    def query_credit(self, credentials, *, unit: str = "rial") -> int | None:
        """``account/info``: ``entries.remaincredit`` (rials)."""
        url = f"{base_url(self.kind, self.default_url)}/v1/{credentials.get('api_key', '')}/account/info.json"
        answer = _answer(post_form(url, {}))
        if answer is None or answer[0] != 200:
            return None
        entries = answer[2].get("entries")
        try:
            return int(float(entries.get("remaincredit")))
        except (AttributeError, TypeError, ValueError):
            return None

    def send_batch(self, credentials, requests: list[SendRequest]) -> list[SendResponse]:
        """One text to many receptors per ``sms/send``; the texts met once go together through
        ``sms/sendarray`` (per-row sender, receptor, text)."""
        answers: list[SendResponse | None] = [None] * len(requests)
        calls = groups_of(requests, BATCH)
        singles = [c[0] for c in calls if len(c) == 1]
        calls = [c for c in calls if len(c) > 1]
        if len(singles) == 1:
            calls.append(singles)
        elif singles:
            calls += [["array", *singles[i : i + BATCH]] for i in range(0, len(singles), BATCH)]
        for call in calls:
            if call[0] == "array":
                positions = call[1:]
                rows = [requests[p] for p in positions]
                form = {
                    "receptor": json.dumps([national(r.phone) for r in rows]),
                    "sender": json.dumps([r.sender for r in rows]),
                    "message": json.dumps([r.text for r in rows], ensure_ascii=False),
                    "localmessageids": json.dumps([r.local_id for r in rows]),
                }
                method = "sendarray"
            else:
                positions = call
                rows = [requests[p] for p in positions]
                form = {
                    "receptor": ",".join(national(r.phone) for r in rows),
                    "sender": rows[0].sender,
                    "message": rows[0].text,
                    "localid": ",".join(r.local_id for r in rows),
                }
                method = "send"
            for position, answer in zip(positions, self._send_call(credentials, method, form, rows), strict=True):
                answers[position] = answer
        return answers

    def _send_call(self, credentials, method: str, form: dict, rows: list[SendRequest]) -> list[SendResponse]:
        outcome = post_form(self._url(credentials, method), form)
        failure = transport_failure(outcome)
        if failure:
            return copies(failure, len(rows))
        answer = _answer(outcome)
        if answer is None:  # a proxy/gateway page or foreign JSON: the request may have been accepted
            raw = outcome.body if isinstance(outcome.body, dict) else {}
            return copies(
                SendResponse("unknown", "", f"http_{outcome.status}", "not a provider answer", raw), len(rows)
            )
        code, message, body = answer
        if code != 200:  # a refusal of the whole call (any the table does not name is retryable)
            return copies(SendResponse(SEND_CODES.get(code, "failed"), "", str(code), message, body), len(rows))
        entries = [e for e in (body.get("entries") or []) if isinstance(e, dict)]
        return [self._entry_result(entry) for entry in _match_entries(entries, rows)]

    def _entry_result(self, entry: dict | None) -> SendResponse:
        if entry == {}:  # the call was accepted without any entry: accepted, no message id (polled by local id)
            return SendResponse("submitted")
        if entry is None:  # other receptors have entries, this one none: asked by local id
            return SendResponse("unknown", error_code="no_entry", error_message="no entry for this receptor")
        meaning = self.meaning(entry.get("status"))
        message_id = str(entry.get("messageid", "") or "")
        if meaning.state in ("rejected", "not_sent"):
            code = f"entry_{entry.get('status')}"
            return SendResponse("rejected", message_id, code, str(entry.get("statustext", "")), entry)
        return SendResponse("submitted", message_id, raw=entry)

    def query_by_receptor(self, credentials, *, phone: str, start: datetime, end: datetime) -> list[dict] | None:
        """``sms/statusbyreceptor``: a receptor and a range of at most a day (unix seconds)."""
        form = {"receptor": national(phone), "startdate": int(start.timestamp()), "enddate": int(end.timestamp())}
        outcome = post_form(self._url(credentials, "statusbyreceptor"), form)
        answer = _answer(outcome) if outcome.status is not None and outcome.readable else None
        if answer is None or answer[0] != 200:
            return None
        return [e for e in (answer[2].get("entries") or []) if isinstance(e, dict)]

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

    # --- inbox (sms/receive: one line per request; ``isread=0`` hands over the unread ones, marked read) ---
    receives = True

    def receive_lines(self, account) -> list[str]:
        return list(account.senders or [])

    def receive(self, credentials, *, line: str, cursor: str):
        from sms.inbound.providers import kavenegar_inbox

        outcome = post_form(self._url(credentials, "receive"), {"linenumber": line, "isread": 0})
        answer = _answer(outcome) if outcome.status is not None and outcome.readable else None
        return kavenegar_inbox(answer[2] if answer and answer[0] == 200 else None, line=line)


class Fixtures:
    """Kavenegar's wire answers, for the fake server of the tests."""

    @staticmethod
    def account_info(credit: int) -> tuple[int, dict]:
        entries = {"remaincredit": credit, "expiredate": 1893456000, "type": "master"}
        return 200, {"return": {"status": 200, "message": "تایید شد"}, "entries": entries}

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

    @staticmethod
    def inbox_entry(message_id: int, sender: str, receptor: str, message: str, date: int) -> dict:
        """An ``sms/receive`` entry."""
        return {"messageid": message_id, "message": message, "sender": sender, "receptor": receptor, "date": date}


KavenegarProvider.fixtures = Fixtures
PROVIDER = KavenegarProvider()
