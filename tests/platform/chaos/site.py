"""The chaos run's demo site: post pages with a Like button that, like a real site, show "liked" to a
session that already liked the post (so a browser task whose worker died can verify instead of clicking
again). Every Like request is counted per (post, session): more than one is a double click."""

from __future__ import annotations

import json
import threading
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit


class ChaosSite:
    def __init__(self, port: int = 0) -> None:
        self.likes: Counter = Counter()
        self.lock = threading.Lock()
        site = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args) -> None:
                pass

            def _session(self) -> str:
                for part in (self.headers.get("Cookie") or "").split(";"):
                    name, _, value = part.strip().partition("=")
                    if name == "session":
                        return value
                return ""

            def _send(self, status: int, body: str, ctype: str = "text/html; charset=utf-8") -> None:
                data = body.encode()
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", ctype)
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except OSError:  # the browser that asked was killed
                    pass

            def do_GET(self) -> None:
                path = urlsplit(self.path).path
                post, session = path.rsplit("/", 1)[-1], self._session()
                with site.lock:
                    liked = site.likes[(post, session)] > 0
                state = '<p class="liked">liked</p>' if liked else ""
                self._send(
                    200,
                    f'<!doctype html><html><body><div id="me">{session}</div>{state}'
                    f"<button id=\"like\" onclick=\"fetch('/like/{post}',{{method:'POST'}}).then(()=>"
                    "document.body.insertAdjacentHTML('beforeend','<p class=liked>liked</p>'))\">Like</button>"
                    "</body></html>",
                )

            def do_POST(self) -> None:
                self.rfile.read(int(self.headers.get("Content-Length") or 0))
                post = urlsplit(self.path).path.rsplit("/", 1)[-1]
                with site.lock:
                    site.likes[(post, self._session())] += 1
                self._send(200, json.dumps({"ok": True}), "application/json")

        self.server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}{path}"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
