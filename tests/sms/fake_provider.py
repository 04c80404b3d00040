"""A local fake HTTP server that answers like Kavenegar / Melipayamak (never the internet).

Like Kavenegar, it keeps one message per ``localid``: sending a local id it already accepted returns
the same message, and ``sms/statuslocalmessageid`` answers from what it accepted (status 100 = no such
message). ``messages`` is what a customer would have received.
"""

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs


class FakeProvider:
    """``responses`` is a list of (http_status, body) or one of the words below, popped per send request:
    "timeout" (no answer, nothing accepted), "drop" (connection closed, nothing accepted),
    "accept_timeout" (the message is accepted, then no answer), "accept" (accepted, normal answer).
    With no response queued, a send is accepted."""

    def __init__(self, hold_seconds: float = 1.5) -> None:
        self.requests: list[dict] = []
        self.responses: list = []
        self.status_responses: list = []  # optional answers for status queries (else from ``messages``)
        self.messages: dict[str, dict] = {}  # localid → accepted message
        self.on_accept = None  # called (localid) after a message is accepted, before answering
        self.lock = threading.Lock()
        self.hold_seconds = hold_seconds
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                length = int(self.headers.get("Content-Length", 0))
                form = {k: v[0] for k, v in parse_qs(self.rfile.read(length).decode()).items()}
                with server.lock:
                    server.requests.append({"path": self.path, "form": form})
                if self.path.endswith("/sms/statuslocalmessageid.json"):
                    return self._answer(*server._status_answer(form.get("localid", "")))
                with server.lock:
                    answer = server.responses.pop(0) if server.responses else "accept"
                if answer in ("accept", "accept_timeout"):
                    entry = server._accept(form)
                    if server.on_accept:
                        server.on_accept(form.get("localid"))
                    if answer == "accept_timeout":
                        time.sleep(server.hold_seconds)
                        return
                    return self._answer(200, {"return": {"status": 200, "message": "تایید شد"}, "entries": [entry]})
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

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def _accept(self, form: dict) -> dict:
        with self.lock:
            local_id = form.get("localid") or f"anon-{len(self.requests)}"
            if local_id not in self.messages:  # Kavenegar: one message per localid
                self.messages[local_id] = {
                    "messageid": 8_000_000 + len(self.messages),
                    "localid": local_id,
                    "status": 1,
                    "receptor": form.get("receptor"),
                    "statustext": "در صف ارسال",
                }
            return dict(self.messages[local_id])

    def _status_answer(self, local_id: str):
        with self.lock:
            if self.status_responses:
                return self.status_responses.pop(0)
            entry = self.messages.get(local_id)
        if entry is None:
            entry = {"messageid": 0, "localid": local_id, "status": 100, "statustext": "نامعتبر"}
        return 200, {"return": {"status": 200, "message": "تایید شد"}, "entries": [entry]}

    def sends(self) -> list[dict]:
        return [r for r in self.requests if r["path"].endswith("/sms/send.json") or "SendSMS" in r["path"]]

    def queries(self) -> list[dict]:
        return [r for r in self.requests if r["path"].endswith("/sms/statuslocalmessageid.json")]

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
