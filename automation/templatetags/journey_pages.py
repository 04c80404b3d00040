"""Small filters of the journey campaign pages."""

from django import template

register = template.Library()


@register.filter
def get_item(mapping, key):
    """``{{ labels|get_item:key }}`` — a dict lookup by a variable key ('' when missing)."""
    if not isinstance(mapping, dict):
        return ""
    return mapping.get(key, "")


@register.filter
def jiso(value) -> str:
    """An ISO datetime string (as stored in JSON) as a Jalali date and time in Persian digits."""
    from datetime import datetime

    from campaigns.platform.jalali import fa_digits, to_jalali

    if not value:
        return ""
    try:
        moment = datetime.fromisoformat(str(value))
    except ValueError:
        return str(value)
    return fa_digits(to_jalali(moment, with_time=True))
