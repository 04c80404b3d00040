"""Where a browser worker may go (spec: browser-tasks.md → "Safety rules").

Only ``http``/``https`` URLs. The host is resolved (every address) and refused
when any address is loopback, link-local, private, CGNAT, multicast,
unspecified or reserved — IPv4-mapped and other IPv6 forms of those included.
``BROWSER_ALLOWED_PRIVATE_HOSTS`` ("host:port" entries) is the only way through.
The rule itself is ``campaigns.platform.netguard`` (outbound webhooks use it too).

The same rule runs at creation (links, ``goto`` steps, proxy hosts), in the
worker right before navigation, and for every connection the page opens:
each browser context talks to the network only through an ``EgressProxy`` on
127.0.0.1 that checks the destination of every request — redirects,
sub-resources, WebSockets and popups included, which Playwright's ``route``
cannot do for redirect hops — and connects to the address it checked (a DNS
answer that changes between the check and the connection is not followed).
DNS answers are cached per task only (one ``NetGuard`` per task).
"""

from __future__ import annotations

import base64
import select
import socket
import threading
from socketserver import StreamRequestHandler, ThreadingTCPServer
from urllib.parse import urlsplit

# The address rule is the platform's (webhooks use it too); this module adds the browser's egress proxy.
from campaigns.platform.netguard import (  # noqa: F401  (re-exported: the browser code imports them from here)
    DEFAULT_PORTS,
    KIND_LABELS,
    NEUTRAL_REASON,
    AddressNotAllowed,
    NetGuard,
    allowed_private_hosts,
    check_proxy,
    check_url,
    parse_allow_list,
    proxy_host_port,
    refused_kind,
    url_host_port,
)


# --- the egress proxy (one per browser context) ----------------------------------------------
def pipe(client: socket.socket, upstream: socket.socket, *, idle_timeout: float) -> None:
    """Copy bytes both ways until either side closes or both stay quiet for ``idle_timeout`` seconds."""
    sockets = [client, upstream]
    while True:
        readable, _, _ = select.select(sockets, [], [], idle_timeout)
        if not readable:
            return
        for sock in readable:
            data = sock.recv(65536)
            if not data:
                return
            (upstream if sock is client else client).sendall(data)


class UpstreamFailure(Exception):
    """The task's own proxy failed (refused, unreachable, 407): reported as PROXY_ERROR."""


def _read_head(rfile, limit: int = 65536) -> tuple[str, list[str]]:
    first = rfile.readline(limit).decode("latin-1")
    headers, size = [], len(first)
    while True:
        line = rfile.readline(limit).decode("latin-1")
        size += len(line)
        if line in ("\r\n", "\n", "") or size > limit:
            break
        headers.append(line)
    return first, headers


def _parse_authority(target: str, default_port: int) -> tuple[str, int]:
    if target.startswith("["):
        host, _, rest = target[1:].partition("]")
        port = rest.lstrip(":")
    else:
        host, _, port = target.rpartition(":") if target.count(":") == 1 else (target, "", "")
    return host, int(port) if port.isdigit() else default_port


class EgressProxy:
    """A forwarding proxy on 127.0.0.1 through which one browser context reaches the network.

    ``guard`` is replaced for every task; ``upstream`` is the task's own proxy
    (``{"server", "username", "password"}``) or None (direct).
    """

    def __init__(self, *, upstream: dict | None = None, connect_timeout: float = 10, idle_timeout: float = 30):
        self.upstream = upstream or None
        self.connect_timeout = connect_timeout
        self.idle_timeout = idle_timeout
        self.guard = NetGuard(allowed=frozenset())
        self.upstream_error = ""
        self._lock = threading.Lock()
        ThreadingTCPServer.allow_reuse_address = True
        self.server = ThreadingTCPServer(("127.0.0.1", 0), self._handler())
        self.server.daemon_threads = True
        self.thread = threading.Thread(
            target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True, name="egress-proxy"
        )
        self.thread.start()

    @property
    def upstream_is_socks(self) -> bool:
        return self.upstream is not None and self.upstream["server"].lower().startswith("socks")

    @property
    def server_url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def begin_task(self, guard: NetGuard) -> None:
        with self._lock:
            self.guard = guard
            self.upstream_error = ""

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def _fail_upstream(self, reason: str) -> UpstreamFailure:
        with self._lock:
            self.upstream_error = self.upstream_error or reason
        return UpstreamFailure(reason)

    # connecting -----------------------------------------------------------
    def _connect_checked(self, host: str, port: int, addresses: list[str]) -> socket.socket:
        last: OSError | None = None
        for address in addresses:
            try:
                return socket.create_connection((address, port), timeout=self.connect_timeout)
            except OSError as exc:
                last = exc
        raise last or OSError("no address")

    def _open_upstream(self, guard: NetGuard) -> tuple[socket.socket, str]:
        server = self.upstream["server"]
        scheme = server.split("://", 1)[0].lower() if "://" in server else "http"
        host, port = proxy_host_port(server)
        try:
            addresses = guard.check_host(host, port)
        except AddressNotAllowed:
            raise self._fail_upstream("proxy address not allowed") from None
        try:
            return self._connect_checked(host, port, addresses), scheme
        except OSError:
            raise self._fail_upstream("ERR_PROXY_CONNECTION_FAILED: the proxy cannot be reached") from None

    def _auth_header(self) -> str:
        username = self.upstream.get("username") or ""
        if not username:
            return ""
        token = base64.b64encode(f"{username}:{self.upstream.get('password') or ''}".encode()).decode()
        return f"Proxy-Authorization: Basic {token}\r\n"

    def _tunnel(self, host: str, port: int, addresses: list[str], guard: NetGuard) -> socket.socket:
        """A TCP stream to host:port — direct to a checked address, or through the task's proxy."""
        if self.upstream is None:
            return self._connect_checked(host, port, addresses)
        sock, scheme = self._open_upstream(guard)
        try:
            if scheme.startswith("socks5"):
                self._socks5(sock, host, port)
            else:
                authority = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
                sock.sendall(
                    f"CONNECT {authority} HTTP/1.1\r\nHost: {authority}\r\n{self._auth_header()}\r\n".encode("latin-1")
                )
                status, _ = _read_head(sock.makefile("rb"))
                code = status.split(" ", 2)[1] if status.count(" ") >= 1 else ""
                if code == "407":
                    raise self._fail_upstream("proxy answered 407 Proxy Authentication Required")
                if code != "200":
                    raise self._fail_upstream(f"ERR_TUNNEL_CONNECTION_FAILED: the proxy answered {code or 'nothing'}")
        except BaseException:
            sock.close()
            raise
        return sock

    def _socks5(self, sock: socket.socket, host: str, port: int) -> None:
        try:
            sock.sendall(b"\x05\x01\x00")
            if sock.recv(2) != b"\x05\x00":
                raise self._fail_upstream("ERR_SOCKS_CONNECTION_FAILED: the proxy refused the handshake")
            name = host.encode("idna")
            sock.sendall(b"\x05\x01\x00\x03" + bytes([len(name)]) + name + port.to_bytes(2, "big"))
            reply = sock.recv(4)
            if len(reply) < 4 or reply[1] != 0:
                raise self._fail_upstream("ERR_SOCKS_CONNECTION_FAILED: the proxy refused the connection")
            rest = {1: 4, 4: 16}.get(reply[3])
            rest = rest if rest is not None else sock.recv(1)[0]
            sock.recv(rest + 2)
        except OSError:
            raise self._fail_upstream("ERR_SOCKS_CONNECTION_FAILED: the proxy cannot be reached") from None

    # the handler ---------------------------------------------------------------
    def _handler(self):
        proxy = self

        class Handler(StreamRequestHandler):
            def handle(self) -> None:
                try:
                    self._handle()
                except (OSError, ValueError, UpstreamFailure):
                    return  # the browser sees a failed connection; the reason is on the proxy

            def _refuse(self, host: str, port: int) -> None:
                self.guard.note_blocked(host, port)
                body = NEUTRAL_REASON.encode()
                self.wfile.write(
                    b"HTTP/1.1 403 Forbidden\r\nContent-Type: text/plain\r\nConnection: close\r\n"
                    + f"Content-Length: {len(body)}\r\n\r\n".encode()
                    + body
                )

            def _handle(self) -> None:
                self.guard = guard = proxy.guard
                request_line, headers = _read_head(self.rfile)
                if request_line.count(" ") < 2:
                    return
                method, target, _version = request_line.split(" ", 2)
                if method == "CONNECT":
                    host, port = _parse_authority(target, 443)
                    path = None
                else:
                    parts = urlsplit(target)
                    if parts.scheme.lower() != "http" or not parts.hostname:
                        self._refuse(parts.hostname or "", 0)
                        return
                    host, port = parts.hostname, parts.port or 80
                    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
                extra = ""
                try:
                    addresses = guard.check_host(host, port)
                except AddressNotAllowed:
                    self._refuse(host, port)
                    return
                try:
                    if path is not None and proxy.upstream is not None and not proxy.upstream_is_socks:
                        upstream = proxy._open_upstream(guard)[0]  # plain HTTP: absolute form to the proxy
                        path = target
                        extra = proxy._auth_header()
                    else:
                        upstream = proxy._tunnel(host, port, addresses, guard)
                except UpstreamFailure:
                    self.wfile.write(b"HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
                    return
                except OSError:
                    return  # destination unreachable: the browser reports an empty response
                with upstream:
                    if path is None:
                        self.wfile.write(b"HTTP/1.1 200 Connection established\r\n\r\n")
                    else:
                        kept = [
                            h for h in headers if not h.lower().startswith(("proxy-", "connection:", "keep-alive:"))
                        ]
                        length = next(
                            (
                                int(h.split(":", 1)[1].strip() or 0)
                                for h in headers
                                if h.lower().startswith("content-length:")
                            ),
                            0,
                        )
                        body = self.rfile.read(length) if length else b""
                        head = f"{method} {path} HTTP/1.1\r\n{''.join(kept)}{extra}Connection: close\r\n\r\n"
                        upstream.sendall(head.encode("latin-1") + body)
                        if proxy.upstream is not None and not proxy.upstream_is_socks:
                            first = upstream.recv(65536)
                            if first[9:12] == b"407":
                                proxy._fail_upstream("proxy answered 407 Proxy Authentication Required")
                            self.connection.sendall(first)
                    self._pipe(upstream)

            def _pipe(self, upstream: socket.socket) -> None:
                pipe(self.connection, upstream, idle_timeout=proxy.idle_timeout)

        return Handler
