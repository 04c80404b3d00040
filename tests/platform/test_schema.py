"""The OpenAPI schema is valid, documents every endpoint and the error envelope."""

import pytest
from django.core.management import call_command
from django.urls import URLPattern, URLResolver, get_resolver
from drf_spectacular.generators import SchemaGenerator


def api_routes() -> set[str]:
    """Every DRF route under /api/v1/ as an OpenAPI-style path."""
    import re

    found: set[str] = set()

    def walk(patterns, prefix=""):
        for p in patterns:
            if isinstance(p, URLResolver):
                walk(p.url_patterns, prefix + str(p.pattern))
            elif isinstance(p, URLPattern) and hasattr(p.callback, "cls"):
                route = prefix + str(p.pattern)
                if route.startswith("api/v1/"):
                    found.add("/" + re.sub(r"<(?:\w+:)?(\w+)>", r"{\1}", route))

    walk(get_resolver().url_patterns)
    return found


def test_schema_validates_without_warnings(tmp_path):
    call_command("spectacular", "--validate", "--fail-on-warn", "--file", str(tmp_path / "schema.yaml"))


def test_every_api_endpoint_is_in_the_schema_with_error_responses():
    schema = SchemaGenerator().get_schema(request=None, public=True)
    paths = schema["paths"]
    missing = api_routes() - set(paths)
    assert not missing, f"endpoints missing from the schema: {missing}"
    for path, operations in paths.items():
        if not path.startswith("/api/v1/"):
            continue
        for method, operation in operations.items():
            assert "401" in operation["responses"], (method, path)
            assert any(p["name"] == "X-Workspace" for p in operation.get("parameters", [])), (method, path)


@pytest.mark.django_db
def test_schema_and_docs_pages_are_served_without_a_cdn(client, django_user_model):
    client.force_login(django_user_model.objects.create_user("reader", password="pw-123456"))
    schema = client.get("/api/schema/")
    assert schema.status_code == 200
    docs = client.get("/api/docs/")
    assert docs.status_code == 200
    html = docs.content.decode()
    assert "cdn" not in html.lower()
    assert "/static/drf_spectacular_sidecar/swagger-ui-dist/" in html
