"""Inbox requests whose answer is not JSON (Melipayamak's ASMX answers XML): a form POST with the provider
timeout, answered as text, and a small XML reader that refuses document types (entity tricks)."""

from __future__ import annotations

import http.client
import ssl
import urllib.parse
import xml.etree.ElementTree as ET

from django.conf import settings

MAX_BYTES = 1024 * 1024
_TRANSPORT_ERRORS = (OSError, http.client.HTTPException, ssl.SSLError)


def post_form_text(url: str, data: dict) -> tuple[int | None, str]:
    """(HTTP status, body text, at most 1 MB); status None when the request or its answer failed."""
    parts = urllib.parse.urlsplit(url)
    connection_class = http.client.HTTPSConnection if parts.scheme == "https" else http.client.HTTPConnection
    conn = connection_class(parts.hostname, parts.port, timeout=settings.SMS_HTTP_TIMEOUT)
    try:
        conn.request(
            "POST",
            (parts.path or "/") + (f"?{parts.query}" if parts.query else ""),
            body=urllib.parse.urlencode(data).encode(),
            headers={"Content-Type": "application/x-www-form-urlencoded"},
        )
        response = conn.getresponse()
        return response.status, response.read(MAX_BYTES).decode(errors="replace")
    except _TRANSPORT_ERRORS:
        return None, ""
    finally:
        conn.close()


def _xml_root(text: str) -> ET.Element | None:
    """The root of an XML answer; None when it is not XML we accept (a document type or entity declaration,
    or a parse error)."""
    head = text.upper()
    if "<!DOCTYPE" in head or "<!ENTITY" in head:
        return None
    try:
        return ET.fromstring(text)  # noqa: S314 - no DTD or entity declaration gets here
    except ET.ParseError:
        return None


def xml_records(text: str, record: str) -> list[dict[str, str]] | None:
    """The ``record`` elements of an XML answer as {child tag: text}; None when it is not XML we accept."""
    root = _xml_root(text)
    if root is None:
        return None
    return [
        {_local(child.tag): (child.text or "").strip() for child in element}
        for element in root.iter()
        if _local(element.tag) == record
    ]


def xml_scalar(text: str) -> str | None:
    """The text of a one-value XML answer (an ASMX method returning a number: ``<double …>12.5</double>``); None
    when it is not XML we accept or its root has children."""
    root = _xml_root(text)
    return None if root is None or len(root) else (root.text or "").strip()


def _local(tag: str) -> str:
    return str(tag).rsplit("}", 1)[-1]
