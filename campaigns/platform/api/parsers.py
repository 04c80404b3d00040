"""Request parsers and metadata that never turn hostile input into a server error.

``SafeJSONParser`` refuses bodies nested deeper than ``API_JSON_MAX_DEPTH`` (a 400 PARSE_ERROR, also
when the decoder itself runs out of stack), any array or object of more than ``API_JSON_MAX_ITEMS``
entries (a 400 VALIDATION_ERROR naming it, before any serializer runs: DRF checks a ``ListField``'s
``max_length`` only after validating every item; the serializers' own, smaller caps follow) and NUL or
other control characters (except tab and newlines) anywhere in the document (a 400 VALIDATION_ERROR
naming the field: PostgreSQL cannot store ``\\u0000`` in text or jsonb, and no field of this API needs
a control character).
Request bodies are JSON (``SafeJSONParser``, the default); a view that receives a file takes
``SafeMultiPartParser``, which applies the same control-character rule to every field of the multipart
body (file contents excepted) — not a field's own "invalid URL" or "invalid choice".
``PlainMetadata`` answers ``OPTIONS`` with the view's name, description and media types only: it never
builds a serializer or loads an object, so views without a ``serializer_class`` answer 200 too.
"""

import json

from django.conf import settings
from django.core.exceptions import RequestDataTooBig
from rest_framework import exceptions, serializers
from rest_framework.metadata import BaseMetadata
from rest_framework.parsers import JSONParser, MultiPartParser

from campaigns.platform.text import CONTROL_MESSAGE, NUL_MESSAGE, has_control_characters


def _control_message(value: str) -> str:
    return NUL_MESSAGE if "\x00" in value else CONTROL_MESSAGE


def _check_tree(data, max_depth: int, prefix: str = "") -> None:
    """Depth, size and NUL check without recursion; errors name the path of the offending value."""
    max_items = settings.API_JSON_MAX_ITEMS
    stack = [(data, 1, prefix)]
    while stack:
        value, depth, path = stack.pop()
        if isinstance(value, (dict, list)):
            if depth > max_depth:
                raise exceptions.ParseError(f"JSON nested deeper than {max_depth} levels.")
            if len(value) > max_items:
                message = f"حداکثر {max_items} مورد در هر فهرست یا شیء."
                raise serializers.ValidationError({path or "non_field_errors": [message]})
            items = value.items() if isinstance(value, dict) else enumerate(value)
            for key, child in items:
                if isinstance(key, str) and has_control_characters(key):
                    raise serializers.ValidationError({path or "non_field_errors": [_control_message(key)]})
                child_path = f"{path}.{key}" if path else str(key)
                stack.append((child, depth + 1, child_path))
        elif isinstance(value, str) and has_control_characters(value):
            raise serializers.ValidationError({path or "non_field_errors": [_control_message(value)]})


def _check_form(data) -> None:
    for key, values in data.lists():
        for value in (key, *values):
            if isinstance(value, str) and has_control_characters(value):
                name = key if not has_control_characters(key) else "non_field_errors"
                raise serializers.ValidationError({name: [_control_message(value)]})


class SafeMultiPartParser(MultiPartParser):
    def parse(self, stream, media_type=None, parser_context=None):
        parsed = super().parse(stream, media_type, parser_context)
        _check_form(parsed.data)
        return parsed


class SafeJSONParser(JSONParser):
    def parse(self, stream, media_type=None, parser_context=None):
        parser_context = parser_context or {}
        encoding = parser_context.get("encoding", settings.DEFAULT_CHARSET)
        limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
        body = stream.read(limit + 1) if stream is not None else b""
        if limit is not None and len(body) > limit:
            raise RequestDataTooBig("Request body exceeded settings.DATA_UPLOAD_MAX_MEMORY_SIZE.")
        try:
            raw = body.decode(encoding)
        except UnicodeDecodeError as exc:
            raise exceptions.ParseError("JSON parse error - body is not valid text.") from exc
        max_depth = settings.API_JSON_MAX_DEPTH
        try:
            data = json.loads(raw, parse_constant=_refuse_constant)
        except RecursionError as exc:
            raise exceptions.ParseError(f"JSON nested deeper than {max_depth} levels.") from exc
        except ValueError as exc:
            raise exceptions.ParseError(f"JSON parse error - {exc}") from exc
        _check_tree(data, max_depth)
        return data


def _refuse_constant(name: str):
    raise ValueError(f"{name} is not valid JSON")


class PlainMetadata(BaseMetadata):
    def determine_metadata(self, request, view):
        return {
            "name": view.get_view_name(),
            "description": view.get_view_description(),
            "renders": [renderer.media_type for renderer in view.renderer_classes],
            "parses": [parser.media_type for parser in view.parser_classes],
        }
