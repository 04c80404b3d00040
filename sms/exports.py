"""The blacklist as CSV (the page and the API write the same file), streamed as it is written."""

import datetime as dt
from collections.abc import Iterator

from django.conf import settings

from campaigns.exports import csv_stream, csv_text, export_size_check
from campaigns.platform.jalali import to_jalali
from campaigns.platform.tenancy import workspace_zone

HEADERS = ["number", "reason", "description", "source", "is_active", "created_at"]


def _rows(entries, *, zone: dt.tzinfo) -> Iterator[list]:
    """The header, then one row per entry: plain values read by a server-side cursor (no model instance)."""
    yield HEADERS
    fields = ("value", "reason", "description", "source", "is_active", "created_at")
    for *row, created_at in entries.order_by("id").values_list(*fields).iterator(chunk_size=2000):
        yield [csv_text(value) for value in row] + [to_jalali(created_at, with_time=True, tz=zone)]


def blacklist_csv(entries, *, workspace) -> Iterator[bytes]:
    """number, reason, description, source, is_active, created_at; formula-like text is written as text,
    ``created_at`` as the workspace reads it (its zone, the Jalali calendar).

    Bounded by ``BLACKLIST_EXPORT_MAX_ROWS`` (a million: the list has no filter to narrow it, and a CSV row is
    cheap to stream): above it a 400 — checked here, before the first byte of the stream (a
    ``StreamingHttpResponse``)."""
    export_size_check(entries, noun="شماره", limit=settings.BLACKLIST_EXPORT_MAX_ROWS)
    return csv_stream(_rows(entries, zone=workspace_zone(workspace)))
