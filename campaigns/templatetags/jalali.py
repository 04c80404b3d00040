"""Template filters: ``{{ value|jdate }}``, ``{{ value|jdatetime }}``, ``{{ value|fa_digits }}`` and
``{{ iso_local|jalali_input }}`` (a stored local ISO time as a Jalali date to edit, Latin digits)."""

from django import template

from campaigns.platform.jalali import fa_digits as _fa_digits
from campaigns.platform.jalali import naive_to_jalali, to_jalali

register = template.Library()


@register.filter
def jdate(value) -> str:
    return _fa_digits(to_jalali(value))


@register.filter
def jdatetime(value) -> str:
    return _fa_digits(to_jalali(value, with_time=True))


@register.filter
def fa_digits(value) -> str:
    return _fa_digits(value)


@register.filter
def fa_number(value) -> str:
    """A whole number grouped in thousands, in Persian digits (``1500000`` → «۱٬۵۰۰٬۰۰۰»); "" for a non-number."""
    try:
        return _fa_digits(f"{int(value):,}").replace(",", "٬")
    except (TypeError, ValueError):
        return ""


@register.filter
def jalali_input(value) -> str:
    return naive_to_jalali(value) if value else ""
