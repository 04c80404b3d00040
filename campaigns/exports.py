"""Target export to .xlsx (a read: it only renders a queryset), streamed as it is written.

Cell text comes from users and imports, so a value that a spreadsheet would run as a formula
(starting with ``= + - @``, a tab or a carriage return) is written as a text cell with Excel's
quote prefix: shown and re-imported as typed, never evaluated. An export is bounded by
``TARGETS_EXPORT_MAX_ROWS``; above it the caller asks for a narrower filter — checked before the first
byte, so a refusal is still an error answer. The rows go out through ``campaigns.platform.xlsx_stream``
in batches (``StreamingHttpResponse``): constant memory, the download starts at once.
"""

import csv
import datetime as dt
import re
from collections.abc import Iterable, Iterator

from django.conf import settings
from django.db import connection

from campaigns.platform.database import is_postgresql
from campaigns.platform.errors import ValidationFailed
from campaigns.platform.jalali import fa_digits, to_jalali
from campaigns.platform.phones import display_phone
from campaigns.platform.tenancy import workspace_zone
from campaigns.platform.xlsx_stream import xlsx_stream
from campaigns.selectors import ListMembers

XLSX = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"

HEADERS = [
    "نام",
    "نام کوچک",
    "نام خانوادگی",
    "موبایل",
    "تلفن ثابت",
    "وضعیت",
    "استان",
    "شهر",
    "اولویت",
    "فهرست‌ها",
    "ایجاد",
]


FORMULA_PREFIXES = ("=", "+", "-", "@", "\t", "\r")
E164 = re.compile(r"\+[0-9]{6,15}")


def csv_text(value):
    """``value`` for a CSV cell: text a spreadsheet would evaluate gets a leading apostrophe.

    Numbers stored in E.164 (``+98912…``) are digits only and pass unchanged: a spreadsheet reads
    them as a number, nothing more.
    """
    if isinstance(value, str) and value.startswith(FORMULA_PREFIXES) and not E164.fullmatch(value):
        return "'" + value
    return value


def export_size_check(rows, *, noun: str = "ردیف", hint: str = "", limit: int | None = None) -> None:
    """Refuse an export above its bound (``limit``, default ``TARGETS_EXPORT_MAX_ROWS``), before rendering
    anything. Counted only up to the bound (``rows``: a queryset, or a ``ListMembers`` walk capped at it)."""
    limit = settings.TARGETS_EXPORT_MAX_ROWS if limit is None else limit
    n = rows.order_by()[: limit + 1].count() if hasattr(rows, "query") else len(rows)
    if n > limit:
        message = f"خروجی بیش از {fa_digits(limit)} {noun} است؛ فیلتر را محدودتر کنید{hint}."
        raise ValidationFailed(message, details={"non_field_errors": [message]})


EXPORT_FIELDS = [
    "id",
    "name",
    "first_name",
    "last_name",
    "mobile",
    "landline",
    "status",
    "province",
    "city",
    "priority",
    "created_at",
]
CHUNK = 2000


def _chunks(rows: Iterable, size: int) -> Iterator[list]:
    chunk: list = []
    for row in rows:
        chunk.append(row)
        if len(chunk) >= size:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


def _row_chunks(queryset, members) -> Iterator[list]:
    """The export's rows as plain values, ``CHUNK`` at a time: a list's members walked by the list's index and
    read by id (``members``), else one server-side cursor over the filtered queryset."""
    if members is None:
        yield from _chunks(queryset.values_list(*EXPORT_FIELDS).iterator(chunk_size=CHUNK), CHUNK)
        return
    rows = queryset.order_by("-id").values_list(*EXPORT_FIELDS)
    for ids in members.id_chunks(CHUNK):
        yield list(rows.filter(pk__in=ids))


def target_rows(queryset, members=None, *, zone: dt.tzinfo) -> Iterator[list]:
    """The header, then one row per target: plain values, the lists' names in one query per chunk of 2,000 (no
    model instance or related manager per row)."""
    through = queryset.model.lists.through
    statuses = dict(queryset.model._meta.get_field("status").flatchoices)
    yield HEADERS
    for chunk in _row_chunks(queryset, members):
        names: dict[int, list[str]] = {}
        memberships = through.objects.filter(target_id__in=[row[0] for row in chunk])
        memberships = memberships.order_by("targetlist__name", "targetlist_id")
        for target_id, name in memberships.values_list("target_id", "targetlist__name"):
            names.setdefault(target_id, []).append(name)
        for pk, name, first, last, mobile, landline, status, province, city, priority, created in chunk:
            yield [
                name,
                first,
                last,
                display_phone(mobile),
                display_phone(landline),
                statuses.get(status, status),
                province,
                city,
                priority,
                "، ".join(names.get(pk, ())),
                to_jalali(created, with_time=True, tz=zone),
            ]


def targets_xlsx_stream(queryset, *, workspace, list_id: int | None = None) -> Iterator[bytes]:
    """The workbook in pieces for a ``StreamingHttpResponse``; the size check runs now, before any byte.
    Times are written in the ``workspace``'s zone and calendar.

    ``list_id``: the queryset is filtered by that list; on PostgreSQL its members are walked by the list's own
    index (``campaigns.selectors.ListMembers``) — for the count and for the rows — instead of a join that
    the planner answers by reading every target of the workspace."""
    limit = settings.TARGETS_EXPORT_MAX_ROWS
    members = None
    if list_id is not None and is_postgresql(connection):
        members = ListMembers(queryset, list_id=list_id, cap=limit)
    export_size_check(
        queryset if members is None else members, noun="مخاطب", hint=" (مثلاً فهرست، شهر یا تاریخ)", limit=limit
    )
    return xlsx_stream(target_rows(queryset, members, zone=workspace_zone(workspace)), sheet_name="مخاطبان")


class _Echo:
    def write(self, value: str) -> str:
        return value


def csv_stream(rows: Iterable[list], *, bom: bool = False) -> Iterator[bytes]:
    """CSV lines as UTF-8 bytes, one batch of 500 rows at a time (``bom``: a byte-order mark first)."""
    writer = csv.writer(_Echo())
    if bom:
        yield "\ufeff".encode()
    batch: list[str] = []
    for row in rows:
        batch.append(writer.writerow(row))
        if len(batch) >= 500:
            yield "".join(batch).encode()
            batch.clear()
    yield "".join(batch).encode()
