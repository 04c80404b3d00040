"""Serializer fields shared by every API.

``IdField``: an object id in a request body — a positive integer that fits a PostgreSQL ``bigint``
(larger numbers are a field error, not a database error on insert or lookup).
``ObjectField`` / ``JSONValueField``: a JSON object / any JSON value in a request body.
``ShapedJSONField`` / ``ShapedObjectField``: JSON kept as it is (a service reads it), typed in the schema.
``BodyInput``: the base of every request-body serializer (unknown fields are a 400 naming them).
``LazyChoices``: a ``ChoiceField``'s choices read from a registry each time a serializer is made.
"""

from collections.abc import Mapping

from django.utils.translation import gettext_lazy as _
from rest_framework import serializers

MAX_ID = 2**63 - 1


class LazyChoices:
    """Choices read each time they are iterated: a ``ChoiceField`` over what is registered when the app is ready
    (each serializer instance, and so the schema, reads them afresh; the class body is read before that)."""

    def __init__(self, read):
        self.read = read

    def __iter__(self):
        return iter(self.read())

    def __deepcopy__(self, memo):
        return self


class IdField(serializers.IntegerField):
    def __init__(self, **kwargs):
        kwargs.setdefault("min_value", 1)
        kwargs.setdefault("max_value", MAX_ID)
        super().__init__(**kwargs)


class ObjectField(serializers.DictField):
    """A JSON object in a request body (anything else is the field's "expected an object" error)."""


class JSONValueField(serializers.JSONField):
    """Any JSON value in a request body (the JSON body rules of ``SafeJSONParser`` already applied)."""


class Shaped:
    """A JSON value a service validates and stores as it is (a window, a rule, a node's config), typed in
    the schema.

    ``shape`` is what the OpenAPI schema says of it: a serializer (its component), a raw schema dict or a
    function building one (``campaigns.platform.api.schema.ShapedFieldSchema``); the value itself is passed on
    untouched, so the service keeps its own checks and error codes."""

    def __init__(self, *, shape, **kwargs):
        self.shape = shape
        super().__init__(**kwargs)


class ShapedJSONField(Shaped, JSONValueField):
    """Any JSON value, with the shape the schema states."""


class ShapedObjectField(Shaped, ObjectField):
    """A JSON object (anything else is a field error), with the shape the schema states."""


class BodyInput(serializers.Serializer):
    """The base of every request-body serializer: a field it does not declare is a 400 naming it.

    A client's typo (``nmae``) or a field of another operation is refused instead of being dropped in
    silence; nested bodies (a ``BodyInput`` inside another) name the path (``nodes.0.typo``). The schema
    says the same: ``additionalProperties: false`` on every request component
    (``campaigns.platform.api.schema.AreaAutoSchema``)."""

    default_error_messages = {"unknown_field": _("Unknown field.")}  # Persian in locale/fa

    def to_internal_value(self, data):
        if isinstance(data, Mapping):
            unknown = sorted(str(key) for key in data if key not in self.fields or self.fields[key].read_only)
            if unknown:
                message = self.error_messages["unknown_field"]
                raise serializers.ValidationError({key: [message] for key in unknown}, code="unknown_field")
        return super().to_internal_value(data)
