"""OpenAPI helpers: the error envelope in every operation, the X-Workspace header, one area tag per operation."""

import copy
import inspect
import re

from drf_spectacular.extensions import OpenApiSerializerFieldExtension
from drf_spectacular.openapi import AutoSchema
from drf_spectacular.plumbing import ResolvedComponent, force_instance
from drf_spectacular.utils import OpenApiResponse, inline_serializer
from rest_framework import serializers

from campaigns.platform.api.fields import BodyInput, Shaped


def _envelope(name: str, *, code, message, details):
    """The error envelope ``{"success": false, "error": {"code", "message", "details"}}`` (``{name}Envelope``,
    its error ``{name}Body``)."""
    success = serializers.BooleanField(default=False)  # first: a serializer's fields keep their creation order
    body = inline_serializer(name=f"{name}Body", fields={"code": code, "message": message, "details": details})
    return inline_serializer(name=f"{name}Envelope", fields={"success": success, "error": body})


ErrorEnvelope = _envelope(
    "Error", code=serializers.CharField(), message=serializers.CharField(), details=serializers.DictField()
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


LaunchBlockedEnvelope = _envelope(
    "LaunchBlocked",
    code=serializers.CharField(help_text="LAUNCH_BLOCKED, or another conflict of the operation."),
    message=serializers.CharField(help_text="For people, in Persian: every blocker named."),
    details=inline_serializer(
        name="LaunchBlockedDetails",
        fields={
            "blockers": inline_serializer(
                name="LaunchBlocker",
                fields={
                    "code": serializers.CharField(
                        help_text="Stable: empty_audience, no_account, credit_below_cost, "
                        "opt_out_missing, link_not_allowed, filtered_word (docs/journeys.md)."
                    ),
                    "message": serializers.CharField(help_text="For people, in Persian: what to fix."),
                },
                many=True,
                required=False,
                help_text="LAUNCH_BLOCKED: the launch check's blockers (its warnings never refuse).",
            )
        },
    ),
)


def launch_errors(*statuses: int) -> dict[int, OpenApiResponse]:
    """``errors(...)`` of an operation that starts or approves a campaign: its 409 may be ``LAUNCH_BLOCKED``
    with the launch check's blockers in ``details.blockers`` (typed)."""
    return errors(*statuses) | {
        409: OpenApiResponse(
            LaunchBlockedEnvelope,
            description="LAUNCH_BLOCKED (details.blockers) / CONFLICT / STALE_REVISION / INVALID_TRANSITION",
        )
    }


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


def _envelope(description: str) -> dict:
    return {
        "description": description,
        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/ErrorEnvelope"}}},
    }


_EVERY_OPERATION = (400, 401, 403, 404, 409, 429)
_GENERIC = {
    400: "VALIDATION_ERROR (field errors in details; also a bad Idempotency-Key, page, size or cursor)",
    401: "NOT_AUTHENTICATED / AUTHENTICATION_FAILED",
    403: "PERMISSION_DENIED / API_KEY_SCOPE (the API key's scopes or read-only)",
    404: "NOT_FOUND (also another workspace's objects) / WORKSPACE_NOT_FOUND (X-Workspace)",
    409: "CONFLICT / STALE_REVISION / INVALID_TRANSITION / IDEMPOTENCY_KEY_REUSED / IDEMPOTENCY_KEY_IN_PROGRESS",
    429: "RATE_LIMITED (details.retry_after_seconds, header Retry-After)",
}


def add_generic_errors(result, generator, request, public):
    """Postprocessing hook: errors any operation can answer, whatever its view declares.

    Every operation documents 400, 401, 403, 404, 409 and 429 in the envelope (a bad header, the key, the
    role, an unknown X-Workspace, a reused Idempotency-Key, the rate limit); an operation with a body
    answers 415 for a content type it does not take (JSON; multipart where a file is uploaded) and 413
    for a body over the size limit."""
    for path, operations in result.get("paths", {}).items():
        if not path.startswith("/api/v1/"):
            continue
        for operation in operations.values():
            if not isinstance(operation, dict):
                continue
            responses = operation.setdefault("responses", {})
            for status in _EVERY_OPERATION:
                responses.setdefault(str(status), _envelope(_GENERIC[status]))
            if "requestBody" in operation:
                responses.setdefault("413", _envelope("PAYLOAD_TOO_LARGE"))
                responses.setdefault("415", _envelope("UNSUPPORTED_MEDIA_TYPE"))
    return result


def add_idempotency_header(result, generator, request, public):
    """Postprocessing hook: every POST accepts ``Idempotency-Key`` (campaigns.platform.idempotency)."""
    header = {
        "in": "header",
        "name": "Idempotency-Key",
        "required": False,
        "schema": {"type": "string", "minLength": 1, "maxLength": 255, "pattern": "^[!-~]+$"},
        "description": "Any unique string (e.g. a UUID): a retry with the same key and body gets the first "
        "answer again (kept 24 h, header `Idempotent-Replayed: true`) instead of repeating the work; the same "
        "key with another body is a 409 IDEMPOTENCY_KEY_REUSED.",
    }
    for path, operations in result.get("paths", {}).items():
        operation = operations.get("post")
        if path.startswith("/api/v1/") and isinstance(operation, dict):
            operation.setdefault("parameters", []).append(header)
            operation.setdefault("responses", {}).setdefault(
                "409",
                _envelope("IDEMPOTENCY_KEY_REUSED / IDEMPOTENCY_KEY_IN_PROGRESS (or a conflict of the operation)"),
            )
    return result


_PERSIAN = re.compile(r"[\u0600-\u06ff]")
_ENUM_LINE = re.compile(r"^(\* `[^`]*`) - ")


def _humanized(name: str) -> str:
    return name.replace("_", " ").replace("-", " ").strip().capitalize()


def _english(text: str, name: str) -> str:
    """``text`` without its Persian: an enum's Persian labels dropped (``* `open` - باز`` → ``* `open```),
    other Persian lines left out; nothing left → the humanized ``name``."""
    lines = []
    for line in text.split("\n"):
        if not _PERSIAN.search(line):
            lines.append(line)
        elif match := _ENUM_LINE.match(line):
            lines.append(match.group(1))
    return "\n".join(lines).strip() or _humanized(name)


def _english_texts(node, name: str) -> None:
    if isinstance(node, list):
        for item in node:
            _english_texts(item, name)
        return
    if not isinstance(node, dict):
        return
    for key in ("title", "description", "summary"):
        if isinstance(node.get(key), str) and _PERSIAN.search(node[key]):
            node[key] = _humanized(name) if key == "title" else _english(node[key], name)
    for key, child in node.items():
        if key == "properties" and isinstance(child, dict):
            for prop, schema in child.items():
                _english_texts(schema, prop)
        elif key == "parameters" and isinstance(child, list):
            for parameter in child:
                _english_texts(parameter, parameter.get("name", name) if isinstance(parameter, dict) else name)
        else:
            _english_texts(child, name)


def english_texts(result, generator, request, public):
    """Postprocessing hook: English titles and descriptions (Persian stays in the UI): a client generated from
    the schema names its classes and fields from them. Model labels (Persian ``verbose_name``) become the
    humanized field name, an enum's Persian labels are dropped. The area tags keep their two languages."""
    for path, operations in result.get("paths", {}).items():
        _english_texts(operations, path.rstrip("/").rsplit("/", 1)[-1])
    for component, schema in result.get("components", {}).get("schemas", {}).items():
        _english_texts(schema, component)
    return result


# --- Areas: Swagger UI groups operations by tag ----------------------------------------------------------
# The names and their one-line descriptions are SPECTACULAR_SETTINGS["TAGS"] (config/settings/api.py).
TARGETS = "Targets"
WORKFLOWS = "Workflows and journeys"
CHAINS = "Campaigns, groups and chains"
APPROVALS = "Approvals"
RUNS = "Runs"
PLATFORM = "Platform"

# The area of an operation, from its path (first match): resources under another area's prefix first.
_PATH_AREAS = [
    (r"^/api/v1/campaign/[^/]+/(submit|approve|reject)$", APPROVALS),
    (r"^/api/v1/campaign-chain-approvals(/|$)", APPROVALS),
    (r"^/api/v1/campaign/[^/]+/(runs|run-summary)$", RUNS),
    (r"^/api/v1/(campaign-runs|conversion-events)(/|$)", RUNS),
    (r"^/api/v1/campaigns/[^/]+/(journey|enrollments|executions)(/|$)", WORKFLOWS),
    (r"^/api/v1/(workflows|executions|automation)(/|$)", WORKFLOWS),
    (r"^/api/v1/(targets|target-lists)(/|$)", TARGETS),
    (r"^/api/v1/(campaigns|campaign|campaign-groups)(/|$)", CHAINS),
    (r"^/api/v1/me$", PLATFORM),
]
# A path no rule knows: the area of the app whose view serves it (longest module prefix).
_APP_AREAS = {
    "automation": WORKFLOWS,
    "campaigns.chains": CHAINS,
    "campaigns": PLATFORM,
}


def _channel_areas() -> tuple[list[tuple[str, str]], dict[str, str]]:
    """Each installed channel's area: its path prefix and its app (``channel.api_area``)."""
    from django.apps import apps

    from campaigns.platform.channels import Channel

    paths, modules = [], {}
    for config in apps.get_app_configs():
        channel = getattr(config, "channel", None)
        if isinstance(channel, Channel) and channel.api_area:
            paths.append((rf"^/api/v1/{re.escape(channel.api_area.path_prefix)}(/|$)", channel.api_area.name))
            modules[config.name] = channel.api_area.name
    return paths, modules


def operation_area(path: str, view_module: str) -> str:
    channel_paths, channel_modules = _channel_areas()
    rules = _PATH_AREAS[:-2] + channel_paths + _PATH_AREAS[-2:]  # a channel's prefix before the generic ones
    for pattern, area in rules:
        if re.search(pattern, path):
            return area
    app_areas = {**_APP_AREAS, **channel_modules}
    for module in sorted(app_areas, key=len, reverse=True):
        if view_module == module or view_module.startswith(module + "."):
            return app_areas[module]
    return PLATFORM


_BODY_INPUT_DOC = inspect.cleandoc(BodyInput.__doc__)


class AreaAutoSchema(AutoSchema):
    """Tags every operation with its area (SPECTACULAR_SETTINGS["TAGS"]) instead of the first path segment ("v1")."""

    def get_tags(self) -> list[str]:
        return [operation_area(self.path, type(self.view).__module__)]

    def _map_basic_serializer(self, serializer, direction):
        # A request body refuses fields it does not declare (``BodyInput``): the schema says so.
        schema = super()._map_basic_serializer(serializer, direction)
        if isinstance(force_instance(serializer), BodyInput):
            if direction == "request":
                schema["additionalProperties"] = False
            if schema.get("description") == _BODY_INPUT_DOC:  # a body without a docstring of its own
                del schema["description"]
        return schema


class ShapedFieldSchema(OpenApiSerializerFieldExtension):
    """A ``Shaped`` field in the schema: its ``shape`` — a serializer (its component), a raw schema, or a
    function ``(auto_schema, direction) -> schema`` for shapes read from a registry when the schema is built."""

    target_class = Shaped
    match_subclasses = True

    def map_serializer_field(self, auto_schema, direction):
        shape = self.target.shape
        if isinstance(shape, dict):
            return copy.deepcopy(shape)
        if isinstance(shape, type) or isinstance(shape, serializers.Field):
            return auto_schema._map_serializer_field(force_instance(shape), direction)
        return shape(auto_schema, direction)


def register_component(auto_schema, name: str, direction: str, schema: dict) -> dict:
    """Declare the raw ``schema`` as the component ``name`` (``<name>Request`` in a request, closed like
    every body) and return its ``$ref``."""
    if direction == "request":
        name += "Request"
        if schema.get("type") == "object" and "properties" in schema:
            schema = {**schema, "additionalProperties": False}
    component = ResolvedComponent(name=name, type=ResolvedComponent.SCHEMA, schema=schema, object=name)
    auto_schema.registry.register_on_missing(component)
    return component.ref


def json_schema_component(auto_schema, name: str, direction: str, json_schema: dict) -> dict:
    """A plug-in's JSON Schema (an action's ``config_schema``) as an OpenAPI 3.0 component."""
    schema = _openapi30(json_schema)
    if not schema.get("required"):
        schema.pop("required", None)
    return register_component(auto_schema, name, direction, schema)


def _openapi30(node):
    """JSON Schema → OpenAPI 3.0: ``"type": [x, "null"]`` is ``nullable``, several types a ``oneOf``."""
    if isinstance(node, list):
        return [_openapi30(item) for item in node]
    if not isinstance(node, dict):
        return node
    out = {key: _openapi30(value) for key, value in node.items()}
    if isinstance(out.get("type"), list):
        kinds = [kind for kind in out.pop("type") if kind != "null"]
        if len(kinds) < len(node["type"]):
            out["nullable"] = True
        if len(kinds) == 1:
            out["type"] = kinds[0]
        else:
            out["oneOf"] = [{"type": kind} for kind in kinds]
    if isinstance(out.get("enum"), list) and None in out["enum"]:
        out["enum"] = [value for value in out["enum"] if value is not None]
        out["nullable"] = True
    return out


def component_ref(name: str) -> dict:
    """``{"$ref": …}`` to the component ``name`` (a shape that is declared once, e.g. a recursive one)."""
    return {"$ref": f"#/components/schemas/{name}"}
