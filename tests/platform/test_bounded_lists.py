"""Every list a request body may carry has a length cap, checked before any work starts."""

import pytest
from drf_spectacular.generators import SchemaGenerator
from rest_framework import serializers

from tests.platform.test_hostile_input import assert_envelope

pytestmark = pytest.mark.django_db


def _unbounded(serializer, path: str, seen: set) -> list[str]:
    if isinstance(serializer, serializers.ListSerializer):
        hits = [path] if serializer.max_length is None else []
        return hits + _unbounded(serializer.child, f"{path}[]", seen)
    if isinstance(serializer, serializers.ListField):
        hits = [path] if serializer.max_length is None else []
        return hits + _unbounded(serializer.child, f"{path}[]", seen)
    if isinstance(serializer, serializers.DictField):
        return _unbounded(serializer.child, f"{path}{{}}", seen)
    if isinstance(serializer, serializers.Serializer) and type(serializer) not in seen:
        seen = seen | {type(serializer)}
        return [
            hit
            for name, field in serializer.fields.items()
            if not field.read_only
            for hit in _unbounded(field, f"{path}.{name}", seen)
        ]
    return []


def request_serializers():
    """(operation, request serializer) for every operation of the schema the API serves (from the URLconf)."""
    from drf_spectacular.settings import spectacular_settings

    generator = SchemaGenerator()
    paths = generator.get_schema(request=None, public=True)["paths"]
    with_body = {(m.upper(), p) for p, ops in paths.items() for m, op in ops.items() if "requestBody" in op}
    for path, _regex, method, view in generator._get_paths_and_endpoints():
        if (method, path) not in with_body:
            continue
        view.request = spectacular_settings.GET_MOCK_REQUEST(method, path, view, None)
        view.schema.path, view.schema.method, view.schema.view = path, method, view
        serializer = view.schema.get_request_serializer()
        if isinstance(serializer, type):
            serializer = serializer()
        if isinstance(serializer, serializers.BaseSerializer):
            yield f"{method} {path}", serializer


def test_every_list_in_every_request_serializer_is_bounded():
    operations = list(request_serializers())
    assert len(operations) > 30
    hits = sorted({hit for name, serializer in operations for hit in _unbounded(serializer, name, set())})
    assert hits == []


def test_a_huge_overrides_list_is_refused_before_work(api):
    overrides = [{"subject_id": 1, "decision": "add"}] * 20001
    response = api.put("/api/v1/enrollments/1/decisions", {"overrides": overrides}, format="json")
    assert "overrides" in assert_envelope(response, 400, "VALIDATION_ERROR")["error"]["details"]


def test_a_list_over_the_body_cap_is_refused_before_any_item_is_validated(api, monkeypatch):
    from campaigns.platform.api import fields

    calls = []
    real = fields.IdField.to_internal_value
    monkeypatch.setattr(fields.IdField, "to_internal_value", lambda self, data: calls.append(1) or real(self, data))
    response = api.post("/api/v1/campaigns/1/enrollments/preview", {"target_ids": [1] * 20001}, format="json")
    assert "target_ids" in assert_envelope(response, 400, "VALIDATION_ERROR")["error"]["details"]
    assert calls == []  # DRF checks a ListField's max_length only after validating every item
    response = api.post(
        "/api/v1/target-lists", {"name": "x", "extra": {str(i): 1 for i in range(20001)}}, format="json"
    )
    assert "extra" in assert_envelope(response, 400, "VALIDATION_ERROR")["error"]["details"]
