"""``POST /api/v1/targets/bulk``: the rows in, one result per row out."""

import re

from django.core.exceptions import ValidationError as DjangoValidationError
from rest_framework import serializers
from rest_framework.settings import api_settings

from campaigns.api.serializers import _validate_attributes
from campaigns.choices import TargetStatus
from campaigns.platform.api.fields import BodyInput, IdField, ObjectField
from campaigns.platform.errors import ValidationFailed
from campaigns.platform.text import StrictCharField, VisibleNameField, validate_visible_name
from campaigns.services.target_bulk import MAX_ROWS, OUTCOMES


class TargetBulkRowInput(BodyInput):
    """One target. At least one number, in `mobile` or `landline` (either field takes either kind: each number
    is classified by what it is, as the import does). Without `name`: first + last name, else the number."""

    name = VisibleNameField(max_length=200, required=False)
    first_name = StrictCharField(max_length=100, required=False, allow_blank=True)
    last_name = StrictCharField(max_length=100, required=False, allow_blank=True)
    mobile = StrictCharField(max_length=40, required=False, allow_blank=True, allow_null=True)
    landline = StrictCharField(max_length=40, required=False, allow_blank=True, allow_null=True)
    status = serializers.ChoiceField(choices=TargetStatus.choices, required=False)
    province = StrictCharField(max_length=80, required=False, allow_blank=True)
    city = StrictCharField(max_length=80, required=False, allow_blank=True)
    priority = serializers.IntegerField(required=False, min_value=-1000, max_value=1000)
    attributes = ObjectField(required=False, validators=[_validate_attributes])


_UNSURE = object()  # a value the serializer must read
# What a text field refuses besides its length: control characters (``validate_plain_text``, NUL included)
# and lone surrogates (DRF's ``ProhibitSurrogateCharactersValidator``).
_REFUSED_TEXT = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff]")


class LeanRow:
    """A row read with the row serializer's own field rules, without DRF's machinery per field (at 10,000
    rows that machinery was a third of the call). Only a row it is sure of — known fields with plain valid
    values — is answered here; anything else returns ``None`` and goes through the serializer, so every error
    and edge case stays the serializer's. ``tests/campaigns/test_target_bulk.py`` holds the two to the same
    answers."""

    def __init__(self, serializer: serializers.Serializer) -> None:
        fields = serializer.fields
        self.required = {name for name, field in fields.items() if field.required}
        self.text = {
            name: (field.max_length, field.allow_blank, field.allow_null, isinstance(field, VisibleNameField))
            for name, field in fields.items()
            if type(field) in (StrictCharField, VisibleNameField) and field.trim_whitespace
        }
        self.choices = {
            name: field.choice_strings_to_values
            for name, field in fields.items()
            if type(field) is serializers.ChoiceField and not field.allow_blank
        }
        self.integers = {
            name: (field.min_value, field.max_value)
            for name, field in fields.items()
            if type(field) is serializers.IntegerField
        }
        self.objects = {name: field.validators for name, field in fields.items() if type(field) is ObjectField}

    def validate(self, item) -> dict | None:
        """The validated row, or ``None`` when the serializer must decide."""
        if type(item) is not dict or not self.required.issubset(item):
            return None
        row = {}
        for name, value in item.items():
            if name in self.text:
                value = self._text(value, *self.text[name])
            elif name in self.choices:
                value = self.choices[name].get(value, _UNSURE) if type(value) is str else _UNSURE
            elif name in self.integers:
                low, high = self.integers[name]
                ok = type(value) is int and (low is None or value >= low) and (high is None or value <= high)
                value = value if ok else _UNSURE
            elif name in self.objects:
                value = self._object(value, self.objects[name])
            else:
                value = _UNSURE  # an unknown field: the serializer names it
            if value is _UNSURE:
                return None
            row[name] = value
        return row

    @staticmethod
    def _text(value, max_length, allow_blank, allow_null, visible):
        if value is None:
            return None if allow_null else _UNSURE
        if type(value) is not str:
            return _UNSURE
        value = value.strip()
        if not value:
            return "" if allow_blank else _UNSURE
        if len(value) > max_length or _REFUSED_TEXT.search(value):
            return _UNSURE
        if visible:
            try:
                validate_visible_name(value)
            except DjangoValidationError:
                return _UNSURE
        return value

    @staticmethod
    def _object(value, validators):
        if type(value) is not dict:
            return _UNSURE
        try:
            for validator in validators:
                validator(value)
        except DjangoValidationError:
            return _UNSURE
        return dict(value)


class PerRowList(serializers.ListField):
    """Each row validated on its own: a bad row becomes its own ``invalid`` result, not a 400 for the call."""

    def run_child_validation(self, data):
        lean = LeanRow(self.child)
        rows = []
        for item in data:
            if (row := lean.validate(item)) is not None:
                rows.append(row)
                continue
            try:
                rows.append(self.child.run_validation(item))
            except serializers.ValidationError as exc:
                details = exc.detail  # a null row's is a bare list: named like the others
                if not isinstance(details, dict):
                    details = {api_settings.NON_FIELD_ERRORS_KEY: details}
                rows.append(ValidationFailed(details=details))
        return rows


class TargetBulkInput(BodyInput):
    rows = PerRowList(child=TargetBulkRowInput(), min_length=1, max_length=MAX_ROWS)
    list_ids = serializers.ListField(child=IdField(), required=False, max_length=100, default=list)


class TargetBulkRowOutput(serializers.Serializer):
    index = serializers.IntegerField(help_text="The row's position in `rows` (from 0).")
    outcome = serializers.ChoiceField(choices=OUTCOMES)
    id = serializers.IntegerField(allow_null=True, help_text="The target created, updated or matched.")
    errors = serializers.DictField(
        child=serializers.ListField(child=serializers.CharField()), help_text="Field errors of the row."
    )


class TargetBulkOutput(serializers.Serializer):
    created = serializers.IntegerField()
    updated = serializers.IntegerField()
    unchanged = serializers.IntegerField()
    duplicate = serializers.IntegerField()
    invalid = serializers.IntegerField()
    results = TargetBulkRowOutput(many=True)
