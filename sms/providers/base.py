"""The provider plug-in interface and a small stdlib HTTP helper with timeouts.

A provider is one module (``sms/providers/<kind>.py``) defining a ``Provider`` subclass — adapter,
credential schema (a DRF serializer), code mapping, status query, delivery-report parser and wire
fixtures for the fake servers of the tests — and one line in ``sms.providers.BUILTIN``.

Send results (sms-providers.md "Mapping to our results"): ``submitted`` (accepted, message id kept),
``rejected`` (bad number/sender/text: not retryable), ``failed`` (the request never left — DNS,
refused, TLS handshake — or the provider itself answered with a retryable refusal), ``unavailable``
(credit, disabled account, auth: circuit breaker, no retry consumed), ``throttled`` (the provider refused
the call for its rate — "too many requests" or "busy": nothing accepted, the account backs off for every
worker and the send is deferred, never failed), ``unknown`` (anything after the
request bytes were written: read timeout, reset, truncated or unreadable body, a gateway/proxy 5xx —
the provider may have accepted it; settled by a status query by local id, never resent blindly).
"""

from __future__ import annotations

import http.client
import json
import os
import select
import ssl
import threading
import urllib.parse
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, ClassVar

from django.conf import settings
from rest_framework import serializers


@dataclass(frozen=True)
class SendRequest:
    phone: str  # E.164
    text: str
    sender: str
    local_id: str  # digits: one per execution + cycle + node (the send slot), the same on every retry


@dataclass
class SendResponse:
    status: str  # submitted | rejected | failed | unavailable | throttled | unknown
    message_id: str = ""
    error_code: str = ""
    error_message: str = ""
    raw: dict[str, Any] = field(default_factory=dict)


@dataclass
class StatusAnswer:
    """The provider's answer about one message, asked by our local id or by its message id.

    ``state`` answers "was it sent?" (the unknown-outcome settling): sent | not_sent (no such message) |
    rejected | unknown (no usable answer). ``status`` is what the answer means for the attempt's delivery
    status (``submitted``, ``sent``, ``delivered``, ``failed``, ``rejected``) or "" when it says nothing new.
    """

    state: str
    message_id: str = ""
    error_code: str = ""
    raw: dict[str, Any] = field(default_factory=dict)
    status: str = ""
    provider_status: str = ""


@dataclass(frozen=True)
class CodeMeaning:
    """One provider delivery/entry code: the settling state and the attempt status it leads to."""

    state: str  # sent | not_sent | rejected | unknown
    status: str  # submitted | sent | delivered | failed | rejected | "" (nothing new)
    label: str


class NoCredentials(serializers.Serializer):
    """A provider that needs no credentials (console)."""


class Provider:
    kind: ClassVar[str] = ""
    label: ClassVar[str] = ""
    default_url: ClassVar[str] = ""
    credentials_serializer: ClassVar[type[serializers.Serializer]] = NoCredentials
    # Answers "was local id N sent?" (Kavenegar ``sms/statuslocalmessageid``): unknown outcomes are settled.
    status_by_local_id: ClassVar[bool] = False
    # Answers "what became of message id M?" (Kavenegar ``sms/status``, Melipayamak ``GetDeliveries2``).
    status_by_message_id: ClassVar[bool] = False
    # Answers "what was sent to this number in this day?" (Kavenegar ``sms/statusbyreceptor``): the fallback
    # for unknown outcomes older than the local-id window.
    status_by_receptor: ClassVar[bool] = False
    # Ids per status request (one HTTP call): by local id, and by message id (0 = the same).
    status_batch_size: ClassVar[int] = 1
    message_status_batch_size: ClassVar[int] = 0
    # Hours after a send that the provider still answers its status (Kavenegar ``sms/status``: 48); None = the
    # delivery poll's ``SMS_DELIVERY_POLL_MAX_AGE_HOURS``. Past it the attempt is no longer polled and one still
    # without a final report is closed as sent (``sms.delivery.reports_close``).
    delivery_status_hours: ClassVar[int | None] = None
    # Recipients per send call (``send_batch`` splits a longer list into calls of at most this many).
    batch_size: ClassVar[int] = 1
    # Send result per provider code, and delivery meaning per provider entry/delivery code.
    send_codes: ClassVar[dict[int, str]] = {}
    delivery_codes: ClassVar[dict[int, CodeMeaning]] = {}
    # The codes that say "this number is on the operators' blacklist for advertising" (a send entry's error code
    # or a delivery status, as stored on the attempt): the number is remembered (``sms.telecom_blocks``).
    ad_blocked_codes: ClassVar[frozenset[str]] = frozenset()
    # Send answers meaning "the text carries a filtered word" (Melipayamak 7): the account keeps the words and the
    # refused text (``sms.filtered_words``).
    filtered_word_codes: ClassVar[frozenset[str]] = frozenset()
    # Send answers meaning "the account's credit cannot pay" (Kavenegar 418, Melipayamak 2): the workspace's sends
    # pause with a notice and resume once the credit read sees credit again (``sms.credit``).
    no_credit_codes: ClassVar[frozenset[str]] = frozenset()
    # Answers "how much credit is left?" (Kavenegar ``account/info``, Melipayamak ``GetCredit``, the console's fixed
    # demo credit): read on a timer.
    credit_query: ClassVar[bool] = False
    # What that credit counts (``sms.choices.CreditUnit`` value): "rial", or "message" (message parts). A new
    # account takes it; staff may override it on the account.
    credit_unit: ClassVar[str] = "rial"
    # Answers "what does one message part cost per operator?" (Melipayamak ``GetSmsPrice``): read with the credit.
    price_query: ClassVar[bool] = False
    # Builders of the provider's wire answers (used by the fake servers of the tests).
    fixtures: ClassVar[Any] = None

    @property
    def has_status_query(self) -> bool:
        return self.status_by_local_id

    @property
    def polls_delivery(self) -> bool:
        return self.status_by_message_id or self.status_by_local_id

    @property
    def message_batch_size(self) -> int:
        return self.message_status_batch_size or self.status_batch_size

    def send(self, credentials: dict[str, Any], request: SendRequest) -> SendResponse:
        return self.send_batch(credentials, [request])[0]

    def query_credit(self, credentials: dict[str, Any], *, unit: str = "rial") -> int | None:
        """The account's credit left in the provider's ``credit_unit`` (as it reports it, a fraction dropped), or
        None (no usable answer). ``unit`` is what the account counts its credit in (``CreditUnit``): a real
        provider answers in its own unit whatever it is; the console answers in it."""
        return None

    def query_prices(self, credentials: dict[str, Any], *, sender: str) -> dict[str, int]:
        """The price of one message part (rials) per operator (``sms.choices.Operator`` values) the provider
        prices for this account and ``sender``; raises ``PriceQueryFailed`` (its text for staff) on no usable
        answer."""
        return {}

    def send_batch(self, credentials: dict[str, Any], requests: list[SendRequest]) -> list[SendResponse]:
        """One answer per request, in order. Providers that take many recipients per call override it; the
        default sends one by one."""
        return [self.send(credentials, r) for r in requests]

    def query_status(
        self, credentials: dict[str, Any], *, local_ids: list[str] = (), message_ids: list[str] = ()
    ) -> dict[str, StatusAnswer]:
        """Answers keyed by the id asked (local or message id); a missing key means no usable answer."""
        return {}

    def query_by_receptor(
        self, credentials: dict[str, Any], *, phone: str, start: datetime, end: datetime
    ) -> list[dict] | None:
        """Messages sent to ``phone`` between ``start`` and ``end`` (at most a day) as the provider's entries
        (``messageid``, ``message``, ``status``, ``date``); None = no usable answer."""
        return None

    # Reads the replies of a line (``receive``); ``receive_lines(account)``: the lines polled one by one ("" = the
    # whole account at once, with a cursor). ``parse_inbound_push``: the provider's push of one reply, or None.
    receives: ClassVar[bool] = False
    # The provider's panel pushes each reply to a URL of ours (``parse_inbound_push``): the account's page shows it.
    pushes_replies: ClassVar[bool] = False

    def receive_lines(self, account: Any) -> list[str]:
        return []

    def receive(self, credentials: dict[str, Any], *, line: str, cursor: str) -> Any:
        """One inbox request → ``sms.inbound.types.ReceiveAnswer``, or None without a usable answer."""
        return None

    def parse_inbound_push(self, params: dict[str, str]) -> Any:
        return None

    def parse_delivery_report(self, payload: Any) -> list[dict] | None:
        """The provider's own push format → ``[{"message_id", "status", "provider_status", "at"}]``; None
        while no push format is verified against the real provider (seed D6: poll instead)."""
        return None

    def credentials_errors(self, credentials: Any) -> dict[str, list[str]]:
        serializer = self.credentials_serializer(data=credentials if isinstance(credentials, dict) else {})
        return {} if serializer.is_valid() else {k: [str(e) for e in v] for k, v in serializer.errors.items()}

    def credentials_problem(self, credentials: dict[str, Any]) -> str | None:
        errors = self.credentials_errors(credentials)
        return f"{self.kind} credentials: {', '.join(sorted(errors))}" if errors else None

    def is_no_credit(self, code: Any) -> bool:
        return str(code) in self.no_credit_codes

    def meaning(self, code: Any) -> CodeMeaning:
        try:
            return self.delivery_codes[int(code)]
        except (KeyError, TypeError, ValueError):
            return CodeMeaning("unknown", "", f"code {code}")

    def answer_for(self, code: Any, *, message_id: str = "", raw: dict | None = None) -> StatusAnswer:
        meaning = self.meaning(code)
        return StatusAnswer(
            meaning.state,
            message_id=message_id,
            error_code="" if meaning.state in ("sent", "not_sent") else f"entry_{code}",
            raw=raw or {},
            status=meaning.status,
            provider_status=str(code),
        )


def base_url(kind: str, default: str) -> str:
    return (settings.SMS_PROVIDER_BASE_URLS.get(kind) or default).rstrip("/")


def national(phone: str) -> str:
    """+989121234567 → 09121234567 (what Iranian panels expect)."""
    return "0" + phone[3:] if phone.startswith("+98") else phone


class PriceQueryFailed(Exception):
    """A price query got no usable answer; ``str()`` says why, in Persian, for the SMS settings page."""


class HttpOutcome:
    """``sent`` False: the request surely never reached the provider. ``readable`` False: the answer was
    cut off or is not the provider's JSON (a proxy page, a truncated body)."""

    def __init__(self, status: int | None, body: Any, error: str = "", sent: bool = True, readable: bool = True):
        self.status, self.body, self.error, self.sent, self.readable = status, body, error, sent, readable


# The most of a provider's answer read (its largest, a poll's status answer, is tens of KB): a bigger body is
# not parsed and its connection is closed.
MAX_ANSWER_BYTES = 4 * 1024 * 1024

# Errors of the network and of HTTP parsing; nothing else is caught (a Celery time limit must propagate).
_TRANSPORT_ERRORS = (OSError, http.client.HTTPException, ssl.SSLError)
_TLS = ssl.create_default_context()  # certificates and host names verified


class ConnectionPool:
    """Kept-alive connections per provider host, a few per worker process (``SMS_HTTP_POOL_SIZE``).

    A connection is taken for one request and given back only when its answer was read whole and the server
    keeps it open. Before a reused connection carries a request it is checked for a close by the server (an
    idle timeout): a closed one is dropped and a fresh one opened, so nothing was written on it — still
    "surely not sent". Once a request's bytes may have left, any failure is ``unknown`` (settled by local id)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.idle: dict[tuple, list[http.client.HTTPConnection]] = {}
        self.pid = os.getpid()

    def take(self, key: tuple) -> http.client.HTTPConnection | None:
        with self.lock:
            if self.pid != os.getpid():  # a forked worker never shares its parent's sockets
                self.idle, self.pid = {}, os.getpid()
            while self.idle.get(key):
                conn = self.idle[key].pop()
                if _usable(conn):
                    return conn
                conn.close()
        return None

    def give_back(self, key: tuple, conn: http.client.HTTPConnection) -> None:
        with self.lock:
            if self.pid == os.getpid() and len(self.idle.setdefault(key, [])) < settings.SMS_HTTP_POOL_SIZE:
                self.idle[key].append(conn)
                return
        conn.close()

    def clear(self) -> None:
        with self.lock:
            for conns in self.idle.values():
                for conn in conns:
                    conn.close()
            self.idle = {}


POOL = ConnectionPool()


def _usable(conn: http.client.HTTPConnection) -> bool:
    """An idle kept-alive socket that reads as ready has been closed by the server (or holds stray bytes)."""
    sock = conn.sock
    if sock is None:
        return False
    try:
        readable, _, _ = select.select([sock], [], [], 0)
    except (OSError, ValueError):
        return False
    return not readable


def _new_connection(parts: urllib.parse.SplitResult, timeout: float) -> http.client.HTTPConnection:
    if parts.scheme == "https":
        conn: http.client.HTTPConnection = http.client.HTTPSConnection(
            parts.hostname, parts.port, timeout=timeout, context=_TLS
        )
    else:
        conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=timeout)
    conn.auto_open = 0  # never reconnect silently in the middle of a request
    return conn


def post_form(url: str, data: dict[str, Any]) -> HttpOutcome:
    """POST form data on a kept-alive connection. Connecting (DNS, TCP, TLS handshake) is separated from
    sending, so a failure before any byte left is ``sent=False`` and everything after is ``sent=True``."""
    timeout = settings.SMS_HTTP_TIMEOUT
    parts = urllib.parse.urlsplit(url)
    key = (parts.scheme, parts.hostname, parts.port, timeout)
    body = urllib.parse.urlencode(data).encode()
    path = parts.path + (f"?{parts.query}" if parts.query else "")
    conn = POOL.take(key)
    if conn is None:
        conn = _new_connection(parts, timeout)
        try:
            conn.connect()
        except _TRANSPORT_ERRORS as exc:
            conn.close()
            return HttpOutcome(None, None, f"connection failed: {type(exc).__name__}", sent=False)
    keep = False
    try:
        try:
            conn.request(
                "POST",
                path or "/",
                body=body,
                headers={"Content-Type": "application/x-www-form-urlencoded", "Accept": "application/json"},
            )
            response = conn.getresponse()
            raw = response.read(MAX_ANSWER_BYTES + 1)
        except TimeoutError:
            return HttpOutcome(None, None, "read timeout")
        except _TRANSPORT_ERRORS as exc:
            return HttpOutcome(None, None, f"connection dropped: {type(exc).__name__}")
        if len(raw) > MAX_ANSWER_BYTES:  # not the provider's answer: never parsed, the rest never read
            return HttpOutcome(response.status, {"_text": raw[:500].decode(errors="replace")}, readable=False)
        keep = not response.will_close
        parsed, readable = _json(raw)
        return HttpOutcome(response.status, parsed, readable=readable)
    finally:
        if keep:
            POOL.give_back(key, conn)
        else:
            conn.close()


def _json(raw: bytes) -> tuple[Any, bool]:
    try:
        return json.loads(raw.decode() or "null"), True
    except (ValueError, UnicodeDecodeError):
        return {"_text": raw[:500].decode(errors="replace")}, False


def groups_of(requests: list[SendRequest], size: int, *, by_text: bool = True) -> list[list[int]]:
    """Positions of ``requests`` in calls of at most ``size``: one call per sender and text (``by_text``), in
    first-seen order."""
    groups: dict[tuple, list[int]] = {}
    for position, request in enumerate(requests):
        key = (request.sender, request.text) if by_text else (request.sender,)
        groups.setdefault(key, []).append(position)
    return [members[i : i + size] for members in groups.values() for i in range(0, len(members), size)]


def copies(response: SendResponse, count: int) -> list[SendResponse]:
    """The same whole-call answer for every request of the call."""
    return [
        SendResponse(response.status, "", response.error_code, response.error_message, response.raw)
        for _ in range(count)
    ]


def transport_failure(outcome: HttpOutcome) -> SendResponse | None:
    """No usable answer: never left → failed (retryable); left → unknown (the provider may have it)."""
    if outcome.status is None:
        if not outcome.sent:
            return SendResponse("failed", error_code="connection", error_message=outcome.error)
        code = "timeout" if outcome.error == "read timeout" else "connection_dropped"
        return SendResponse("unknown", error_code=code, error_message=outcome.error)
    if not outcome.readable:
        return SendResponse(
            "unknown", error_code=f"http_{outcome.status}", error_message="unreadable answer", raw=outcome.body
        )
    return None
