"""Target export to .xlsx (a read: it only renders a queryset).

Cell text comes from users and imports, so a value that a spreadsheet would run as a formula
(starting with ``= + - @``, a tab or a carriage return) is written as a text cell with Excel's
quote prefix: shown and re-imported as typed, never evaluated. An export is bounded by
``TARGETS_EXPORT_MAX_ROWS``; above it the caller asks for a narrower filter.
"""

import io
import re

from django.conf import settings
from openpyxl import Workbook
from openpyxl.cell import WriteOnlyCell

from campaigns.platform.errors import ValidationFailed
from campaigns.platform.jalali import fa_digits, to_jalali
from campaigns.platform.phones import display_phone

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


def text_cell(sheet, value):
    """A cell for ``value``; text a spreadsheet would evaluate becomes a quoted text cell."""
    if isinstance(value, str) and value.startswith(FORMULA_PREFIXES):
        cell = WriteOnlyCell(sheet, value=value)
        cell.data_type = "s"  # openpyxl typed it as a formula
        cell.quotePrefix = True
        return cell
    return value


def csv_text(value):
    """``value`` for a CSV cell: text a spreadsheet would evaluate gets a leading apostrophe.

    Numbers stored in E.164 (``+98912…``) are digits only and pass unchanged: a spreadsheet reads
    them as a number, nothing more.
    """
    if isinstance(value, str) and value.startswith(FORMULA_PREFIXES) and not E164.fullmatch(value):
        return "'" + value
    return value


def export_size_check(queryset, *, noun: str = "ردیف", hint: str = "") -> None:
    """Refuse an export above the synchronous bound (``TARGETS_EXPORT_MAX_ROWS``), before rendering anything."""
    limit = settings.TARGETS_EXPORT_MAX_ROWS
    if queryset.count() > limit:
        message = f"خروجی بیش از {fa_digits(limit)} {noun} است؛ فیلتر را محدودتر کنید{hint}."
        raise ValidationFailed(message, details={"non_field_errors": [message]})


def targets_export_check(queryset) -> None:
    export_size_check(queryset, noun="مخاطب", hint=" (مثلاً فهرست، شهر یا تاریخ)")


def targets_xlsx(queryset) -> bytes:
    targets_export_check(queryset)
    workbook = Workbook(write_only=True)
    sheet = workbook.create_sheet("مخاطبان")
    sheet.sheet_view.rightToLeft = True
    sheet.append(HEADERS)
    for target in queryset.prefetch_related("lists").iterator(chunk_size=2000):
        row = [
            target.name,
            target.first_name,
            target.last_name,
            display_phone(target.mobile),
            display_phone(target.landline),
            target.get_status_display(),
            target.province,
            target.city,
            target.priority,
            "، ".join(tl.name for tl in target.lists.all()),
            to_jalali(target.created_at, with_time=True),
        ]
        sheet.append([text_cell(sheet, value) for value in row])
    buffer = io.BytesIO()
    workbook.save(buffer)
    return buffer.getvalue()
