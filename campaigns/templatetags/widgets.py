"""The shared form widgets in hand-written page forms: ``{% time24 "run_time" data.run_time id="f-runtime" %}``
renders ``campaigns.platform.widgets.Time24Input`` (24-hour "HH:MM", Persian digits accepted; docs/ui.md)."""

from django import template

from campaigns.platform.widgets import Time24Input

register = template.Library()


@register.simple_tag
def time24(name: str, value="", **attrs) -> str:
    return Time24Input(attrs=attrs).render(name, value or None)
