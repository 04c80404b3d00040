"""Serializer fields shared by every API.

``IdField``: an object id in a request body — a positive integer that fits a PostgreSQL ``bigint``
(larger numbers are a field error, not a database error on insert or lookup).
``ObjectField`` / ``JSONValueField``: a JSON object / any JSON value in a request body, also in form
and multipart bodies (where the part holds the JSON text and the JSON body rules apply).
"""

import json

from rest_framework import serializers
from rest_framework.fields import empty
from rest_framework.utils import html

from campaigns.platform.api.parsers import check_json_value

MAX_ID = 2**63 - 1


class IdField(serializers.IntegerField):
    def __init__(self, **kwargs):
        kwargs.setdefault("min_value", 1)
        kwargs.setdefault("max_value", MAX_ID)
        super().__init__(**kwargs)


class _NotJSON(str):
    """A form or multipart part that is not one JSON document (invalid text, repeated parts, a file)."""


def _form_json(field: serializers.Field, dictionary):
    """The JSON value of a form or multipart part (``empty`` when absent), under the JSON body rules."""
    if field.field_name not in dictionary:
        return empty
    values = dictionary.getlist(field.field_name)
    if len(values) != 1 or not isinstance(values[0], str):
        return _NotJSON(values)
    try:
        value = json.loads(values[0])
    except (ValueError, RecursionError):
        return _NotJSON(values[0])
    check_json_value(value, field=field.field_name)
    return value


class ObjectField(serializers.DictField):
    """A JSON object in a request body, in every content type.

    DRF's ``DictField`` reads a form or multipart body only from dotted ``name.key`` parts and turns
    anything else — a ``name`` part holding ``[null, null]``, or no part at all — into ``{}`` silently.
    Here the ``name`` part holds the object's JSON text (the body rules of JSON requests apply to it);
    a part that is not a JSON object is the field's "expected an object" error, an absent one is absent.
    """

    def get_value(self, dictionary):
        if html.is_html_input(dictionary):
            return _form_json(self, dictionary)
        return super().get_value(dictionary)


class JSONValueField(serializers.JSONField):
    """Any JSON value in a request body; in a form or multipart body the part's JSON text, under the
    JSON body rules (DRF's ``JSONField`` decodes it without them: a deeply nested part was a 500)."""

    def get_value(self, dictionary):
        if html.is_html_input(dictionary):
            return _form_json(self, dictionary)
        return super().get_value(dictionary)

    def to_internal_value(self, data):
        if isinstance(data, _NotJSON):
            self.fail("invalid")
        return super().to_internal_value(data)
