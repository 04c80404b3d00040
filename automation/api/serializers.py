"""Engine API serializers (snake_case JSON; success bodies are the plain resource)."""

import functools

from drf_spectacular.utils import PolymorphicProxySerializer, extend_schema_field
from rest_framework import serializers

from automation.api.shapes import (
    START_CONFIG,
    EndConfig,
    EnrollmentCounts,
    JourneySettings,
    RetryPolicy,
    TargetFilters,
    WaitConfig,
    WorkflowSettings,
    action_config,
    camel,
    condition_config,
)
from automation.choices import Decision, ExecutionStatus, NodeType, OnUnknownOutcome, VersionStatus
from automation.engine.graph import MAX_EDGES, MAX_NODES
from automation.engine.registry import ACTIONS
from automation.models import EnrollmentBatch, EnrollmentItem, Execution, ExecutionEvent, Workflow, WorkflowVersion
from automation.services.enrollment_core import INVALID_REASONS
from automation.services.executions import ACTIONS as BULK_ACTIONS
from campaigns.choices import CampaignStatus
from campaigns.platform.api.fields import BodyInput, IdField, ShapedJSONField, ShapedObjectField
from campaigns.platform.api.shapes import SendWindow
from campaigns.platform.text import DESCRIPTION_MAX_LENGTH, StrictCharField, VisibleNameField


def _valid_target_filters(value) -> None:
    """The targets filter of a request holds only its own keys, each of its type (stored as sent, then read by
    the targets list's FilterSet, which would ignore a key or a value it cannot read)."""
    check = TargetFilters(data=value)
    if not check.is_valid():
        raise serializers.ValidationError(check.errors)


class JourneyCampaignInput(BodyInput):
    kind = StrictCharField(help_text='"journey"')
    name = VisibleNameField(max_length=200)
    description = StrictCharField(max_length=DESCRIPTION_MAX_LENGTH, required=False, allow_blank=True, default="")
    workflow_id = IdField()
    starts_at = serializers.DateTimeField(required=False, allow_null=True, default=None)
    ends_at = serializers.DateTimeField(required=False, allow_null=True, default=None)
    daily_limit = serializers.IntegerField(required=False, allow_null=True, default=None, min_value=1)
    send_window = ShapedJSONField(shape=SendWindow, required=False, allow_null=True, default=None)
    settings = ShapedJSONField(shape=JourneySettings, required=False, default=dict)
    source_target_list_id = IdField(required=False, allow_null=True, default=None)

    def validate_kind(self, value: str) -> str:
        if value != "journey":
            raise serializers.ValidationError("kind must be journey")
        return value


class WorkflowInput(BodyInput):
    name = VisibleNameField(max_length=200)
    description = StrictCharField(max_length=DESCRIPTION_MAX_LENGTH, required=False, allow_blank=True, default="")
    category = StrictCharField(required=False, allow_blank=True, default="", max_length=30)
    template = StrictCharField(max_length=100, required=False, allow_null=True, default=None)
    template_id = IdField(required=False, allow_null=True, default=None)


class WorkflowVersionOutput(serializers.ModelSerializer):
    settings = ShapedJSONField(shape=WorkflowSettings)

    class Meta:
        model = WorkflowVersion
        fields = ["id", "version_number", "status", "settings", "published_at", "note", "created_at"]


class WorkflowOutput(serializers.ModelSerializer):
    versions = WorkflowVersionOutput(many=True, read_only=True)

    class Meta:
        model = Workflow
        fields = [
            "id",
            "name",
            "description",
            "category",
            "status",
            "published_version_id",
            "versions",
            "created_at",
            "updated_at",
        ]


def _node_types() -> dict:
    return {
        NodeType.START: StartNode,
        NodeType.ACTION: _ACTION_NODE,
        NodeType.WAIT: WaitNode,
        NodeType.CONDITION: ConditionNode,
        NodeType.END: EndNode,
    }


@extend_schema_field(
    PolymorphicProxySerializer(
        component_name="Node", serializers=_node_types, resource_type_field_name="type", many=True
    )
)
class NodeList(serializers.ListSerializer):
    """A graph's nodes; in the schema each node is the component of its ``type`` (its config typed)."""


class NodeIO(BodyInput):
    node_key = StrictCharField(max_length=40)
    type = StrictCharField(max_length=16)
    subtype = StrictCharField(max_length=50)
    name = VisibleNameField(required=False, allow_blank=True, default="", max_length=200)
    config = ShapedJSONField(shape={"type": "object", "properties": {}}, required=False, default=dict)
    is_enabled = serializers.BooleanField(required=False, default=True)
    consumes_budget = serializers.BooleanField(read_only=True)
    position_x = serializers.IntegerField(required=False, allow_null=True, default=None)
    position_y = serializers.IntegerField(required=False, allow_null=True, default=None)

    class Meta:
        list_serializer_class = NodeList


# The schema's node components (``Node`` is one of them by ``type``); the engine validates a node at publish.
class StartNode(NodeIO):
    """Where every execution enters (subtype ``manual``)."""

    type = serializers.ChoiceField(choices=[NodeType.START])
    config = ShapedJSONField(shape=START_CONFIG, required=False, default=dict)


_ACTION_NODE = PolymorphicProxySerializer(
    component_name="ActionNode",
    serializers=lambda: [action_node(key) for key, _ in ACTIONS],
    resource_type_field_name=None,
)


@functools.cache
def action_node(key: str) -> type[NodeIO]:
    """The node of one action (``SendSmsNode`` …): ``subtype`` its key, ``config`` its settings."""
    fields = {
        "__doc__": f"Runs the action `{key}` (the catalog's actions): its config is the action's own.",
        "__module__": __name__,
        "type": serializers.ChoiceField(choices=[NodeType.ACTION]),
        "subtype": serializers.ChoiceField(choices=[key]),
        "config": ShapedJSONField(shape=functools.partial(action_config, key), required=False, default=dict),
    }
    return type(f"{camel(key)}Node", (NodeIO,), fields)


class WaitNode(NodeIO):
    """Waits (subtype ``duration`` or ``until``)."""

    type = serializers.ChoiceField(choices=[NodeType.WAIT])
    config = ShapedJSONField(shape=WaitConfig, required=False, default=dict)


class ConditionNode(NodeIO):
    """Follows port ``yes`` or ``no`` by its rule tree."""

    type = serializers.ChoiceField(choices=[NodeType.CONDITION])
    config = ShapedJSONField(shape=condition_config, required=False, default=dict)


class EndNode(NodeIO):
    """Ends the journey (subtype: its behaviour)."""

    type = serializers.ChoiceField(choices=[NodeType.END])
    config = ShapedJSONField(shape=EndConfig, required=False, default=dict)


class EdgeIO(BodyInput):
    # "from" is a Python keyword: declared through the fields dict below.
    to = StrictCharField(max_length=40)
    port = StrictCharField(max_length=30, required=False, default="default")
    label = VisibleNameField(max_length=100, required=False, allow_blank=True, default="")

    def get_fields(self):
        fields = super().get_fields()
        fields["from"] = StrictCharField(max_length=40)
        return fields


class GraphError(serializers.Serializer):
    node_key = serializers.CharField(allow_null=True)
    code = serializers.CharField()
    message = serializers.CharField()


class GraphInput(BodyInput):
    nodes = NodeIO(many=True, max_length=MAX_NODES)
    edges = EdgeIO(many=True, max_length=MAX_EDGES)
    settings = ShapedJSONField(shape=WorkflowSettings, required=False, default=dict)


class WorkflowDefaultsInput(BodyInput):
    """The draft's workflow-wide defaults; an absent or null field clears that default (PUT replaces all three)."""

    daily_limit = serializers.IntegerField(
        min_value=1,
        required=False,
        allow_null=True,
        default=None,
        help_text="sends a day of a campaign on this workflow that sets no daily limit of its own",
    )
    retry = RetryPolicy(required=False, allow_null=True, default=None, help_text="for action steps without their own")
    on_unknown_outcome = serializers.ChoiceField(
        choices=OnUnknownOutcome.choices,
        required=False,
        allow_null=True,
        default=None,
        help_text="for action steps without their own: continue (the default) or hold",
    )


class WorkflowDefaultsOutput(serializers.Serializer):
    workflow_id = serializers.IntegerField()
    version_id = serializers.IntegerField()
    version_status = serializers.ChoiceField(choices=VersionStatus.choices, help_text="the draft's, else the published")
    daily_limit = serializers.IntegerField(allow_null=True)
    retry = RetryPolicy(allow_null=True)
    on_unknown_outcome = serializers.ChoiceField(choices=OnUnknownOutcome.choices, allow_null=True)
    errors = GraphError(many=True, help_text="the draft's validation errors after a save (empty on a read)")


class GraphOutput(serializers.Serializer):
    workflow_id = serializers.IntegerField()
    version_id = serializers.IntegerField()
    version_number = serializers.IntegerField()
    status = serializers.ChoiceField(choices=VersionStatus.choices)
    nodes = NodeIO(many=True)
    edges = EdgeIO(many=True)
    settings = ShapedJSONField(shape=WorkflowSettings)
    errors = GraphError(many=True)


class ValidationOutput(serializers.Serializer):
    valid = serializers.BooleanField()
    errors = GraphError(many=True)


class PublishInput(BodyInput):
    note = StrictCharField(required=False, allow_blank=True, default="", max_length=300)


class CatalogActionOutput(serializers.Serializer):
    key = serializers.CharField(help_text="an action node's subtype")
    label = serializers.CharField()
    consumes_budget = serializers.BooleanField()
    guards = serializers.ListField(child=serializers.CharField())
    config_schema = serializers.DictField(help_text="the JSON Schema of the node's config (also the schema's *Config)")


class CatalogFactOutput(serializers.Serializer):
    """A channel's fact a condition rule may read (journeys.md "Facts")."""

    key = serializers.CharField()
    label = serializers.CharField()
    kind = serializers.CharField()
    operators = serializers.ListField(child=serializers.CharField())
    ends_wait = serializers.BooleanField()
    stop_label = serializers.CharField(help_text="offered as the campaign setting stop_when_facts when not empty")


class CatalogVariableOutput(serializers.Serializer):
    key = serializers.CharField()
    label = serializers.CharField()
    aliases = serializers.ListField(child=serializers.CharField())


class CatalogEntryOutput(serializers.Serializer):
    key = serializers.CharField()
    label = serializers.CharField()


class CatalogNodeTypeOutput(CatalogEntryOutput):
    ports = serializers.ListField(child=serializers.CharField())


class CatalogTemplateOutput(serializers.Serializer):
    key = serializers.CharField(allow_null=True, help_text="a built-in template")
    id = serializers.IntegerField(allow_null=True, help_text="a template of the workspace")
    name = serializers.CharField()
    description = serializers.CharField()
    builtin = serializers.BooleanField()


class CatalogOutput(serializers.Serializer):
    actions = ShapedJSONField(shape=CatalogActionOutput(many=True))
    operators = serializers.ListField(child=serializers.CharField())
    facts = ShapedJSONField(shape=CatalogFactOutput(many=True))
    variables = ShapedJSONField(shape=CatalogVariableOutput(many=True))
    guards = serializers.ListField(child=serializers.CharField())
    retry_strategies = ShapedJSONField(shape=CatalogEntryOutput(many=True))
    node_types = ShapedJSONField(shape=CatalogNodeTypeOutput(many=True))
    templates = ShapedJSONField(shape=CatalogTemplateOutput(many=True))


class EnrollmentInput(BodyInput):
    target_ids = serializers.ListField(child=IdField(), allow_empty=False, max_length=20000)
    on_conflict = serializers.ChoiceField(
        choices=Decision.choices,
        required=False,
        allow_null=True,
        default=None,
        help_text="Targets live in another campaign: `add` or `skip`. Without it, their presence is a 400 "
        "`CONFLICTS_PRESENT` naming them (the system never decides a duplicate on its own).",
    )


class InvalidSubjectOutput(serializers.Serializer):
    subject_id = serializers.IntegerField()
    reason = serializers.ChoiceField(choices=INVALID_REASONS)


class LiveElsewhereOutput(serializers.Serializer):
    """A journey of another campaign the target is live in (why enrolling it here is a conflict)."""

    execution_id = serializers.IntegerField()
    campaign_id = serializers.IntegerField()
    campaign_name = serializers.CharField()
    campaign_status = serializers.ChoiceField(choices=CampaignStatus.choices)
    workflow_id = serializers.IntegerField()
    workflow_name = serializers.CharField()
    current_step = serializers.CharField()
    next_run_at = serializers.DateTimeField(allow_null=True)
    status = serializers.ChoiceField(choices=ExecutionStatus.choices)


class EnrollmentOutput(serializers.Serializer):
    added = serializers.ListField(child=serializers.IntegerField())
    invalid = ShapedJSONField(shape=InvalidSubjectOutput(many=True))
    blacklisted = serializers.ListField(child=serializers.IntegerField())
    already_live = serializers.ListField(child=serializers.IntegerField())
    added_concurrently = serializers.ListField(child=serializers.IntegerField())
    conflict_skipped = serializers.ListField(child=serializers.IntegerField())
    counts = serializers.DictField(child=serializers.IntegerField())


class EnrollmentPreviewInput(BodyInput):
    target_ids = serializers.ListField(child=IdField(), required=False, max_length=20000)
    filters = ShapedObjectField(
        shape=TargetFilters,
        validators=[_valid_target_filters],
        required=False,
        allow_null=True,
        default=None,
        help_text="The targets list's filter (q, status, list, province, city, owner, created_after, "
        "created_before): every matching target the caller may see, at most 20,000.",
    )


class EnrollmentOverrideInput(BodyInput):
    subject_id = IdField()
    decision = serializers.ChoiceField(choices=Decision.choices, allow_null=True)


class EnrollmentDecisionsInput(BodyInput):
    default = serializers.ChoiceField(
        choices=Decision.choices, required=False, allow_null=True, help_text="For every conflict without an override."
    )
    overrides = EnrollmentOverrideInput(many=True, required=False, default=list, max_length=20000)


class EnrollmentBatchOutput(serializers.ModelSerializer):
    filters = ShapedJSONField(shape=TargetFilters, allow_null=True)
    counts = ShapedJSONField(shape=EnrollmentCounts)
    result = serializers.DictField(child=serializers.IntegerField(), help_text="targets per outcome after commit")

    class Meta:
        model = EnrollmentBatch
        fields = [
            "id",
            "campaign_id",
            "status",
            "source",
            "filters",
            "default_decision",
            "counts",
            "result",
            "total",
            "processed",
            "attempts",
            "error",
            "created_at",
            "committed_at",
            "finished_at",
        ]


class EnrollmentItemOutput(serializers.ModelSerializer):
    """``class``: invalid / blacklisted / already_live / conflict / ready; ``conflicts``: the other live journeys
    (campaign, workflow, current step, next send, status); ``outcome`` after commit."""

    conflicts = ShapedJSONField(shape=LiveElsewhereOutput(many=True))

    class Meta:
        model = EnrollmentItem
        fields = ["subject_id", "reason", "conflicts", "decision", "outcome"]

    def get_fields(self):
        fields = super().get_fields()
        fields["class"] = serializers.CharField(source="klass", read_only=True)  # "class" is a Python keyword
        return fields


class ExecutionOutput(serializers.ModelSerializer):
    current_node_key = serializers.CharField(source="current_node.node_key", default=None, read_only=True)

    class Meta:
        model = Execution
        fields = [
            "id",
            "campaign_id",
            "workflow_id",
            "version_id",
            "subject_id",
            "current_node_key",
            "cycle",
            "status",
            "eligible_at",
            "next_run_at",
            "retry_count",
            "revision",
            "end_reason",
            "last_error",
            "started_at",
            "completed_at",
        ]


class ExecutionControlInput(BodyInput):
    unknown_outcome = serializers.ChoiceField(
        choices=["skip", "resend"],
        required=False,
        allow_null=True,
        default=None,
        help_text="Resume only, for an execution held after an unknown SMS outcome: `skip` (default) follows the "
        "step's success path without sending; `resend` sends the step again with the same local id.",
    )


class ExecutionEventOutput(serializers.ModelSerializer):
    class Meta:
        model = ExecutionEvent
        fields = ["id", "type", "from_status", "to_status", "node_id", "message", "data", "actor_id", "occurred_at"]


class BulkControlInput(ExecutionControlInput):
    action = serializers.ChoiceField(choices=BULK_ACTIONS)
    execution_ids = serializers.ListField(child=IdField(), allow_empty=False, max_length=5000)


class RefusedExecutionOutput(serializers.Serializer):
    execution_id = serializers.IntegerField()
    code = serializers.CharField()
    message = serializers.CharField()


class BulkControlOutput(serializers.Serializer):
    action = serializers.ChoiceField(choices=BULK_ACTIONS)
    done = serializers.ListField(child=serializers.IntegerField())
    refused = ShapedJSONField(shape=RefusedExecutionOutput(many=True))
    counts = serializers.DictField(child=serializers.IntegerField())


class TargetExecutionOutput(serializers.ModelSerializer):
    campaign_name = serializers.CharField(source="campaign.name", read_only=True)
    workflow_name = serializers.CharField(source="workflow.name", read_only=True)
    current_node_key = serializers.CharField(source="current_node.node_key", default=None, read_only=True)
    current_node_name = serializers.CharField(source="current_node.name", default=None, read_only=True)

    class Meta:
        model = Execution
        fields = [
            "id",
            "campaign_id",
            "campaign_name",
            "workflow_id",
            "workflow_name",
            "current_node_key",
            "current_node_name",
            "cycle",
            "status",
            "next_run_at",
            "end_reason",
            "started_at",
            "completed_at",
        ]


class AutoEnrollRuleInput(BodyInput):
    enabled = serializers.BooleanField(required=False, default=True)
    filters = ShapedObjectField(
        shape=TargetFilters,
        validators=[_valid_target_filters],
        help_text="The targets list's filter (q, status, list, province, city, owner, created_after, "
        "created_before); at least one condition.",
    )
    daily_cap = serializers.IntegerField(required=False, default=200, min_value=1, max_value=5000)
    include_existing = serializers.BooleanField(
        required=False,
        default=False,
        help_text="Also targets that exist now; needs `confirmed_existing_count` (from auto-enroll/existing-count).",
    )
    confirmed_existing_count = serializers.IntegerField(required=False, allow_null=True, default=None, min_value=0)


class AutoEnrollCountInput(BodyInput):
    filters = ShapedObjectField(shape=TargetFilters, validators=[_valid_target_filters])


class AutoEnrollCountOutput(serializers.Serializer):
    existing_count = serializers.IntegerField()


class AutoEnrollCheckOutput(serializers.Serializer):
    """What one auto-enroll check did (``{}`` before the first)."""

    at = serializers.DateTimeField(required=False)
    day = serializers.DateField(required=False)
    day_count = serializers.IntegerField(required=False)
    examined = serializers.IntegerField(required=False)
    enrolled = serializers.IntegerField(required=False)
    conflicts = serializers.IntegerField(required=False)
    blacklisted = serializers.IntegerField(required=False)
    invalid = serializers.IntegerField(required=False)
    already_live = serializers.IntegerField(required=False)
    added_concurrently = serializers.IntegerField(required=False)
    waiting = serializers.BooleanField(required=False, help_text="more matches wait for the next check")
    capped_by = serializers.ChoiceField(
        choices=["daily_cap", "per_check", "scan"],
        required=False,
        allow_null=True,
        allow_blank=True,
        help_text="what stopped the check (empty: nothing)",
    )


class AutoEnrollRuleOutput(serializers.Serializer):
    campaign_id = serializers.IntegerField()
    exists = serializers.BooleanField()
    enabled = serializers.BooleanField()
    filters = ShapedJSONField(shape=TargetFilters)
    include_existing = serializers.BooleanField()
    since = serializers.DateTimeField(allow_null=True)
    cursor = serializers.IntegerField()
    daily_cap = serializers.IntegerField()
    day = serializers.DateField(allow_null=True, help_text="The workspace day `day_count` counts.")
    day_count = serializers.IntegerField()
    last_check_at = serializers.DateTimeField(allow_null=True)
    last_check = ShapedJSONField(
        shape=AutoEnrollCheckOutput,
        help_text="The last check that examined somebody (a check that found nobody new leaves it as it was; "
        "`last_check_at` is the latest check, `last_check.at` this one): "
        "examined, enrolled, conflicts, blacklisted, invalid, already_live, added_concurrently, "
        "waiting (more matches wait for the next check), capped_by (daily_cap | per_check | scan).",
    )
    updated_at = serializers.DateTimeField(allow_null=True)

    @staticmethod
    def of(campaign_id: int, rule) -> dict:
        if rule is None:
            return {
                "campaign_id": campaign_id,
                "exists": False,
                "enabled": False,
                "filters": {},
                "include_existing": False,
                "since": None,
                "cursor": 0,
                "daily_cap": 200,
                "day": None,
                "day_count": 0,
                "last_check_at": None,
                "last_check": {},
                "updated_at": None,
            }
        return {
            "campaign_id": campaign_id,
            "exists": True,
            **{
                f: getattr(rule, f)
                for f in (
                    "enabled",
                    "filters",
                    "include_existing",
                    "since",
                    "cursor",
                    "daily_cap",
                    "day",
                    "day_count",
                    "last_check_at",
                    "last_check",
                    "updated_at",
                )
            },
        }


class JourneyCampaignUpdateInput(BodyInput):
    """Only the keys sent change. The workflow and its pinned version never change after creation (400)."""

    name = VisibleNameField(max_length=200, required=False)
    description = StrictCharField(max_length=DESCRIPTION_MAX_LENGTH, required=False, allow_blank=True)
    starts_at = serializers.DateTimeField(required=False, allow_null=True)
    ends_at = serializers.DateTimeField(required=False, allow_null=True)
    daily_limit = serializers.IntegerField(required=False, allow_null=True, min_value=1)
    send_window = ShapedJSONField(shape=SendWindow, required=False, allow_null=True)
    settings = ShapedJSONField(shape=JourneySettings, required=False, allow_null=True)
    workflow_id = serializers.IntegerField(required=False, help_text="Refused (400): pinned at creation.")
    workflow_version_id = serializers.IntegerField(required=False, help_text="Refused (400): pinned at creation.")
