"""A tiny local site and forwarding proxy on 127.0.0.1 (tests, the demo and ``bench_browser``).

The site has a post page with a Like button and a comment box, a login page,
and requires a session cookie (``session=valid-…``); without it (or with an
``expired-…`` value) the post page redirects to ``/login``. Every like and
comment is counted server-side, so tests can assert "done once".

Nothing here listens on anything but 127.0.0.1.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from socketserver import StreamRequestHandler, TCPServer, ThreadingTCPServer
from typing import Self
from urllib.parse import urlsplit

from workers.netguard import pipe

POST_PAGE = """<!doctype html><html><head><meta charset="utf-8"><title>post {post}</title></head>
<body><div id="me">{user}</div><h1>Post {post}</h1>
<button id="like" onclick="like()">Like</button><span id="state"></span>
<textarea id="comment"></textarea><button id="send" onclick="send()">Send</button><div id="comments"></div>
<div id="client"></div>
<script>
document.getElementById('client').textContent='viewport '+innerWidth+'x'+innerHeight+' ua '+navigator.userAgent;
function like(){{fetch('/like/{post}',{{method:'POST'}}).then(r=>{{if(!r.ok)throw r;return r.json();}}).then(d=>{{
  const s=document.getElementById('state'); s.className='liked'; s.textContent='liked '+d.count;}});}}
function send(){{const t=document.getElementById('comment').value;
  fetch('/comment/{post}',{{method:'POST',body:t}}).then(r=>{{if(!r.ok)throw r;return r.json();}}).then(d=>{{
  const c=document.createElement('p'); c.className='comment-posted'; c.textContent=t;
  document.getElementById('comments').appendChild(c);}});}}
</script></body></html>"""

LOGIN_PAGE = """<!doctype html><html><head><meta charset="utf-8"><title>login</title></head>
<body><form id="login"><input name="user"><button>Log in</button></form></body></html>"""


class SiteState:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.likes: Counter = Counter()  # (post, session) -> count
        self.comments: list[tuple[str, str, str]] = []
        self.requests = 0
        self.paths: Counter = Counter()
        self.user_agents: dict[str, str] = {}  # post id -> User-Agent of its last page load
        self.hold: set[str] = set()  # post ids whose page hangs until released (a worker "dies" mid-task)

    def like_count(self, post: str) -> int:
        return sum(c for (p, _), c in self.likes.items() if p == post)


def _make_site_handler(state: SiteState):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args) -> None:  # quiet
            pass

        def _session(self) -> str:
            for part in (self.headers.get("Cookie") or "").split(";"):
                name, _, value = part.strip().partition("=")
                if name == "session":
                    return value
            return ""

        def _send(self, status: int, body: str, ctype: str = "text/html; charset=utf-8", headers=None) -> None:
            data = body.encode()
            self.send_response(status)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(data)))
            for k, v in (headers or {}).items():
                self.send_header(k, v)
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self) -> None:
            with state.lock:
                state.requests += 1
            path = urlsplit(self.path).path
            if path == "/login":
                return self._send(200, LOGIN_PAGE)
            if path.startswith("/post/"):
                post = path.rsplit("/", 1)[1]
                with state.lock:
                    state.paths[path] += 1
                    state.user_agents[post] = self.headers.get("User-Agent", "")
                deadline = time.monotonic() + 30
                while post in state.hold and time.monotonic() < deadline:
                    time.sleep(0.05)
                session = self._session()
                if not session.startswith("valid-"):
                    return self._send(302, "", headers={"Location": f"/login?next={path}"})
                return self._send(200, POST_PAGE.format(post=path.rsplit("/", 1)[1], user=session))
            if path == "/health":
                return self._send(200, "ok", "text/plain")
            return self._send(404, "not found", "text/plain")

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length).decode() if length else ""
            path = urlsplit(self.path).path
            session = self._session()
            if not session.startswith("valid-"):
                return self._send(401, json.dumps({"error": "login"}), "application/json")
            post = path.rsplit("/", 1)[1]
            with state.lock:
                if path.startswith("/like/"):
                    state.likes[(post, session)] += 1
                    count = state.like_count(post)
                elif path.startswith("/comment/"):
                    state.comments.append((post, session, body))
                    count = len(state.comments)
                else:
                    return self._send(404, "{}", "application/json")
            return self._send(200, json.dumps({"count": count}), "application/json")

    return Handler


class _Served:
    """A server on 127.0.0.1, answering from a daemon thread while its ``with`` block runs."""

    def __init__(self, server: TCPServer) -> None:
        self.server = server
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def port(self) -> int:
        return self.server.server_address[1]

    def __enter__(self) -> Self:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.server.server_close()


class LocalSite(_Served):
    """``with LocalSite() as site: site.url("/post/1")``."""

    def __init__(self, port: int = 0) -> None:
        self.state = SiteState()
        super().__init__(ThreadingHTTPServer(("127.0.0.1", port), _make_site_handler(self.state)))

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}{path}"


def _make_proxy_handler(proxy: LocalProxy):
    class Handler(StreamRequestHandler):
        def handle(self) -> None:
            request_line = self.rfile.readline(65537).decode("latin-1")
            if not request_line:
                return
            headers = []
            while True:
                line = self.rfile.readline(65537).decode("latin-1")
                if line in ("\r\n", "\n", ""):
                    break
                headers.append(line)
            method, target, _version = request_line.split(" ", 2)
            if proxy.credentials is not None:
                import base64

                expected = "Basic " + base64.b64encode(":".join(proxy.credentials).encode()).decode()
                if not any(
                    h.lower().startswith("proxy-authorization:") and h.split(":", 1)[1].strip() == expected
                    for h in headers
                ):
                    self.wfile.write(
                        b"HTTP/1.1 407 Proxy Authentication Required\r\n"
                        b'Proxy-Authenticate: Basic realm="local"\r\nContent-Length: 0\r\n\r\n'
                    )
                    return
            with proxy.lock:
                proxy.requests += 1
            if method == "CONNECT":
                host, _, port = target.partition(":")
                if not self._check_loopback(host):
                    return
                upstream = socket.create_connection((host, int(port or 443)), timeout=10)
                self.wfile.write(b"HTTP/1.1 200 Connection established\r\n\r\n")
                self._pipe(upstream)
                return
            url = urlsplit(target)
            if not self._check_loopback(url.hostname or ""):
                return
            upstream = socket.create_connection((url.hostname, url.port or 80), timeout=10)
            path = url.path or "/"
            if url.query:
                path += "?" + url.query
            kept = [h for h in headers if not h.lower().startswith(("proxy-", "connection:", "keep-alive:"))]
            length = 0
            for h in headers:
                if h.lower().startswith("content-length:"):
                    length = int(h.split(":", 1)[1].strip() or 0)
            body = self.rfile.read(length) if length else b""
            head = f"{method} {path} HTTP/1.1\r\n{''.join(kept)}Connection: close\r\n\r\n".encode("latin-1")
            upstream.sendall(head + body)
            self._pipe(upstream)

        def _check_loopback(self, host: str) -> bool:
            if host in ("127.0.0.1", "localhost"):
                return True
            with proxy.lock:
                proxy.refused.append(host)
            self.wfile.write(b"HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n\r\n")
            return False

        def _pipe(self, upstream: socket.socket) -> None:
            try:
                pipe(self.connection, upstream, idle_timeout=10)
            finally:
                upstream.close()

    return Handler


class LocalProxy(_Served):
    """A minimal forwarding HTTP proxy (plain requests and CONNECT) for 127.0.0.1 targets only."""

    def __init__(self, credentials: tuple[str, str] | None = None, port: int = 0) -> None:
        self.credentials = credentials
        self.lock = threading.Lock()
        self.requests = 0
        self.refused: list[str] = []
        ThreadingTCPServer.allow_reuse_address = True
        super().__init__(ThreadingTCPServer(("127.0.0.1", port), _make_proxy_handler(self)))


def dead_port() -> int:
    """A loopback port nobody listens on (bound, then released)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]
