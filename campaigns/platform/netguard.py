"""Where the platform may connect on a user's behalf: browser workers (links, proxies) and outbound webhooks.

Only ``http``/``https`` URLs. The host is resolved (every address) and refused when any address is loopback,
link-local, private, CGNAT, multicast, unspecified or reserved — IPv4-mapped and other IPv6 forms of those
included. An allow-list of "host:port" entries is the only way through (``BROWSER_ALLOWED_PRIVATE_HOSTS`` for
the browser workers, ``WEBHOOK_ALLOWED_PRIVATE_HOSTS`` for webhooks). The caller connects to the addresses the
check returned, so a DNS answer that changes between the check and the connection is not followed. The
browser's egress proxy, which applies the same rule to every connection of a page, is ``workers.netguard``.
"""

from __future__ import annotations

import ipaddress
import socket
import threading
from collections.abc import Callable, Iterable
from urllib.parse import urlsplit

ALLOWED_SCHEMES = ("http", "https")
DEFAULT_PORTS = {"http": 80, "https": 443, "ws": 80, "wss": 443}
NEUTRAL_REASON = "address not allowed"

_CGNAT = ipaddress.ip_network("100.64.0.0/10")
_NAT64 = ipaddress.ip_network("64:ff9b::/96")

# Persian labels for validation messages (creation); the worker only reports NEUTRAL_REASON. They are read by
# staff on the webhook and browser pages: no network jargon, an address only as an example.
KIND_LABELS = {
    "scheme": "فقط نشانی‌های http و https مجازند",
    "malformed": "نشانی معتبر نیست",
    "credentials": "نام کاربری و گذرواژه در نشانی مجاز نیست",
    "unresolved": "نام میزبان پیدا نشد",
    "loopback": "نشانی همین سرور است (نشانی محلی)، نه نشانی‌ای در اینترنت",
    "link-local": "به یک نشانی محلی شبکه (مانند 169.254.169.254) می‌رسد",
    "private": "به یک نشانی شبکه خصوصی (داخلی) می‌رسد",
    "cgnat": "به یک نشانی شبکه مشترک اپراتور (مانند 100.64.0.1) می‌رسد",
    "multicast": "به یک نشانی چندپخشی می‌رسد",
    "unspecified": "به نشانی نامشخص (0.0.0.0 یا ::) می‌رسد",
    "reserved": "به یک نشانی رزروشده می‌رسد",
}
# The kinds that are about where an address leads (not how the URL is written): the message says what is accepted.
ADDRESS_KINDS = frozenset({"loopback", "link-local", "private", "cgnat", "multicast", "unspecified", "reserved"})
ONLY_PUBLIC = "فقط نشانی‌های عمومی اینترنت پذیرفته می‌شوند"


class AddressNotAllowed(Exception):
    """A URL or host the worker must not reach; ``kind`` says why (see ``KIND_LABELS``)."""

    def __init__(self, kind: str, host: str = "") -> None:
        super().__init__(NEUTRAL_REASON)
        self.kind = kind
        self.host = host

    @property
    def message(self) -> str:
        label = KIND_LABELS.get(self.kind, NEUTRAL_REASON)
        if self.kind in ADDRESS_KINDS:
            label = f"{label}؛ {ONLY_PUBLIC}"
        return f"«{self.host}»: {label}." if self.host else f"{label}."


# --- addresses -------------------------------------------------------------------------
def refused_kind(address: str | ipaddress.IPv4Address | ipaddress.IPv6Address) -> str | None:
    """Why this address is refused, or None for a public unicast address."""
    ip = ipaddress.ip_address(address.split("%", 1)[0] if isinstance(address, str) else address)
    if isinstance(ip, ipaddress.IPv6Address):
        embedded = ip.ipv4_mapped or ip.sixtofour or (ip.teredo[1] if ip.teredo else None)
        if embedded is None and ip in _NAT64:
            embedded = ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)
        if embedded is not None:
            kind = refused_kind(embedded)
            if kind or ip.ipv4_mapped:
                return kind
    if ip.is_unspecified:
        return "unspecified"
    if ip.is_loopback:
        return "loopback"
    if ip.is_link_local:
        return "link-local"
    if ip.is_multicast:
        return "multicast"
    if isinstance(ip, ipaddress.IPv4Address) and ip in _CGNAT:
        return "cgnat"
    if ip.is_reserved:
        return "reserved"
    if ip.is_private:
        return "private"
    if not ip.is_global:
        return "reserved"
    return None


# --- the allow-list ----------------------------------------------------------------------
def _split_host_port(entry: str) -> tuple[str, int] | None:
    entry = entry.strip().lower()
    if entry.startswith("["):
        host, _, rest = entry[1:].partition("]")
        port = rest.lstrip(":")
    else:
        host, _, port = entry.rpartition(":")
    if not host or not port.isdigit():
        return None
    return host, int(port)


def parse_allow_list(entries: Iterable[str]) -> frozenset[tuple[str, int]]:
    """{("127.0.0.1", 8766), …} from "host:port" strings ("[::1]:8766" for IPv6); bad entries are ignored."""
    return frozenset(p for p in (_split_host_port(e) for e in entries or ()) if p is not None)


def allowed_private_hosts() -> frozenset[tuple[str, int]]:
    """The private ``host:port`` a browser worker may reach (``BROWSER_ALLOWED_PRIVATE_HOSTS``)."""
    from django.conf import settings

    return parse_allow_list(settings.BROWSER_ALLOWED_PRIVATE_HOSTS)


# --- the guard (one per task: its DNS cache lives as long as the task) --------------------------
Resolver = Callable[[str, int], list[str]]


def system_resolver(host: str, port: int) -> list[str]:
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return list(dict.fromkeys(info[4][0] for info in infos))


class NetGuard:
    """Decides whether a URL / host:port may be reached; remembers what it refused (no URLs kept)."""

    def __init__(self, *, allowed: Iterable[tuple[str, int]] | None = None, resolver: Resolver | None = None) -> None:
        self.allowed = frozenset(allowed) if allowed is not None else allowed_private_hosts()
        self.resolver = resolver or system_resolver
        self._cache: dict[tuple[str, int], list[str]] = {}
        self._lock = threading.Lock()
        self.blocked: list[tuple[str, int]] = []

    def is_allow_listed(self, host: str, port: int) -> bool:
        return (host.lower().strip("[]"), port) in self.allowed

    def resolve(self, host: str, port: int) -> list[str]:
        key = (host.lower(), port)
        with self._lock:
            cached = self._cache.get(key)
        if cached is not None:
            return cached
        try:
            addresses = self.resolver(host, port)
        except (OSError, UnicodeError):
            addresses = []
        with self._lock:
            self._cache[key] = addresses
        return addresses

    def check_host(self, host: str, port: int) -> list[str]:
        """The addresses to connect to, or AddressNotAllowed."""
        host = (host or "").strip().strip("[]").rstrip(".").lower()
        if not host or not 0 < port < 65536:
            raise AddressNotAllowed("malformed", host)
        try:  # an address literal needs no DNS
            literal = ipaddress.ip_address(host.split("%", 1)[0])
        except ValueError:
            literal = None
        if literal is not None:
            addresses = [str(literal)]
        else:
            addresses = self.resolve(host, port)
            if not addresses:
                raise AddressNotAllowed("unresolved", host)
        if self.is_allow_listed(host, port):
            return addresses
        for address in addresses:
            kind = refused_kind(address)
            if kind:
                raise AddressNotAllowed(kind, host)
        return addresses

    def check_url(self, url: str) -> list[str]:
        host, port = url_host_port(url)
        return self.check_host(host, port)

    def note_blocked(self, host: str, port: int) -> None:
        with self._lock:
            self.blocked.append((host, port))


def url_host_port(url: str) -> tuple[str, int]:
    """(host, port) of an http(s) URL, or AddressNotAllowed (scheme, credentials, malformed)."""
    if not isinstance(url, str) or not url.strip() or any(c in url for c in "\\\r\n\t "):
        raise AddressNotAllowed("malformed")
    try:
        parts = urlsplit(url.strip())
        port = parts.port
    except ValueError:
        raise AddressNotAllowed("malformed") from None
    scheme = parts.scheme.lower()
    if scheme not in ALLOWED_SCHEMES:
        raise AddressNotAllowed("scheme", f"{scheme}:" if scheme else url[:40])
    if parts.username is not None or parts.password is not None:
        raise AddressNotAllowed("credentials", parts.hostname or "")
    if not parts.hostname:
        raise AddressNotAllowed("malformed")
    return parts.hostname, port or DEFAULT_PORTS[scheme]


def proxy_host_port(server: str) -> tuple[str, int]:
    """(host, port) of a proxy server string such as ``http://host:3128`` or ``socks5://[::1]:1080``."""
    parts = urlsplit(server if "://" in server else f"http://{server}")
    try:
        port = parts.port or 80
    except ValueError:
        raise AddressNotAllowed("malformed") from None
    if not parts.hostname:
        raise AddressNotAllowed("malformed")
    return parts.hostname, port


def check_url(url: str, *, guard: NetGuard | None = None) -> None:
    (guard or NetGuard()).check_url(url)


def check_proxy(host: str, port: int, *, guard: NetGuard | None = None) -> None:
    (guard or NetGuard()).check_host(host, port)
