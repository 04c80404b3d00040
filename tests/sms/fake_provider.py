"""A local fake HTTP server that answers like Kavenegar and Melipayamak (never the internet).

Its answers are built with each provider's own wire fixtures (``sms.providers.<kind>.Fixtures``).
Like Kavenegar, it keeps one message per ``localid``: sending a local id it already accepted returns
the same message; ``sms/statuslocalmessageid`` and ``sms/status`` answer from what it accepted (status
100 = no such message), comma-separated ids included. Melipayamak sends get a ``recId`` and
``GetDeliveries2`` answers the delivery code set for it (400 "in send list" until set).
``messages`` is what a customer would have received (both providers).
"""

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs

from sms.providers.kavenegar import Fixtures as Kavenegar
from sms.providers.melipayamak import Fixtures as Melipayamak

KAVENEGAR_SEND = "/sms/send.json"
KAVENEGAR_BY_LOCAL_ID = "/sms/statuslocalmessageid.json"
KAVENEGAR_BY_MESSAGE_ID = "/sms/status.json"
MELIPAYAMAK_SEND = "/api/SendSMS/SendSMS"
MELIPAYAMAK_DELIVERY = "/api/SendSMS/GetDeliveries2"


class FakeProvider:
    """``responses`` is a list of (http_status, body) or one of the words below, popped per send request:
    "timeout" (no answer, nothing accepted), "drop" (connection closed, nothing accepted),
    "accept_timeout" (the message is accepted, then no answer), "accept" (accepted, normal answer).
    With no response queued, a send is accepted. ``status_responses`` answer status/delivery questions
    first (else they come from what was accepted)."""

    def __init__(self, hold_seconds: float = 1.5, port: int = 0) -> None:
        self.requests: list[dict] = []
        self.responses: list = []
        self.status_responses: list = []
        self.messages: dict[str, dict] = {}  # Kavenegar: localid → entry; Melipayamak: "meli-<recId>" → entry
        self.on_accept = None  # called (localid) after a message is accepted, before answering
        # Fault injection: ``on_send(form, client_port)`` runs before a send is looked at (return "drop" to
        # close the connection with nothing accepted); ``after_answer(form)`` runs once a send's answer was written.
        self.on_send = None
        self.after_answer = None
        self.lock = threading.Lock()
        self.hold_seconds = hold_seconds
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                length = int(self.headers.get("Content-Length", 0))
                raw = self.rfile.read(length)
                if len(raw) < length:  # the client died while writing: an incomplete request is not a request
                    self.connection.close()
                    return
                form = {k: v[0] for k, v in parse_qs(raw.decode()).items()}
                with server.lock:
                    server.requests.append({"path": self.path, "form": form})
                if self.path.endswith((KAVENEGAR_BY_LOCAL_ID, KAVENEGAR_BY_MESSAGE_ID, MELIPAYAMAK_DELIVERY)):
                    return self._answer(*server._status_answer(self.path, form))
                if server.on_send and server.on_send(form, self.client_address[1]) == "drop":
                    self.connection.close()
                    return
                with server.lock:
                    answer = server.responses.pop(0) if server.responses else "accept"
                melipayamak = self.path.endswith(MELIPAYAMAK_SEND)
                if answer in ("accept", "accept_timeout"):
                    accepted = server._accept_meli(form) if melipayamak else server._accept(form)
                    if server.on_accept:
                        server.on_accept(form.get("localid"))
                    if answer == "accept_timeout":
                        time.sleep(server.hold_seconds)
                        return
                    if melipayamak:
                        return self._answer(*Melipayamak.send(1, accepted["recId"]))
                    self._answer(*Kavenegar.ok([accepted]))
                    if server.after_answer:
                        server.after_answer(form)
                    return
                if answer == "timeout":
                    time.sleep(server.hold_seconds)
                    return
                if answer == "drop":
                    self.connection.close()
                    return
                self._answer(*answer)

            def _answer(self, status, body):
                raw = json.dumps(body).encode()
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(raw)))
                    self.end_headers()
                    self.wfile.write(raw)
                except OSError:  # the client gave up
                    pass

            def log_message(self, *args):
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", port), Handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def _accept(self, form: dict) -> dict:
        with self.lock:
            local_id = form.get("localid") or f"anon-{len(self.requests)}"
            if local_id not in self.messages:  # Kavenegar: one message per localid
                self.messages[local_id] = Kavenegar.entry(
                    8_000_000 + len(self.messages), 1, local_id=local_id, receptor=form.get("receptor", "")
                )
            return dict(self.messages[local_id])

    def _accept_meli(self, form: dict) -> dict:
        with self.lock:
            rec_id = str(5_000_000 + len(self.messages))
            self.messages[f"meli-{rec_id}"] = {"recId": rec_id, "delivery": 400, "receptor": form.get("to", "")}
            return dict(self.messages[f"meli-{rec_id}"])

    def set_status(self, message_id, code: int) -> None:
        """What the provider now says about a message (Kavenegar entry status / Melipayamak delivery code)."""
        with self.lock:
            meli = self.messages.get(f"meli-{message_id}")
            if meli is not None:
                meli["delivery"] = code
                return
            for entry in self.messages.values():
                if str(entry.get("messageid")) == str(message_id):
                    entry["status"] = code
                    entry["statustext"] = Kavenegar.entry(0, code)["statustext"]
                    return
        raise KeyError(message_id)

    def _status_answer(self, path: str, form: dict):
        with self.lock:
            if self.status_responses:
                return self.status_responses.pop(0)
            if path.endswith(MELIPAYAMAK_DELIVERY):
                meli = self.messages.get(f"meli-{form.get('recId', '')}")
                return Melipayamak.delivery(meli["delivery"] if meli else 100)
            entries = []
            if path.endswith(KAVENEGAR_BY_LOCAL_ID):
                for local_id in form.get("localid", "").split(","):
                    entry = self.messages.get(local_id)
                    entries.append(dict(entry) if entry else Kavenegar.entry(0, 100, local_id=local_id))
            else:
                by_id = {str(e.get("messageid")): e for e in self.messages.values() if "messageid" in e}
                for message_id in form.get("messageid", "").split(","):
                    entry = by_id.get(message_id)
                    entries.append(dict(entry) if entry else {**Kavenegar.entry(0, 100), "messageid": message_id})
        return Kavenegar.ok(entries)

    def sends(self) -> list[dict]:
        return [r for r in self.requests if r["path"].endswith((KAVENEGAR_SEND, MELIPAYAMAK_SEND))]

    def queries(self) -> list[dict]:
        return [r for r in self.requests if r["path"].endswith(KAVENEGAR_BY_LOCAL_ID)]

    def status_requests(self) -> list[dict]:
        return [r for r in self.requests if r["path"].endswith((KAVENEGAR_BY_MESSAGE_ID, MELIPAYAMAK_DELIVERY))]

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
