"""The gateway interface and a small stdlib HTTP helper with timeouts.

Results map to: ``submitted`` (accepted, message id kept), ``rejected`` (bad
number/sender/text: not retryable), ``failed`` (timeout, 5xx, provider busy:
retryable), ``unavailable`` (credit, disabled account, auth: circuit breaker,
no retry consumed), ``unknown`` (connection dropped after the request was
sent: never resent).
"""

from __future__ import annotations

import http.client
import json
import socket
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings


@dataclass(frozen=True)
class SendRequest:
    phone: str  # E.164
    text: str
    sender: str
    local_id: str  # our idempotency key


@dataclass
class SendResponse:
    status: str  # submitted | rejected | failed | unavailable | unknown
    message_id: str = ""
    error_code: str = ""
    error_message: str = ""
    raw: dict[str, Any] = field(default_factory=dict)


class Provider:
    kind = ""

    def send(self, credentials: dict[str, Any], request: SendRequest) -> SendResponse:  # pragma: no cover
        raise NotImplementedError

    def credentials_problem(self, credentials: dict[str, Any]) -> str | None:
        return None


def base_url(kind: str, default: str) -> str:
    return (getattr(settings, "SMS_PROVIDER_BASE_URLS", {}) or {}).get(kind, default).rstrip("/")


def national(phone: str) -> str:
    """+989121234567 → 09121234567 (what Iranian panels expect)."""
    return "0" + phone[3:] if phone.startswith("+98") else phone


class HttpOutcome:
    def __init__(self, status: int | None, body: Any, error: str = "", sent: bool = True):
        self.status, self.body, self.error, self.sent = status, body, error, sent


def post_form(url: str, data: dict[str, Any]) -> HttpOutcome:
    """POST form data; never raises. ``sent`` False means the request surely never reached the provider."""
    timeout = getattr(settings, "SMS_HTTP_TIMEOUT", 10)
    body = urllib.parse.urlencode(data).encode()
    request = urllib.request.Request(url, data=body, method="POST")  # noqa: S310 - https/http URLs from settings only
    request.add_header("Content-Type", "application/x-www-form-urlencoded")
    request.add_header("Accept", "application/json")
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:  # noqa: S310
            return HttpOutcome(response.status, _json(response.read()))
    except urllib.error.HTTPError as exc:
        return HttpOutcome(exc.code, _json(exc.read()))
    except TimeoutError:
        return HttpOutcome(None, None, "timeout")
    except (http.client.RemoteDisconnected, ConnectionResetError, http.client.IncompleteRead) as exc:
        return HttpOutcome(None, None, f"connection dropped: {type(exc).__name__}", sent=True)
    except urllib.error.URLError as exc:
        reason = exc.reason
        if isinstance(reason, TimeoutError | socket.timeout):
            return HttpOutcome(None, None, "timeout")
        if isinstance(reason, ConnectionResetError | http.client.RemoteDisconnected):
            return HttpOutcome(None, None, f"connection dropped: {type(reason).__name__}", sent=True)
        return HttpOutcome(None, None, f"connection failed: {type(reason).__name__}", sent=False)


def _json(raw: bytes) -> Any:
    try:
        return json.loads(raw.decode() or "null")
    except (ValueError, UnicodeDecodeError):
        return {"_text": raw[:500].decode(errors="replace")}


def transport_failure(outcome: HttpOutcome) -> SendResponse | None:
    """No answer from the provider: timeout/refused → failed (retryable); dropped after sending → unknown."""
    if outcome.status is not None:
        return None
    if outcome.error.startswith("connection dropped"):
        return SendResponse("unknown", error_code="connection_dropped", error_message=outcome.error)
    return SendResponse(
        "failed", error_code="timeout" if outcome.error == "timeout" else "connection", error_message=outcome.error
    )
