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
def step_name(node) -> str:
    """A workflow step as people read it: its title, else its kind («انتظار») — never its internal key."""
    from automation.engine.nodes import step_display_name

    if node is None:
        return ""
    return step_display_name(node.type, node.subtype, node.name)


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
