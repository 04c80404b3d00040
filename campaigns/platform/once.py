"""Create forms whose answer is the page itself because it shows a secret once (a new API key, a new webhook's
signing secret): a reload of that answer sends the form again. Each rendering of such a form carries a one-time
token (hidden field ``once``); a POST whose token this session already used creates nothing and the page says so."""

from __future__ import annotations

import secrets

SESSION_KEY = "forms_sent_once"
KEEP = 20  # the last tokens used in a session
REPEATED = (
    "این فرم پیش‌تر فرستاده شده بود (صفحه دوباره بارگذاری شد) و چیز تازه‌ای ساخته نشد؛"
    " آنچه ساخته شد همان بار نشان داده شد."
)


def once_token() -> str:
    return secrets.token_urlsafe(16)


def once_used(request, token: str) -> bool:
    """Whether this session already created something with ``token`` (a POST without a token is never a repeat)."""
    return bool(token) and token in request.session.get(SESSION_KEY, [])


def once_mark(request, token: str) -> None:
    """Record ``token`` as used, after what it created was saved."""
    if token:
        request.session[SESSION_KEY] = [*request.session.get(SESSION_KEY, []), token][-KEEP:]
