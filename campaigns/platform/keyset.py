"""Keyset ("cursor") pages for history lists: the next page starts after the last row shown, nothing is counted.

The SMS log, the campaign log, an execution's events and a target's timeline hold millions of rows; an
``OFFSET`` pager walks every row before the page and its count reads up to ``COUNT_CAP`` index entries. A
keyset page reads ``size + 1`` rows of an index range instead, whatever its position: the cursor is the
``(time, id)`` of the row it continues from, opaque to clients (URL-safe base64 of JSON), with a direction
("n": the rows after it, "p": the rows before it). The order is a time column then ``id``, both ascending
or both descending, and the condition repeats the time bound alone (``time <= t AND (time < t OR id < i)``)
so PostgreSQL starts the index scan at the cursor rather than filtering from the top.

Pages link "newer/older" with ``?cursor=``; the API takes ``?cursor=`` next to ``size``
(``campaigns.platform.api.pagination.KeysetPagination``).
"""

from __future__ import annotations

import base64
import binascii
import json
from dataclasses import dataclass, field
from datetime import datetime

from django.db.models import Q, QuerySet
from django.utils.translation import gettext

from campaigns.platform.errors import ValidationFailed


class BadCursor(ValueError):
    pass


def encode_cursor(value: datetime, pk: int, direction: str, source: str = "") -> str:
    """``source``: which of several merged lists the row comes from (``sms.log``: attempt or step), "" for one."""
    parts = [value.isoformat(), pk, direction, *([source] if source else [])]
    raw = json.dumps(parts, separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def decode_source_cursor(cursor: str) -> tuple[datetime, int, str, str]:
    """``(time, id, direction, source)``; a cursor without a source has "" there."""
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
        value, pk, direction, *rest = json.loads(raw)
        moment = datetime.fromisoformat(value)
    except (binascii.Error, ValueError, TypeError, UnicodeDecodeError) as exc:
        raise BadCursor(cursor) from exc
    source = "" if not rest else (rest[0] if len(rest) == 1 else None)
    if moment.tzinfo is None or not isinstance(pk, int) or isinstance(pk, bool) or direction not in ("n", "p"):
        raise BadCursor(cursor)
    if not isinstance(source, str):
        raise BadCursor(cursor)
    return moment, pk, direction, source


def decode_cursor(cursor: str) -> tuple[datetime, int, str]:
    moment, pk, direction, _source = decode_source_cursor(cursor)
    return moment, pk, direction


@dataclass
class KeysetPage:
    """One page of rows (iterable) with the cursors of its neighbours (``None``: no such page)."""

    rows: list
    next_cursor: str | None = None
    previous_cursor: str | None = None
    size: int = 0
    extra: dict = field(default_factory=dict)

    def __iter__(self):
        return iter(self.rows)

    def __len__(self) -> int:
        return len(self.rows)

    @property
    def has_next(self) -> bool:
        return self.next_cursor is not None

    @property
    def has_previous(self) -> bool:
        return self.previous_cursor is not None

    @property
    def has_other_pages(self) -> bool:
        return self.has_next or self.has_previous


def _after(time_field: str, descending: bool, moment: datetime, pk: int) -> Q:
    """Rows that come after ``(moment, pk)`` in the order."""
    op = "lt" if descending else "gt"
    bound = Q(**{f"{time_field}__{op}e": moment})
    return bound & (Q(**{f"{time_field}__{op}": moment}) | Q(**{time_field: moment, f"pk__{op}": pk}))


def keyset_page(queryset: QuerySet, *, time_field: str, descending: bool, size: int, cursor: str | None) -> KeysetPage:
    """The page of ``queryset`` ordered by ``(time_field, id)`` that ``cursor`` points to (the first without one).

    Raises ``BadCursor`` for a cursor that is not one of ours (pages fall back to the first page, the API
    answers 400)."""
    sign = "-" if descending else ""
    forward = [f"{sign}{time_field}", f"{sign}pk"]
    backward = [f"{'' if descending else '-'}{time_field}", f"{'' if descending else '-'}pk"]
    direction = "n"
    qs = queryset.order_by(*forward)
    if cursor:
        moment, pk, direction = decode_cursor(cursor)
        if direction == "n":
            qs = qs.filter(_after(time_field, descending, moment, pk))
        else:
            qs = queryset.order_by(*backward).filter(_after(time_field, not descending, moment, pk))
    rows = list(qs[: size + 1])
    more = len(rows) > size
    rows = rows[:size]
    if direction == "p":
        rows.reverse()

    def key(row, towards: str) -> str:
        return encode_cursor(getattr(row, time_field), row.pk, towards)

    page = KeysetPage(rows=rows, size=size)
    if rows:
        if direction == "n":
            page.next_cursor = key(rows[-1], "n") if more else None
            page.previous_cursor = key(rows[0], "p") if cursor else None
        else:
            page.previous_cursor = key(rows[0], "p") if more else None
            page.next_cursor = key(rows[-1], "n")
    elif cursor and direction == "n":  # past the end (rows deleted since): offer the way back
        page.previous_cursor = encode_cursor(moment, pk, "p")
    return page


def keyset_page_or_first(queryset: QuerySet, *, cursor: str | None, **kwargs) -> KeysetPage:
    """For pages: a cursor that does not parse shows the first page."""
    try:
        return keyset_page(queryset, cursor=cursor, **kwargs)
    except BadCursor:
        return keyset_page(queryset, cursor=None, **kwargs)


def keyset_page_or_400(queryset: QuerySet, *, cursor: str | None, **kwargs) -> KeysetPage:
    try:
        return keyset_page(queryset, cursor=cursor, **kwargs)
    except BadCursor:
        raise ValidationFailed.field("cursor", gettext("Not a page cursor of this list.")) from None
