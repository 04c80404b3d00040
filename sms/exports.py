"""The blacklist as CSV (the page and the API write the same file)."""

import csv
import io

from campaigns.exports import csv_text


def blacklist_csv(entries) -> str:
    """number, reason, description, source, is_active, created_at; formula-like text is written as text."""
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(["number", "reason", "description", "source", "is_active", "created_at"])
    for entry in entries.order_by("id").iterator():
        row = [entry.value, entry.reason, entry.description, entry.source, entry.is_active]
        writer.writerow([csv_text(value) for value in row] + [entry.created_at.isoformat()])
    return buffer.getvalue()
