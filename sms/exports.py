"""The blacklist as CSV (the page and the API write the same file)."""

import csv
import io

from campaigns.exports import csv_text, export_size_check


def blacklist_csv(entries) -> str:
    """number, reason, description, source, is_active, created_at; formula-like text is written as text.

    Bounded like every export (``TARGETS_EXPORT_MAX_ROWS``): above it a 400 asks for a narrower filter."""
    export_size_check(entries, noun="شماره")
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(["number", "reason", "description", "source", "is_active", "created_at"])
    for entry in entries.order_by("id").iterator():
        row = [entry.value, entry.reason, entry.description, entry.source, entry.is_active]
        writer.writerow([csv_text(value) for value in row] + [entry.created_at.isoformat()])
    return buffer.getvalue()
