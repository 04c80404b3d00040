"""What the engine's JSON looks like in the OpenAPI schema: graph nodes by type, their configs, the
workflow and journey settings, the targets filter of an enrollment.

The engine validates these values itself (publish-time codes such as ``INVALID_WAIT``); these serializers
only state their shape (``ShapedJSONField``). Node configs of actions come from each action's
``config_schema`` (the registry, read when the schema is built), condition trees are one recursive
component. Nothing in a node's config is required here: a draft may hold a step not filled in yet, and
publish checks every node with its own codes."""

from collections.abc import Mapping

from rest_framework import serializers

from automation.choices import EnrollmentClass, OnExhausted, OnUnknownOutcome
from automation.engine.graph import END_BEHAVIORS, WAIT_UNITS
from automation.engine.registry import ACTIONS, OPERATORS
from campaigns.choices import CapPriority, TargetStatus
from campaigns.platform.api.fields import BodyInput, IdField
from campaigns.platform.api.schema import json_schema_component, register_component
from campaigns.platform.api.shapes import SendWindow


class RetryPolicy(BodyInput):
    """A retry policy: an action step's ``config.retry``, or the workflow's default for steps without one."""

    enabled = serializers.BooleanField(required=False, default=True)
    strategy = serializers.ChoiceField(choices=[("fixed", "fixed"), ("exponential", "exponential")], default="fixed")
    max_attempts = serializers.IntegerField(min_value=0, max_value=10, help_text="retries after the first attempt")
    interval_seconds = serializers.IntegerField(min_value=60, max_value=86400)
    on_exhausted = serializers.ChoiceField(choices=OnExhausted.choices, default=OnExhausted.FAIL)


class WorkflowSettings(BodyInput):
    """A workflow version's settings: its send window and daily limit (a campaign's own take precedence), and the
    retry policy and unknown-outcome rule of its action steps that set none (docs/journeys.md "Workflow-wide
    defaults")."""

    send_window = SendWindow(required=False, allow_null=True)
    daily_limit = serializers.IntegerField(required=False, allow_null=True, min_value=1)
    retry = RetryPolicy(required=False, allow_null=True)
    on_unknown_outcome = serializers.ChoiceField(choices=OnUnknownOutcome.choices, required=False, allow_null=True)


class JourneySettings(BodyInput):
    """A journey campaign's settings: an execution stops when its target reaches one of these statuses or
    one of these facts holds (the catalog's facts with a ``stop_label``); its priority in the frequency cap."""

    stop_when_target_status_in = serializers.ListField(
        child=serializers.ChoiceField(choices=TargetStatus.choices), required=False
    )
    stop_when_facts = serializers.ListField(child=serializers.CharField(), required=False)
    frequency_cap_priority = serializers.ChoiceField(
        choices=CapPriority.choices,
        required=False,
        help_text="Who gets the last units of the frequency cap across campaigns: `high` is served first when sends "
        "to one number meet in a batch, `low` never takes the last unit of a rule whose limit is 2 or more; "
        "default `normal`.",
    )


class TargetFilters(BodyInput):
    """The targets list's filter (every matching target the caller may see)."""

    q = serializers.CharField(required=False, help_text="name, mobile or code contains")
    status = serializers.ListField(child=serializers.ChoiceField(choices=TargetStatus.choices), required=False)
    list = IdField(required=False, help_text="members of this target list")
    province = serializers.CharField(required=False)
    city = serializers.CharField(required=False)
    priority_min = serializers.IntegerField(required=False)
    owner = IdField(required=False)
    created_after = serializers.DateTimeField(required=False)
    created_before = serializers.DateTimeField(required=False)

    def to_internal_value(self, data):
        # The filter is stored as sent and answered back as stored: a value of another JSON type (a city 0, a
        # list "5") would be answered in a type the schema does not say, so it is refused, not coerced.
        if isinstance(data, Mapping):
            wrong = {
                key: [field.error_messages["invalid"]]
                for key, field in self.fields.items()
                if key in data and data[key] is not None and not _of_json_type(field, data[key])
            }
            if wrong:
                raise serializers.ValidationError(wrong)
        return super().to_internal_value(data)


def _of_json_type(field, value) -> bool:
    if isinstance(field, serializers.CharField | serializers.DateTimeField):
        return isinstance(value, str)
    if isinstance(field, serializers.IntegerField):
        return isinstance(value, int) and not isinstance(value, bool)
    return True


EnrollmentCounts = type(
    "EnrollmentCounts",
    (serializers.Serializer,),
    {
        "__doc__": "Targets of a batch per class (empty while a large batch is still being classified).",
        **{k: serializers.IntegerField(required=False) for k in EnrollmentClass.values},
    },
)


# --------------------------------------------------------------------------- node configs


START_CONFIG = {"type": "object", "additionalProperties": False, "description": "A start node has no settings."}


class WaitConfig(BodyInput):
    """``duration``: ``amount`` ``unit`` after entering the step; ``until``: the moment ``at`` (ISO date-time,
    in ``timezone`` when it has no offset). ``until_fact`` ends the wait early (a fact with ``ends_wait``)."""

    mode = serializers.ChoiceField(choices=["duration", "until"], required=False, help_text="default: the subtype")
    amount = serializers.IntegerField(required=False, min_value=1)
    unit = serializers.ChoiceField(choices=list(WAIT_UNITS), required=False, default="days")
    at = serializers.CharField(required=False)
    timezone = serializers.CharField(required=False)
    until_fact = serializers.CharField(required=False, allow_null=True, allow_blank=True)


class LoopDelay(BodyInput):
    amount = serializers.IntegerField(min_value=0, required=False)
    unit = serializers.ChoiceField(choices=list(WAIT_UNITS), default="days")


class EndConfig(BodyInput):
    """``complete`` or ``stop`` ends the journey; ``loop`` (back to ``to_node``) and ``restart`` go round
    again after ``delay`` (at least an hour), at most ``max_cycles`` rounds."""

    behavior = serializers.ChoiceField(choices=list(END_BEHAVIORS), required=False, help_text="default: the subtype")
    delay = LoopDelay(required=False)
    max_cycles = serializers.IntegerField(required=False, min_value=1)
    to_node = serializers.CharField(required=False)


_RULE_VALUE = {
    "oneOf": [
        {"type": "string"},
        {"type": "number"},
        {"type": "boolean"},
        {"type": "array", "items": {"oneOf": [{"type": "string"}, {"type": "number"}]}},
    ],
    "nullable": True,
    "description": "what the field is compared with (none for is_empty, is_true …)",
}


def condition_config(auto_schema, direction) -> dict:
    """A condition's rule tree: ``{"logic": "all"|"any", "rules": [rule | tree]}`` (recursive, ≤ 10 deep)."""
    group = "ConditionGroup"
    rule = register_component(
        auto_schema,
        "ConditionRule",
        direction,
        {
            "type": "object",
            "properties": {
                "field": {
                    "type": "string",
                    "description": "target.<field>, target.attributes.<name>, execution.metadata.<name>, "
                    "execution.cycle, last_action.status or a fact of the catalog",
                },
                "operator": {"type": "string", "enum": sorted(OPERATORS.keys())},
                "value": _RULE_VALUE,
            },
        },
    )
    own = f"#/components/schemas/{group}{'Request' if direction == 'request' else ''}"
    return register_component(
        auto_schema,
        group,
        direction,
        {
            "type": "object",
            "properties": {
                "logic": {"type": "string", "enum": ["all", "any"], "default": "all"},
                "rules": {"type": "array", "items": {"oneOf": [rule, {"$ref": own}]}},
            },
        },
    )


def action_config(key: str, auto_schema, direction) -> dict:
    """The config of the action ``key``: its ``config_schema`` (its ``required`` left out: a draft may hold a
    step not filled in yet, publish checks it, ``INVALID_ACTION_CONFIG``)."""
    schema = {**ACTIONS.get(key).config_schema, "required": []}
    return json_schema_component(auto_schema, f"{camel(key)}Config", direction, schema)


def camel(key: str) -> str:
    return "".join(part.capitalize() for part in key.split("_"))
