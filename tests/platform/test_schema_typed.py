"""Every property of the API schema is typed: a client generated from it gets a class or a scalar for each
value, never an untyped ``{}`` — except the few values that are free-form by design, listed here with why
(docs/api.md "Typed schema")."""

from drf_spectacular.generators import SchemaGenerator

# Component.property (or "operation_id response") → why it stays free-form.
_ACTION_PARAMS = "a browser action's own values, passed with each task to the worker as they are"
_ATTRIBUTES = "the workspace's own data per target (any JSON, bounded in keys and size)"
_EVENT_DATA = "an event's details, by event type (ExecutionEventOutputTypeEnum)"
FREE_FORM = {
    "ErrorBody.details": "field errors keyed by the field names of each operation (docs/api.md, Errors)",
    "BrowserCampaignInputRequest.action_params": _ACTION_PARAMS,
    "BrowserCampaignUpdateInputRequest.action_params": _ACTION_PARAMS,
    "PlatformOutput.metadata": "the browser platform's stored settings (steps, login check, pacing …), "
    "for the roles that may see them",
    "TaskOutput.result_data": "what the worker reported of a task (by action and outcome)",
    "TargetInputRequest.attributes": _ATTRIBUTES,
    "PatchedTargetInputRequest.attributes": _ATTRIBUTES,
    "TargetOutput.attributes": _ATTRIBUTES,
    "TargetBulkRowInputRequest.attributes": _ATTRIBUTES,
    "WebhookDeliveryOutput.payload": "the webhook body as sent: {id, type, created_at, workspace_id, data}, data by "
    "event type (docs/api.md, Outbound webhooks)",
    "ConversionEventInputRequest.data": "the integrator's own data of a conversion event (bounded)",
    "ConversionEventOutput.data": "the integrator's own data of a conversion event (bounded)",
    "ExecutionEventOutput.data": _EVENT_DATA,
    "TimelineEntryOutput.data": _EVENT_DATA,
    "CatalogActionOutput.config_schema": "a JSON Schema document (each action's is also the component "
    "<Action>Config of the node configs)",
    "PackageOutput.items": "the members' stored fields frozen at submit (what a run of the package reads)",
}


def untyped_places(node, where: str) -> list[str]:
    """Places in ``node`` (a schema) that say nothing of their value: no type, or an object with neither
    properties nor a typed ``additionalProperties``."""
    if not isinstance(node, dict) or "$ref" in node:
        return []
    for combinator in ("oneOf", "anyOf", "allOf"):
        if combinator in node:
            return [p for i, s in enumerate(node[combinator]) for p in untyped_places(s, f"{where}[{i}]")]
    kind = node.get("type")
    if kind is None and "enum" not in node:
        return [where]
    if kind == "array":
        return untyped_places(node.get("items"), f"{where}[]") if node.get("items") else [where]
    if kind != "object":
        return []
    places = []
    for name, schema in node.get("properties", {}).items():
        places += untyped_places(schema, f"{where}.{name}")
    extra = node.get("additionalProperties")
    if isinstance(extra, dict) and extra:
        places += untyped_places(extra, f"{where}{{}}")
    elif "properties" not in node and extra is not False:  # a closed object without properties is {}
        places.append(where)
    return places


def schema_untyped_places(schema: dict) -> list[str]:
    places = []
    for name, component in schema["components"]["schemas"].items():
        places += untyped_places(component, name)
    for operations in schema["paths"].values():
        for operation in operations.values():
            if not isinstance(operation, dict):
                continue
            for status, response in operation.get("responses", {}).items():
                for content_type, content in response.get("content", {}).items():
                    if content_type == "application/json":
                        places += untyped_places(content.get("schema"), f"{operation['operationId']} {status}")
            for content in operation.get("requestBody", {}).get("content", {}).values():
                places += untyped_places(content.get("schema"), f"{operation['operationId']} body")
    return places


def test_every_property_of_the_schema_is_typed_but_the_documented_free_form_ones():
    schema = SchemaGenerator().get_schema(request=None, public=True)
    places = schema_untyped_places(schema)
    untyped = sorted(p for p in places if p not in FREE_FORM)
    assert not untyped, f"{len(untyped)} untyped places in the schema:\n" + "\n".join(untyped)
    assert not set(FREE_FORM) - set(places), "free-form entries the schema no longer has (drop them)"


def test_the_check_sees_an_untyped_property():
    assert untyped_places({"type": "object", "properties": {"a": {}, "b": {"type": "string"}}}, "X") == ["X.a"]
    assert untyped_places({"type": "object", "additionalProperties": {}}, "X") == ["X"]
    assert untyped_places({"type": "array", "items": {"type": "object"}}, "X") == ["X[]"]
    assert untyped_places({"type": "object", "additionalProperties": {"type": "integer"}}, "X") == []
    assert untyped_places({"type": "object", "additionalProperties": False}, "X") == []
    assert untyped_places({"oneOf": [{"$ref": "#/a"}, {"type": "object"}]}, "X") == ["X[1]"]
