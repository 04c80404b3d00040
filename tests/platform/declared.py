"""The strict answer check: a JSON answer validated against its documented response with every object closed.

An OpenAPI 3.0 schema becomes JSON Schema (``nullable`` a null type) and an object schema that says nothing of
other properties gets ``additionalProperties: false`` (recursively, components included), so a key a view adds
without declaring it — invisible to a generated client — is reported with its path in the answer.
"""

from __future__ import annotations

import copy

import jsonschema


def strict(node):
    """``node`` (an OpenAPI 3.0 schema) as JSON Schema: ``nullable`` as a null type, and every object with
    properties closed to undeclared ones unless it says otherwise."""
    if isinstance(node, list):
        return [strict(item) for item in node]
    if not isinstance(node, dict):
        return node
    node = {key: strict(value) if key not in ("enum", "example", "default") else value for key, value in node.items()}
    if node.pop("nullable", False):
        if "type" in node and "enum" not in node:
            node["type"] = [node["type"], "null"]
        else:
            return {"anyOf": [node, {"type": "null"}]}
    if "properties" in node and "additionalProperties" not in node and "allOf" not in node:
        node["additionalProperties"] = False
    return node


def response_schema(served: dict, path: str, status: str = "200", method: str = "get") -> dict | None:
    """The strict JSON Schema of ``method path``'s documented ``status`` answer, or None without a JSON body."""
    content = served["paths"][path][method]["responses"].get(status, {}).get("content", {})
    body = content.get("application/json", {}).get("schema")
    if body is None:
        return None
    return {**strict(copy.deepcopy(body)), "components": {"schemas": strict(served["components"]["schemas"])}}


def undeclared(answer, schema: dict) -> list[str]:
    validator = jsonschema.Draft202012Validator(schema)
    return sorted(
        f"{'/'.join(str(p) for p in error.absolute_path) or '.'}: {error.message[:160]}"
        for error in validator.iter_errors(answer)
    )
