"""``{{ target.mobile|phone }}``: E.164 shown the way staff type it (0912 345 6789)."""

from django import template

from campaigns.platform.phones import display_phone

register = template.Library()


@register.filter
def phone(value) -> str:
    return display_phone(value)
