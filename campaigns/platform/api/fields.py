"""Serializer fields shared by every API.

``IdField``: an object id in a request body — a positive integer that fits a PostgreSQL ``bigint``
(larger numbers are a field error, not a database error on insert or lookup).
``ObjectField``: a JSON object in a request body, also in form and multipart bodies.
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


class ObjectField(serializers.DictField):
    """A JSON object in a request body, in every content type.

    DRF's ``DictField`` reads a form or multipart body only from dotted ``name.key`` parts and turns
    anything else — a ``name`` part holding ``[null, null]``, or no part at all — into ``{}`` silently.
    Here the ``name`` part holds the object's JSON text (the body rules of JSON requests apply to it);
    a part that is not a JSON object is the field's "expected an object" error, an absent one is absent.
    """

    def get_value(self, dictionary):
        if not html.is_html_input(dictionary):
            return super().get_value(dictionary)
        if self.field_name not in dictionary:
            return empty
        values = dictionary.getlist(self.field_name)
        if len(values) != 1 or not isinstance(values[0], str):
            return values  # repeated parts or a file: not an object
        try:
            value = json.loads(values[0])
        except (ValueError, RecursionError):
            return values[0]
        check_json_value(value, field=self.field_name)
        return value
