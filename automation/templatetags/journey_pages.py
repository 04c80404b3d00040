"""Small filters of the journey campaign pages."""

from django import template

register = template.Library()


@register.filter
def get_item(mapping, key):
    """``{{ labels|get_item:key }}`` — a dict lookup by a variable key ('' when missing)."""
    if not isinstance(mapping, dict):
        return ""
    return mapping.get(key, "")
