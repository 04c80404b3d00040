"""Filter fields every FilterSet uses, so a bad value is a 400 VALIDATION_ERROR and never a database error."""

from datetime import timedelta

import django_filters
from django import forms
from django.core.exceptions import ValidationError

from campaigns.platform.api.fields import MAX_ID

# PostgreSQL accepts UTC offsets up to ±15:59; Python accepts up to ±23:59.
MAX_UTC_OFFSET = timedelta(hours=15, minutes=59)


class BoundedIsoDateTimeField(django_filters.fields.IsoDateTimeField):
    """An ISO 8601 date-time whose UTC offset and year PostgreSQL can store."""

    default_error_messages = {"range": "تاریخ و زمان خارج از محدوده مجاز است."}

    def to_python(self, value):
        result = super().to_python(value)
        if result is None:
            return result
        offset = result.utcoffset()
        if offset is not None and abs(offset) > MAX_UTC_OFFSET:
            raise ValidationError(self.error_messages["range"], code="range")
        if not 2 <= result.year <= 9998:  # a shift to UTC must stay inside datetime's years
            raise ValidationError(self.error_messages["range"], code="range")
        return result


class IsoDateTimeFilter(django_filters.IsoDateTimeFilter):
    field_class = BoundedIsoDateTimeField


class IdFilter(django_filters.Filter):
    """A positive integer id that fits a ``bigint`` (``1.5``, ``-1``, ``1e9`` and ``x`` are field errors)."""

    field_class = forms.IntegerField

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("min_value", 1)
        kwargs.setdefault("max_value", MAX_ID)
        super().__init__(*args, **kwargs)


class _StrictBooleanField(forms.NullBooleanField):
    """true/false/1/0 (any case) or empty; anything else is a validation error, not "no filter"."""

    widget = forms.TextInput
    VALUES = {"true": True, "1": True, "false": False, "0": False}

    def to_python(self, value):
        if value in (None, ""):
            return None
        if isinstance(value, bool):
            return value
        try:
            return self.VALUES[str(value).strip().lower()]
        except KeyError:
            raise forms.ValidationError("مقدار باید true یا false باشد.", code="invalid") from None

    def validate(self, value):
        pass


class StrictBooleanFilter(django_filters.BooleanFilter):
    field_class = _StrictBooleanField
