"""Shapes of JSON that several apps take and answer, as the OpenAPI schema states them.

The values are validated where they are used (``ShapedJSONField`` passes them on untouched); these
serializers only say their shape, once, so each app's schema refers to the same component. They extend
``BodyInput`` so that a request states ``additionalProperties: false`` for them like for any body.
"""

from rest_framework import serializers

from campaigns.platform.api.fields import BodyInput

WEEKDAYS = ("sat", "sun", "mon", "tue", "wed", "thu", "fri")
_HHMM = r"^([01][0-9]|2[0-3]):[0-5][0-9]$|^24:00$"


class _Interval(serializers.ListField):
    """``["09:00", "21:00"]``: start and end, HH:MM, end after start (no interval crosses midnight)."""

    def __init__(self, **kwargs):
        super().__init__(child=serializers.RegexField(_HHMM), min_length=2, max_length=2, **kwargs)


def _day_field():
    return serializers.ListField(
        child=_Interval(), required=False, allow_null=True, help_text="the day's intervals; null or [] = no sending"
    )


class SendWindowDays(BodyInput):
    """When sending is allowed, per weekday: a list of [start, end] intervals in the window's time zone."""

    sat = _day_field()
    sun = _day_field()
    mon = _day_field()
    tue = _day_field()
    wed = _day_field()
    thu = _day_field()
    fri = _day_field()


class SendWindow(BodyInput):
    """A send window: ``{"timezone": "Asia/Tehran", "days": {"sat": [["09:00", "21:00"]], "fri": null}}``.

    Outside it a send waits for the next opening; a day not named has no opening."""

    timezone = serializers.CharField(required=False, help_text="IANA time zone; default: the workspace's")
    days = SendWindowDays()
