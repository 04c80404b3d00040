"""Jalali (Solar Hijri) rendering in the active (workspace) time zone, Persian digits, and the one parser of
what staff type as a Jalali date ("1405/08/10" or "1405/08/10 09:30", Persian or Latin digits).

Datetimes are stored in UTC; the rendering helpers are used only when rendering
(templates, admin list displays, exports).
"""

import datetime as dt
import functools
import re

import jdatetime
from django.utils import timezone

_FA_DIGITS = str.maketrans("0123456789", "۰۱۲۳۴۵۶۷۸۹")
_TO_LATIN = str.maketrans("۰۱۲۳۴۵۶۷۸۹٠١٢٣٤٥٦٧٨٩", "01234567890123456789")
_JALALI = re.compile(r"^\s*(\d{4})[/-](\d{1,2})[/-](\d{1,2})(?:\s+(\d{1,2}):(\d{2}))?\s*$")
FORMAT_MESSAGE = "تاریخ را به شکل ۱۴۰۵/۰۸/۱۰ یا ۱۴۰۵/۰۸/۱۰ ۰۹:۰۰ بنویسید."
MISSING_MESSAGE = "این تاریخ وجود ندارد."


def fa_digits(value) -> str:
    """Latin digits → Persian digits (everything else unchanged)."""
    if value is None:
        return ""
    return str(value).translate(_FA_DIGITS)


def to_latin_digits(value: str) -> str:
    """Persian and Arabic-Indic digits → Latin digits (what staff type in number and time inputs)."""
    return (value or "").translate(_TO_LATIN)


@functools.lru_cache(maxsize=4096)
def _jalali_day(day: dt.date) -> str:
    """'1405/09/09' for a Gregorian date (kept: an export or a long page repeats its days)."""
    value = jdatetime.date.fromgregorian(date=day)
    return f"{value.year:04d}/{value.month:02d}/{value.day:02d}"


def to_jalali(value, *, with_time: bool = False, tz=None) -> str:
    """'1405/09/09' (or '1405/09/09 15:30') for a date/datetime; '' for None."""
    if value is None or value == "":
        return ""
    if isinstance(value, dt.datetime):
        if timezone.is_aware(value):
            value = timezone.localtime(value, tz)
        day = _jalali_day(value.date())
        return f"{day} {value.hour:02d}:{value.minute:02d}" if with_time else day
    if isinstance(value, dt.date):
        return _jalali_day(value)
    return str(value)


def parse_jalali(text: str) -> dt.datetime | None:
    """A typed Jalali date (and time) → the naive Gregorian local datetime; None for blank text.

    ValueError with a Persian message for anything else (``FORMAT_MESSAGE``, ``MISSING_MESSAGE``)."""
    text = (text or "").translate(_TO_LATIN).strip()
    if not text:
        return None
    match = _JALALI.match(text)
    if not match:
        raise ValueError(FORMAT_MESSAGE)
    y, m, d, hh, mm = (int(g) if g else 0 for g in match.groups())
    try:
        return jdatetime.datetime(y, m, d, hh, mm).togregorian()
    except ValueError:
        raise ValueError(MISSING_MESSAGE) from None


def naive_to_jalali(value: str) -> str:
    """An ISO local datetime as stored in a step's config ("2026-12-20T09:00") → "1405/09/29 09:00"; text that is
    not one is returned as it is (so a typo stays in the field to be corrected)."""
    try:
        moment = dt.datetime.fromisoformat(str(value))
    except ValueError:
        return str(value or "")
    return to_jalali(moment.replace(tzinfo=None), with_time=True)
