"""The blacklist as CSV (the page and the API write the same file), streamed as it is written."""

from collections.abc import Iterator

from django.conf import settings

from campaigns.exports import csv_stream, csv_text, export_size_check

HEADERS = ["number", "reason", "description", "source", "is_active", "created_at"]


def _rows(entries) -> Iterator[list]:
    yield HEADERS
    for entry in entries.order_by("id").iterator(chunk_size=2000):
        row = [entry.value, entry.reason, entry.description, entry.source, entry.is_active]
        yield [csv_text(value) for value in row] + [entry.created_at.isoformat()]


def blacklist_csv(entries) -> Iterator[bytes]:
    """number, reason, description, source, is_active, created_at; formula-like text is written as text.

    Bounded by ``BLACKLIST_EXPORT_MAX_ROWS`` (a million: the list has no filter to narrow it, and a CSV row is
    cheap to stream): above it a 400 — checked here, before the first byte of the stream (a
    ``StreamingHttpResponse``)."""
    export_size_check(entries, noun="شماره", limit=settings.BLACKLIST_EXPORT_MAX_ROWS)
    return csv_stream(_rows(entries))
