"""OpenAPI helpers: the error envelope in every operation and the X-Workspace header."""

from drf_spectacular.utils import OpenApiResponse, inline_serializer
from rest_framework import serializers

ErrorEnvelope = inline_serializer(
    name="ErrorEnvelope",
    fields={
        "success": serializers.BooleanField(default=False),
        "error": inline_serializer(
            name="ErrorBody",
            fields={
                "code": serializers.CharField(),
                "message": serializers.CharField(),
                "details": serializers.DictField(),
            },
        ),
    },
)

_DESCRIPTIONS = {
    400: "VALIDATION_ERROR (field errors in details) or another bad-request code",
    401: "NOT_AUTHENTICATED",
    403: "PERMISSION_DENIED",
    404: "NOT_FOUND (also for another workspace's objects)",
    405: "METHOD_NOT_ALLOWED",
    409: "CONFLICT / STALE_REVISION / INVALID_TRANSITION",
    429: "RATE_LIMITED",
}


def errors(*statuses: int) -> dict[int, OpenApiResponse]:
    """``responses={**errors(400, 404)}`` documents envelope errors for an operation."""
    return {s: OpenApiResponse(ErrorEnvelope, description=_DESCRIPTIONS.get(s, "error")) for s in statuses}


def add_workspace_header(result, generator, request, public):
    """Postprocessing hook: every /api/v1 operation accepts X-Workspace."""
    header = {
        "in": "header",
        "name": "X-Workspace",
        "required": False,
        "schema": {"type": "string"},
        "description": "Workspace slug or id (must be one of yours); default: your default/only workspace.",
    }
    for path, operations in result.get("paths", {}).items():
        if not path.startswith("/api/v1/"):
            continue
        for operation in operations.values():
            if isinstance(operation, dict):
                operation.setdefault("parameters", []).append(header)
                operation.setdefault("responses", {}).setdefault(
                    "401",
                    {
                        "description": "NOT_AUTHENTICATED",
                        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/ErrorEnvelope"}}},
                    },
                )
    return result
