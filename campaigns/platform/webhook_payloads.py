"""The typed ``data`` of each webhook event: one frozen dataclass per event, the one shape its writer fills
(``webhook_data``) and the API schema documents (component ``<Name>WebhookEvent``: the body with that ``data``,
added by ``add_webhook_events``). Field types: ``int``, ``str``, ``bool``, ``datetime`` (ISO 8601),
``dict[str, int]``, each optionally ``| None``.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from datetime import datetime
from typing import Any

_SCALARS: dict[Any, dict] = {
    int: {"type": "integer"},
    str: {"type": "string"},
    bool: {"type": "boolean"},
    float: {"type": "number"},
    datetime: {"type": "string", "format": "date-time"},
}


def webhook_data(payload: Any) -> dict[str, Any]:
    """The event's ``data`` as JSON values (datetimes in ISO 8601)."""
    return {
        f.name: (value.isoformat() if isinstance(value, datetime) else value)
        for f in dataclasses.fields(payload)
        for value in [getattr(payload, f.name)]
    }


def _field_schema(hint: Any) -> dict:
    args = typing.get_args(hint)
    if isinstance(hint, types.UnionType) or typing.get_origin(hint) is typing.Union:
        (inner,) = [a for a in args if a is not type(None)]
        return {**_field_schema(inner), "nullable": True}
    if typing.get_origin(hint) is dict:
        return {"type": "object", "additionalProperties": _field_schema(args[1])}
    return dict(_SCALARS[hint])


def payload_schema(cls: type) -> dict:
    """The JSON schema (OpenAPI 3.0) of a payload dataclass."""
    hints = typing.get_type_hints(cls)
    fields = dataclasses.fields(cls)
    return {
        "type": "object",
        "properties": {f.name: _field_schema(hints[f.name]) for f in fields},
        "required": [f.name for f in fields],
    }


def component_name(event: str) -> str:
    """``sms.reply_received`` → ``SmsReplyReceivedWebhookEvent``."""
    words = event.replace(".", "_").split("_")
    return "".join(w.capitalize() for w in words) + "WebhookEvent"


def event_schema(event: str, cls: type) -> dict:
    """The whole body of one event type, as POSTed."""
    return {
        "type": "object",
        "description": f"Webhook body of `{event}` (POSTed to a subscribed endpoint, signed). "
        + " ".join((cls.__doc__ or "").split()),
        "properties": {
            "id": {"type": "string", "format": "uuid", "description": "The event id (also `Webhook-Id`)."},
            "type": {"type": "string", "enum": [event]},
            "created_at": {"type": "string", "format": "date-time"},
            "workspace_id": {"type": "integer"},
            "data": payload_schema(cls),
        },
        "required": ["id", "type", "created_at", "workspace_id", "data"],
    }


def add_webhook_events(result: dict, generator, request, public) -> dict:
    """drf-spectacular postprocessing hook: one component per registered event with a payload dataclass."""
    from campaigns.platform.webhooks import WEBHOOK_PAYLOADS

    schemas = result.setdefault("components", {}).setdefault("schemas", {})
    for event, cls in WEBHOOK_PAYLOADS:
        schemas[component_name(event)] = event_schema(event, cls)
    return result
