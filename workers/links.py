"""Target links: one normal form and its SHA-256, the key that makes a task slot unique.

A link can be longer than PostgreSQL's btree limit (≈ 2,700 bytes; a 1,500-character
Persian URL is already 3,000 bytes), so uniqueness is on the 64-character hash of the
normalised URL, never on the text itself.
"""

import hashlib
from urllib.parse import urlsplit, urlunsplit

MAX_LINK_LENGTH = 8000
DEFAULT_PORTS = {"http": "80", "https": "443"}


def normalise_link(url: str) -> str:
    """Scheme and host in lower case, default port and an empty path made explicit; the rest as written."""
    text = (url or "").strip()
    try:
        parts = urlsplit(text)
        port = parts.port
    except ValueError:
        return text
    scheme = parts.scheme.lower()
    host = (parts.hostname or "").lower()
    if ":" in host:  # IPv6 literal
        host = f"[{host}]"
    netloc = host
    if parts.username is not None:
        userinfo = parts.username + (f":{parts.password}" if parts.password is not None else "")
        netloc = f"{userinfo}@{host}"
    if port is not None and str(port) != DEFAULT_PORTS.get(scheme):
        netloc = f"{netloc}:{port}"
    return urlunsplit((scheme, netloc, parts.path or "/", parts.query, parts.fragment))


def link_hash(url: str) -> str:
    """SHA-256 (hex) of the normalised link."""
    return hashlib.sha256(normalise_link(url).encode("utf-8")).hexdigest()
