"""A local fake HTTP server that answers like Kavenegar and Melipayamak (never the internet).

Its answers are built with each provider's own wire fixtures (``sms.providers.<kind>.Fixtures``).
Like Kavenegar, it keeps one message per ``localid``: sending a local id it already accepted returns
the same message; ``sms/statuslocalmessageid`` and ``sms/status`` answer from what it accepted (status
100 = no such message), comma-separated ids included. Melipayamak sends get a ``recId`` and
``GetDeliveries2`` answers the delivery code set for it (400 "in send list" until set).
``messages`` is what a customer would have received (both providers).

Batches as the providers take them: Kavenegar ``sms/send`` with comma-separated receptors (and local ids,
one per receptor, in the same order; at most 200), ``sms/sendarray`` with per-row JSON arrays of receptors,
senders, texts and ``localmessageids`` (at most 200 rows; arrays of different lengths are answered 419) and
Melipayamak ``SendSMS`` with comma-separated numbers (at most 100; ``Value`` is one recId per number,
comma-separated). A batch over the limit is refused whole with the provider's "too many" answer (Kavenegar
414, Melipayamak 4). Optional ``latency`` (seconds before every answer) and rate caps (requests and messages
per second, token buckets holding one second's worth) make it answer like a provider across the internet:
a request over a cap is refused with the same "too many" answer and nothing of it is accepted. ``log`` holds
every message accepted (receptor, when), ``batches`` the size of every accepted send request and ``refused``
the refusals by reason (the throughput benchmark reads them).
"""

import json
import threading
import time
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs

from sms.providers.kavenegar import Fixtures as Kavenegar
from sms.providers.melipayamak import Fixtures as Melipayamak

KAVENEGAR_SEND = "/sms/send.json"
KAVENEGAR_SEND_ARRAY = "/sms/sendarray.json"
KAVENEGAR_BY_LOCAL_ID = "/sms/statuslocalmessageid.json"
KAVENEGAR_BY_MESSAGE_ID = "/sms/status.json"
KAVENEGAR_BY_RECEPTOR = "/sms/statusbyreceptor.json"
MELIPAYAMAK_SEND = "/api/SendSMS/SendSMS"
MELIPAYAMAK_DELIVERY = "/api/SendSMS/GetDeliveries2"
SEND_PATHS = (KAVENEGAR_SEND, KAVENEGAR_SEND_ARRAY, MELIPAYAMAK_SEND)
# Inboxes: Kavenegar ``sms/receive`` (per line, ``isread=0`` hands over the unread ones and marks them read),
# Melipayamak ``GetMessagesAfterID`` (ASMX HTTP POST, XML: the rows after ``msgId``, at most ``count``).
KAVENEGAR_RECEIVE = "/sms/receive.json"
MELIPAYAMAK_RECEIVE = "/post/Receive.asmx/GetMessagesAfterID"
INBOX_PATHS = (KAVENEGAR_RECEIVE, MELIPAYAMAK_RECEIVE)
# Melipayamak ``GetSmsPrice`` (ASMX HTTP POST, XML: one number): the price of ``text`` to ``irancellCount`` Irancell
# and ``mtnCount`` MCI numbers — counts × parts × the account's price per part (``prices``).
MELIPAYAMAK_PRICE = "/post/Send.asmx/GetSmsPrice"
KAVENEGAR_MAX_ROWS = 200  # receptors of sms/send, rows of sms/sendarray
MELIPAYAMAK_MAX_NUMBERS = 100


class Bucket:
    """``rate`` tokens a second, holding at most one second's worth."""

    def __init__(self, rate: float) -> None:
        self.rate, self.tokens, self.at = float(rate), float(rate), time.monotonic()

    def refill(self, now: float) -> float:
        self.tokens = min(self.rate, self.tokens + (now - self.at) * self.rate)
        self.at = now
        return self.tokens


class FakeProvider:
    """``responses`` is a list of (http_status, body) or one of the words below, popped per send request:
    "timeout" (no answer, nothing accepted), "drop" (connection closed, nothing accepted),
    "accept_timeout" (the message is accepted, then no answer), "accept" (accepted, normal answer).
    With no response queued, a send is accepted. ``status_responses`` answer status/delivery questions
    first (else they come from what was accepted)."""

    def __init__(
        self,
        hold_seconds: float = 1.5,
        port: int = 0,
        *,
        latency: float = 0.0,
        max_requests_per_second: float | None = None,
        max_messages_per_second: float | None = None,
        keep_alive: float = 0.0,
    ) -> None:
        """``keep_alive`` > 0: HTTP/1.1, connections kept open between requests and closed by the server after
        that many idle seconds (like a provider's front end); 0: one request per connection."""
        self.connections: set[tuple] = set()  # client (address, port) pairs: one per TCP connection used
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
        # Replies waiting in the inboxes (``reply()``): Kavenegar entries with a read flag, Melipayamak rows.
        self.inbox: list[dict] = []
        self.inbox_responses: list = []  # answers to inbox requests, popped first (e.g. an error)
        # Melipayamak's price of one part per operator (rials), and answers to price requests popped first.
        self.prices = {"irancell": 1310.0, "mci": 1185.0}
        self.price_responses: list = []
        self.hold_seconds = hold_seconds
        self.latency = latency
        self.caps = {
            key: Bucket(rate)
            for key, rate in (("requests", max_requests_per_second), ("messages", max_messages_per_second))
            if rate
        }
        self.log: list[tuple[str, float]] = []  # (receptor, accepted at: time.monotonic()) of every new message
        self.batches: list[int] = []  # rows of every accepted send request
        self.first_arrival: float | None = None  # when the first send request that was accepted arrived
        self.refused: Counter = Counter()  # send requests refused: rate_requests, rate_messages, batch_size, …
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1" if keep_alive else "HTTP/1.0"
            timeout = keep_alive or None

            def do_POST(self):
                arrived = time.monotonic()
                with server.lock:
                    server.connections.add(self.client_address)
                length = int(self.headers.get("Content-Length", 0))
                raw = self.rfile.read(length)
                if len(raw) < length:  # the client died while writing: an incomplete request is not a request
                    self.close_connection = True
                    self.connection.close()
                    return
                form = {k: v[0] for k, v in parse_qs(raw.decode()).items()}
                with server.lock:
                    server.requests.append({"path": self.path, "form": form})
                if self.path.endswith(INBOX_PATHS):
                    server._wait(arrived)
                    return self._answer(*server._inbox_answer(self.path, form))
                if self.path.endswith(MELIPAYAMAK_PRICE):
                    server._wait(arrived)
                    return self._answer(*server._price_answer(form))
                if not self.path.endswith(SEND_PATHS):
                    server._wait(arrived)
                    return self._answer(*server._status_answer(self.path, form))
                if server.on_send and server.on_send(form, self.client_address[1]) == "drop":
                    self.close_connection = True
                    self.connection.close()
                    return
                melipayamak = self.path.endswith(MELIPAYAMAK_SEND)
                rows, refusal = server._rows(self.path, form)
                refusal = refusal or server._over_cap(len(rows), melipayamak)
                if refusal:
                    server._wait(arrived)
                    return self._answer(*refusal)
                with server.lock:
                    answer = server.responses.pop(0) if server.responses else "accept"
                server._wait(arrived)
                if answer in ("accept", "accept_timeout"):
                    accepted = [server._accept_meli(row) if melipayamak else server._accept(row) for row in rows]
                    with server.lock:
                        server.batches.append(len(rows))
                        if server.first_arrival is None or arrived < server.first_arrival:
                            server.first_arrival = arrived
                    if server.on_accept:
                        for row in rows:
                            server.on_accept(row.get("localid"))
                    if answer == "accept_timeout":
                        time.sleep(server.hold_seconds)
                        self.close_connection = True
                        return
                    if melipayamak:
                        return self._answer(*Melipayamak.send(1, ",".join(a["recId"] for a in accepted)))
                    self._answer(*Kavenegar.ok(accepted))
                    if server.after_answer:
                        server.after_answer(form)
                    return
                if answer == "timeout":
                    time.sleep(server.hold_seconds)
                    self.close_connection = True
                    return
                if answer == "drop":
                    self.close_connection = True
                    self.connection.close()
                    return
                self._answer(*answer)

            def _answer(self, status, body):
                text = isinstance(body, str)  # Melipayamak's inbox answers XML
                raw = body.encode() if text else json.dumps(body).encode()
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "text/xml; charset=utf-8" if text else "application/json")
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

    def _wait(self, arrived: float) -> None:
        """Answer ``latency`` after the request arrived."""
        left = arrived + self.latency - time.monotonic()
        if left > 0:
            time.sleep(left)

    def _rows(self, path: str, form: dict) -> tuple[list[dict], tuple | None]:
        """One form per message of a send request (the shape of a one-message send), or the batch's refusal."""
        if path.endswith(MELIPAYAMAK_SEND):
            numbers = form.get("to", "").split(",")
            if len(numbers) > MELIPAYAMAK_MAX_NUMBERS:
                return self._refuse("batch_size", Melipayamak.send(4))
            return [{**form, "to": number} for number in numbers], None
        if path.endswith(KAVENEGAR_SEND_ARRAY):
            try:
                columns = [json.loads(form.get(key) or "[]") for key in ("receptor", "sender", "message")]
                local_ids = json.loads(form.get("localmessageids") or "[]")
            except ValueError:
                return self._refuse("batch_shape", Kavenegar.error(400))
            if len({len(column) for column in columns}) != 1 or (local_ids and len(local_ids) != len(columns[0])):
                return self._refuse("batch_shape", Kavenegar.error(419))
            if len(columns[0]) > KAVENEGAR_MAX_ROWS:
                return self._refuse("batch_size", Kavenegar.error(414))
            local_ids = [str(i) for i in local_ids] or [""] * len(columns[0])
            return [
                {"receptor": str(r), "sender": str(s), "message": str(m), "localid": i}
                for r, s, m, i in zip(*columns, local_ids, strict=True)
            ], None
        receptors = form.get("receptor", "").split(",")
        local_ids = form["localid"].split(",") if form.get("localid") else [""] * len(receptors)
        if len(local_ids) != len(receptors):
            return self._refuse("batch_shape", Kavenegar.error(400))
        if len(receptors) > KAVENEGAR_MAX_ROWS:
            return self._refuse("batch_size", Kavenegar.error(414))
        return [{**form, "receptor": r, "localid": i} for r, i in zip(receptors, local_ids, strict=True)], None

    def _refuse(self, reason: str, answer: tuple) -> tuple[list, tuple]:
        with self.lock:
            self.refused[reason] += 1
        return [], answer

    def _over_cap(self, messages: int, melipayamak: bool) -> tuple | None:
        """Take one request and ``messages`` from the caps, or refuse the whole request (nothing taken)."""
        if not self.caps:
            return None
        now = time.monotonic()
        with self.lock:
            costs = {"requests": 1, "messages": messages}
            for key, bucket in self.caps.items():
                if bucket.refill(now) + 1e-9 < costs[key]:
                    self.refused[f"rate_{key}"] += 1
                    return Melipayamak.send(4) if melipayamak else Kavenegar.error(414)
            for key, bucket in self.caps.items():
                bucket.tokens -= costs[key]
        return None

    def _accept(self, form: dict) -> dict:
        with self.lock:
            local_id = form.get("localid") or f"anon-{len(self.messages)}"
            if local_id not in self.messages:  # Kavenegar: one message per localid
                self.messages[local_id] = {
                    **Kavenegar.entry(
                        8_000_000 + len(self.messages), 1, local_id=local_id, receptor=form.get("receptor", "")
                    ),
                    "message": form.get("message", ""),
                }
                self.log.append((form.get("receptor", ""), time.monotonic()))
            return dict(self.messages[local_id])

    def _accept_meli(self, form: dict) -> dict:
        with self.lock:
            rec_id = str(5_000_000 + len(self.messages))
            self.messages[f"meli-{rec_id}"] = {"recId": rec_id, "delivery": 400, "receptor": form.get("to", "")}
            self.log.append((form.get("to", ""), time.monotonic()))
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
            if path.endswith(KAVENEGAR_BY_RECEPTOR):
                receptor = form.get("receptor", "")
                return Kavenegar.ok([dict(e) for e in self.messages.values() if e.get("receptor") == receptor])
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

    def reply(self, sender: str, text: str, *, line: str = "10004346", at: int = 1_790_000_000) -> int:
        """A recipient answers on ``line``: the message waits in both providers' inboxes; returns its id."""
        with self.lock:
            message_id = 7_000_000 + len(self.inbox)
            self.inbox.append(
                {"id": message_id, "sender": sender, "line": line, "text": text, "date": at, "read": False}
            )
            return message_id

    def _inbox_answer(self, path: str, form: dict):
        with self.lock:
            if self.inbox_responses:
                return self.inbox_responses.pop(0)
            if path.endswith(MELIPAYAMAK_RECEIVE):
                after, count = int(form.get("msgId") or 0), int(form.get("count") or 100)
                rows = [m for m in self.inbox if m["id"] > after and form.get("from", "") in ("", m["line"])]
                return 200, Melipayamak.inbox(
                    [
                        {
                            "MsgID": m["id"],
                            "Body": m["text"],
                            "SendDate": "2026-12-04T21:50:00",
                            "Sender": m["sender"],
                            "Receiver": m["line"],
                        }
                        for m in rows[:count]
                    ]
                )
            unread = [m for m in self.inbox if m["line"] == form.get("linenumber") and not m["read"]]
            if str(form.get("isread")) == "0":
                for m in unread:
                    m["read"] = True
            return Kavenegar.ok(
                [Kavenegar.inbox_entry(m["id"], m["sender"], m["line"], m["text"], m["date"]) for m in unread]
            )

    def _price_answer(self, form: dict):
        from sms.segments import count_segments

        with self.lock:
            if self.price_responses:
                return self.price_responses.pop(0)
            if (form.get("username"), form.get("password")) == ("", ""):
                return Melipayamak.price(0)  # wrong username/password
            try:
                irancell, mci = int(form.get("irancellCount") or 0), int(form.get("mtnCount") or 0)
            except ValueError:
                return 500, "<html>Input string was not in a correct format.</html>"
            parts = count_segments(form.get("text", "")).segments
            return Melipayamak.price(parts * (irancell * self.prices["irancell"] + mci * self.prices["mci"]))

    def price_requests(self) -> list[dict]:
        return [r for r in self.requests if r["path"].endswith(MELIPAYAMAK_PRICE)]

    def inbox_requests(self) -> list[dict]:
        return [r for r in self.requests if r["path"].endswith(INBOX_PATHS)]

    def sends(self) -> list[dict]:
        return [r for r in self.requests if r["path"].endswith(SEND_PATHS)]

    def sent_rows(self) -> list[dict]:
        """Every recipient of every send request, in order (a batch counts once per recipient)."""
        return [row for r in self.sends() for row in self._rows(r["path"], r["form"])[0]]

    def queries(self) -> list[dict]:
        return [r for r in self.requests if r["path"].endswith(KAVENEGAR_BY_LOCAL_ID)]

    def receptor_queries(self) -> list[dict]:
        return [r for r in self.requests if r["path"].endswith(KAVENEGAR_BY_RECEPTOR)]

    def status_requests(self) -> list[dict]:
        return [r for r in self.requests if r["path"].endswith((KAVENEGAR_BY_MESSAGE_ID, MELIPAYAMAK_DELIVERY))]

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
