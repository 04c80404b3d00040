"""``{{ target.mobile|phone }}``: E.164 shown the way staff type it (0912 345 6789), isolated left-to-right.

The number policy (docs/ui.md): a phone number is always in Latin digits inside ``<bdi dir="ltr">``, so it
reads the same in a right-to-left sentence, a table cell or a form; empty stays empty (``|default`` works).
"""

from django import template
from django.utils.html import format_html

from campaigns.platform.phones import display_phone

register = template.Library()


@register.filter
def phone(value) -> str:
    shown = display_phone(value)
    return format_html('<bdi dir="ltr" class="phone">{}</bdi>', shown) if shown else ""
