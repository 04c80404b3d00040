"""An account's cookies: the forms staff paste, and where a browser may send them. No ORM here.

Three forms are accepted: a ``Cookie`` header (``name=value; name2=value2``), a JSON export (a list of
Playwright / browser-extension cookie objects) and a Netscape ``cookies.txt`` export. Every cookie is
bound to the account's site (``BrowserAccount.cookie_domain``, the platform's domain): a cookie without
its own domain is set for that domain, a cookie whose domain lies outside it is refused when saved and
dropped by the worker. The task link never decides where cookies go (the link is chosen by whoever
creates a campaign; the cookies by whoever stored them).
"""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from typing import Any
from urllib.parse import urlsplit

MAX_COOKIES = 500
PLAYWRIGHT_KEYS = {"name", "value", "domain", "path", "expires", "httpOnly", "secure", "sameSite"}
_DOMAIN = re.compile(r"^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$")
_SAME_SITE = {"strict": "Strict", "lax": "Lax", "none": "None", "no_restriction": "None"}


class CookieError(ValueError):
    """The pasted cookies cannot be read or do not belong to the account's site."""


def normalise_domain(value: str) -> str:
    """``example.com`` from ``Example.com`` / ``.example.com``; ``CookieError`` for anything else."""
    domain = (value or "").strip().lower().lstrip(".")
    if not domain or not _DOMAIN.match(domain):
        raise CookieError("دامنه سکو باید نام میزبان باشد (مثل example.com)، بدون http:// و درگاه و مسیر.")
    return domain


def _header(text: str) -> list[dict]:
    items = []
    for part in text.split(";"):
        if "=" in part:
            name, value = part.split("=", 1)
            if name.strip():
                items.append({"name": name.strip(), "value": value.strip()})
    return items


def _netscape(text: str) -> list[dict]:
    items = []
    for line in text.splitlines():
        line = line.strip()
        http_only = line.startswith("#HttpOnly_")
        if http_only:
            line = line[len("#HttpOnly_") :]
        if not line or line.startswith("#"):
            continue
        fields = line.split("\t")
        if len(fields) != 7:
            raise CookieError("هر سطر فایل Netscape باید هفت ستون جداشده با Tab داشته باشد.")
        domain, _sub, path, secure, expires, name, value = fields
        item = {"name": name, "value": value, "domain": domain, "path": path or "/", "secure": secure == "TRUE"}
        if expires.isdigit() and int(expires) > 0:
            item["expires"] = int(expires)
        if http_only:
            item["httpOnly"] = True
        items.append(item)
    return items


def _json(text: str) -> list[dict]:
    try:
        data = json.loads(text)
    except ValueError:
        raise CookieError("JSON کوکی‌ها خوانا نیست.") from None
    if isinstance(data, dict) and isinstance(data.get("cookies"), list):
        data = data["cookies"]  # Playwright storage state
    if not isinstance(data, list) or not all(isinstance(i, dict) for i in data):
        raise CookieError("JSON کوکی‌ها باید فهرستی از شیءها باشد.")
    items = []
    for raw in data:
        if not isinstance(raw.get("name"), str) or not isinstance(raw.get("value"), str) or not raw["name"]:
            raise CookieError("هر کوکی باید name و value متنی داشته باشد.")
        item = {k: v for k, v in raw.items() if k in PLAYWRIGHT_KEYS}
        if "expires" not in item and isinstance(raw.get("expirationDate"), int | float):
            item["expires"] = raw["expirationDate"]  # browser-extension exports
        if isinstance(item.get("sameSite"), str):
            item["sameSite"] = _SAME_SITE.get(item["sameSite"].lower(), "Lax")
        if "domain" not in item and isinstance(raw.get("url"), str):
            item["domain"] = urlsplit(raw["url"]).hostname or ""
        items.append(item)
    return items


def parse(raw: Any) -> list[dict]:
    """The cookies of any accepted form as dicts (``domain`` only when the export names one)."""
    if not raw:
        return []
    if isinstance(raw, list):
        return _json(json.dumps(raw))
    text = str(raw).strip()
    if text.startswith(("[", "{")):
        items = _json(text)
    elif "\t" in text or text.startswith("# Netscape"):
        items = _netscape(text)
    else:
        items = _header(text)
    if len(items) > MAX_COOKIES:
        raise CookieError(f"حداکثر {MAX_COOKIES} کوکی.")
    return items


def within(cookie_domain: str, site: str) -> bool:
    """Whether a cookie set for ``cookie_domain`` is sent only to ``site`` or its subdomains."""
    host = cookie_domain.lower().lstrip(".")
    return host == site or host.endswith("." + site)


def bind(items: list[dict], site: str) -> list[dict]:
    """Playwright cookies restricted to ``site``: domain-less ones get it, foreign ones are dropped; every one is
    ``Secure``, so the browser sends it only over HTTPS (or to a loopback host), never in clear text through a
    proxy — whatever link, step or redirect the task follows."""
    cookies = []
    for item in items:
        cookie = {k: v for k, v in item.items() if k in PLAYWRIGHT_KEYS}
        if not site:
            continue  # no site recorded: nowhere is safe
        if not cookie.get("domain"):
            cookie["domain"] = site
        if not within(cookie["domain"], site):
            continue
        cookie.setdefault("path", "/")
        cookie["secure"] = True
        cookies.append(cookie)
    return cookies


def check(raw: str, site: str) -> list[dict]:
    """Validate pasted cookies for an account of ``site``; returns them parsed (``CookieError`` else)."""
    items = parse(raw)
    if raw and raw.strip() and not items:
        raise CookieError("کوکی‌ای پیدا نشد؛ سرآیند Cookie، خروجی JSON یا فایل Netscape را بچسبانید.")
    if items and not site:
        raise CookieError("برای ذخیره کوکی‌ها دامنه سکو لازم است.")
    foreign = sorted({i["domain"] for i in items if i.get("domain") and not within(i["domain"], site)})
    if foreign:
        raise CookieError(f"کوکی‌های دامنه‌های {', '.join(foreign[:5])} برای سکوی {site} نیستند.")
    return items


def summary(items: list[dict]) -> tuple[int, datetime | None]:
    """(how many cookies, when the first one with an expiry expires)."""
    stamps = [i["expires"] for i in items if isinstance(i.get("expires"), int | float) and i["expires"] > 0]
    return len(items), (datetime.fromtimestamp(min(stamps), tz=UTC) if stamps else None)
