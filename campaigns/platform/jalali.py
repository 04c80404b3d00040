"""Jalali (Solar Hijri) rendering in the active (workspace) time zone, and Persian digits.

Datetimes are stored in UTC; these helpers are used only when rendering
(templates, admin list displays, exports).
"""

import datetime as dt

import jdatetime
from django.utils import timezone

_FA_DIGITS = str.maketrans("0123456789", "۰۱۲۳۴۵۶۷۸۹")


def fa_digits(value) -> str:
    """Latin digits → Persian digits (everything else unchanged)."""
    if value is None:
        return ""
    return str(value).translate(_FA_DIGITS)


def to_jalali(value, *, with_time: bool = False, tz=None) -> str:
    """'1405/09/09' (or '1405/09/09 15:30') for a date/datetime; '' for None."""
    if value is None or value == "":
        return ""
    if isinstance(value, dt.datetime):
        if timezone.is_aware(value):
            value = timezone.localtime(value, tz)
        jvalue = jdatetime.datetime.fromgregorian(datetime=value)
        return jvalue.strftime("%Y/%m/%d %H:%M" if with_time else "%Y/%m/%d")
    if isinstance(value, dt.date):
        return jdatetime.date.fromgregorian(date=value).strftime("%Y/%m/%d")
    return str(value)
