"""Serializers for groups, chains and approval packages (snake_case)."""

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from campaigns.chains import schedule as sched
from campaigns.chains.choices import ChainControl, GroupStatus, InheritanceType, PackageStatus
from campaigns.chains.models import CampaignGroup, ChainApprovalPackage
from campaigns.chains.node_models import ChainNode
from campaigns.chains.preview import AUDIENCE_ESTIMATE_STATUSES
from campaigns.chains.services.groups import REJECT_REASONS
from campaigns.choices import CampaignKind, CampaignStatus, CapPriority
from campaigns.platform.api.fields import BodyInput, IdField, ShapedJSONField
from campaigns.platform.api.schema import component_ref
from campaigns.platform.api.shapes import SendWindow
from campaigns.platform.channels import CampaignKindChoices
from campaigns.platform.text import DESCRIPTION_MAX_LENGTH, StrictCharField, VisibleNameField


class GroupOutput(serializers.ModelSerializer):
    status = serializers.ChoiceField(choices=GroupStatus.choices)
    campaign_counts = serializers.DictField(child=serializers.IntegerField(), required=False)

    class Meta:
        model = CampaignGroup
        fields = ["id", "name", "description", "status", "revision", "campaign_counts", "created_at", "updated_at"]


class GroupCreateInput(BodyInput):
    name = VisibleNameField(max_length=300, allow_blank=True, trim_whitespace=False)
    description = StrictCharField(max_length=600, required=False, allow_blank=True)


class GroupUpdateInput(BodyInput):
    name = VisibleNameField(max_length=300, required=False, allow_blank=True, trim_whitespace=False)
    description = StrictCharField(max_length=600, required=False, allow_blank=True)
    expected_revision = serializers.IntegerField(min_value=1)


class ExpectedRevisionInput(BodyInput):
    expected_revision = serializers.IntegerField(min_value=1)


class TreeQueryInput(serializers.Serializer):
    query = StrictCharField(required=False, help_text="campaign name contains; matching chains are returned whole")
    page = serializers.IntegerField(min_value=1, max_value=100000, default=1)
    size = serializers.IntegerField(min_value=1, max_value=200, default=20)
    cursor = serializers.CharField(
        required=False,
        max_length=500,
        help_text="The `next` of an earlier answer (with the same query and size): the page after it (replaces page).",
    )


class SourcesQueryInput(serializers.Serializer):
    campaign_id = IdField(required=False, help_text="exclude this campaign and its descendants")


class GroupAddInput(BodyInput):
    campaign_ids = serializers.ListField(child=IdField(), allow_empty=False, max_length=1000)
    expected_revision = serializers.IntegerField(min_value=1, required=False)


class RejectedItemOutput(serializers.Serializer):
    campaign_id = serializers.IntegerField()
    reason = serializers.ChoiceField(choices=REJECT_REASONS)
    message = serializers.CharField()


class GroupAddOutput(serializers.Serializer):
    added_ids = serializers.ListField(child=serializers.IntegerField())
    rejected_items = RejectedItemOutput(many=True)
    revision = serializers.IntegerField()


class GroupMoveInput(BodyInput):
    to_group_id = IdField()
    expected_revision = serializers.IntegerField(min_value=1)
    expected_target_revision = serializers.IntegerField(min_value=1, required=False)


# --------------------------------------------------------------------------- chains


class FixedDayInput(BodyInput):
    mode = serializers.CharField()
    day = serializers.CharField(required=False, help_text='"1".."31" or "LAST"')
    week = serializers.CharField(required=False, allow_null=True, help_text='"1".."4" or "LAST"')
    weekday = serializers.CharField(required=False, help_text="MON..SUN")


class ChildScheduleInput(BodyInput):
    type = serializers.ChoiceField(choices=sched.CHILD_TYPES)
    offset_days = serializers.IntegerField(required=False)
    run_time = serializers.CharField(help_text="HH:MM, workspace time zone")
    fixed_day = FixedDayInput(required=False)


class InheritanceInput(BodyInput):
    type = serializers.ChoiceField(choices=InheritanceType.choices)
    schedule = ChildScheduleInput()


class RootScheduleInput(BodyInput):
    type = serializers.ChoiceField(choices=sched.ROOT_TYPES)
    time = serializers.CharField(required=False, help_text="HH:MM, workspace time zone")
    weekdays = serializers.ListField(child=serializers.CharField(), required=False)
    day = serializers.CharField(required=False, help_text='"1".."31" or "LAST"')
    start_date = serializers.DateField(required=False, allow_null=True)
    end_date = serializers.DateField(required=False, allow_null=True)
    at = serializers.DateTimeField(required=False)


class GoalInput(BodyInput):
    type = serializers.ChoiceField(choices=["TARGET_STATUS", "EVENT", "REPLIED"])
    statuses = serializers.ListField(child=StrictCharField(), required=False)
    event = StrictCharField(required=False, max_length=80)
    words = serializers.ListField(
        child=StrictCharField(max_length=40),
        required=False,
        max_length=20,
        help_text="REPLIED: a reply counts only when it holds one of these words whole (empty: any reply)",
    )


class ChainActionInput(BodyInput):
    channel = StrictCharField(required=False, allow_blank=True, allow_null=True, max_length=40)
    content = StrictCharField(required=False, allow_blank=True, max_length=2000)
    control_percent = serializers.IntegerField(
        required=False, min_value=0, max_value=50, help_text="CONTROL share: held out, no execution, not inherited"
    )


class AudienceFiltersInput(BodyInput):
    """The targets page's filters narrowing a root's list (empty = the whole list)."""

    status = serializers.ListField(child=serializers.CharField(max_length=20), required=False, max_length=10)
    province = serializers.CharField(required=False, allow_blank=True, max_length=80)
    city = serializers.CharField(required=False, allow_blank=True, max_length=80)
    priority_min = serializers.IntegerField(required=False, allow_null=True)
    owner = IdField(required=False, allow_null=True)
    q = serializers.CharField(required=False, allow_blank=True, max_length=100)
    created_after = serializers.DateTimeField(required=False, allow_null=True)
    created_before = serializers.DateTimeField(required=False, allow_null=True)

    def to_internal_value(self, data):
        unknown = sorted(set(data) - set(self.fields)) if isinstance(data, dict) else []
        if unknown:  # never silently ignored
            raise serializers.ValidationError(f"فیلترهای ناشناخته: {unknown}؛ مجاز: {list(self.fields)}.")
        return super().to_internal_value(data)


class AudienceCountInput(BodyInput):
    source_target_list_id = IdField()
    audience_filters = AudienceFiltersInput(required=False, allow_null=True)


class AudienceCountOutput(serializers.Serializer):
    count = serializers.IntegerField()
    message = serializers.CharField(help_text="«این کمپین به ۱٬۲۴۰ نفر می‌رسد»")


def _raw(shape):
    """Keep the request's own JSON (request strings are converted by the services); the schema says ``shape``."""
    return ShapedJSONField(shape=shape, required=False, allow_null=True)


def _send_window(**kwargs):
    help_text = "this node's own send window (the journey campaign's format)"
    return ShapedJSONField(shape=SendWindow, allow_null=True, help_text=help_text, **kwargs)


class ReviewReasonOutput(serializers.Serializer):
    """Why a node needs review (an edit upstream) or cannot be approved (a problem of its own)."""

    code = serializers.CharField()
    message = serializers.CharField()
    fields = serializers.ListField(child=serializers.CharField(), help_text="the node's fields to look at")
    source_campaign_id = serializers.IntegerField(allow_null=True, help_text="the edited campaign, when upstream")


class PackageProblemOutput(serializers.Serializer):
    campaign_id = serializers.IntegerField()
    name = serializers.CharField()
    reasons = ReviewReasonOutput(many=True)


class PackageWarningOutput(serializers.Serializer):
    code = serializers.CharField(help_text="NO_FEASIBLE_RUN_IN_CURRENT_PERIOD")
    campaign_id = serializers.IntegerField()
    period_start = serializers.DateTimeField()
    planned_child_at = serializers.DateTimeField(allow_null=True)
    message = serializers.CharField()


class ScheduleReasonOutput(serializers.Serializer):
    """Why a child's schedule has no feasible run in a period of its root."""

    code = serializers.CharField(
        help_text="SOURCE_NOT_FEASIBLE, AFTER_INTERVAL_LONGER_THAN_PERIOD or FIXED_DAY_OUTSIDE_PERIOD"
    )
    field = serializers.CharField()
    period_start = serializers.DateTimeField()
    next_root_at = serializers.DateTimeField(allow_null=True)
    planned_source_at = serializers.DateTimeField(allow_null=True)
    period_days = serializers.FloatField(allow_null=True)
    planned_child_at = serializers.DateTimeField(required=False)


class _ChainNodeInput(BodyInput):
    """What a chain node's create and update both take."""

    description = StrictCharField(max_length=DESCRIPTION_MAX_LENGTH, required=False, allow_blank=True)
    parent_campaign_id = IdField(required=False, allow_null=True)
    expected_chain_revision = serializers.IntegerField(required=False, allow_null=True, min_value=1)
    inheritance = _raw(InheritanceInput)
    when = _raw(RootScheduleInput)
    goal = _raw(GoalInput)
    attribution_window_days = serializers.IntegerField(required=False, min_value=1, max_value=365)
    chain_action = _raw(ChainActionInput)
    source_target_list_id = IdField(
        required=False, allow_null=True, help_text="a root's audience: this target list (children: not allowed)"
    )
    audience_filters = AudienceFiltersInput(required=False, allow_null=True)
    daily_limit = serializers.IntegerField(
        required=False, allow_null=True, min_value=1, help_text="this node's own daily send limit"
    )
    send_window = _send_window(required=False)
    frequency_cap_priority = serializers.ChoiceField(
        choices=CapPriority.choices,
        required=False,
        help_text="who gets the last units of the frequency cap across campaigns (docs/sms.md): `high` first in a "
        "batch, `low` never the last unit of a rule of 2 or more; default `normal`",
    )


class ChainCampaignCreateInput(_ChainNodeInput):
    name = VisibleNameField(max_length=200)
    kind = serializers.ChoiceField(choices=CampaignKindChoices(), required=False, default=CampaignKind.JOURNEY)
    campaign_group_id = IdField(required=False, allow_null=True)


class ChainCampaignUpdateInput(_ChainNodeInput):
    name = VisibleNameField(max_length=200, required=False)
    expected_target_chain_revision = serializers.IntegerField(required=False, allow_null=True)
    accept_affected = serializers.BooleanField(required=False, default=False)


class ChainCampaignOutput(serializers.ModelSerializer):
    status = serializers.ChoiceField(choices=CampaignStatus.choices)
    chain_control = serializers.ChoiceField(choices=ChainControl.choices)
    campaign_group_id = serializers.IntegerField(source="group_id", allow_null=True)
    parent_campaign_id = serializers.IntegerField(source="parent_id", allow_null=True)
    root_campaign_id = serializers.IntegerField(source="root_id", allow_null=True)
    approval_package_id = serializers.IntegerField(allow_null=True)
    inheritance = serializers.SerializerMethodField()
    when = serializers.SerializerMethodField()
    needs_review_reasons = ShapedJSONField(shape=ReviewReasonOutput(many=True))
    source_target_list_id = serializers.IntegerField(allow_null=True)
    audience_filters = ShapedJSONField(shape=AudienceFiltersInput)
    send_window = _send_window()
    goal = ShapedJSONField(shape=GoalInput, allow_null=True)
    chain_action = ShapedJSONField(shape=ChainActionInput, allow_null=True)
    chain_code = serializers.CharField(
        read_only=True, help_text="Stable code of the node, given when its chain is first submitted; empty before"
    )
    frequency_cap_priority = serializers.SerializerMethodField()

    class Meta:
        model = ChainNode
        fields = [
            "id",
            "name",
            "description",
            "kind",
            "status",
            "revision",
            "campaign_group_id",
            "parent_campaign_id",
            "root_campaign_id",
            "inheritance",
            "when",
            "goal",
            "attribution_window_days",
            "ab_seed",
            "chain_action",
            "source_target_list_id",
            "audience_filters",
            "daily_limit",
            "send_window",
            "frequency_cap_priority",
            "chain_code",
            "chain_revision",
            "chain_control",
            "approval_package_id",
            "needs_review",
            "needs_review_reasons",
            "created_at",
            "updated_at",
        ]

    @extend_schema_field(InheritanceInput(allow_null=True))
    def get_inheritance(self, obj) -> dict | None:
        from campaigns.chains.selectors import inheritance_out

        return inheritance_out(obj.inheritance)

    @extend_schema_field(RootScheduleInput(allow_null=True))
    def get_when(self, obj) -> dict | None:
        return sched.api_root_schedule(obj.root_schedule)

    @extend_schema_field(serializers.ChoiceField(choices=CapPriority.choices))
    def get_frequency_cap_priority(self, obj) -> str:
        return (obj.journey_settings or {}).get("frequency_cap_priority") or CapPriority.NORMAL


class ExpectedChainRevisionInput(BodyInput):
    expected_chain_revision = serializers.IntegerField(min_value=1)


class OptionalChainRevisionInput(BodyInput):
    """Submit (required for a chain member: the service says so; a standalone campaign has no chain) and
    delete of a chain member."""

    expected_chain_revision = serializers.IntegerField(min_value=1, required=False)


class CloneInput(BodyInput):
    campaign_group_id = serializers.IntegerField(required=False, allow_null=True)


class CloneOutput(serializers.Serializer):
    campaign = ChainCampaignOutput()
    id_map = serializers.DictField(child=serializers.IntegerField())


class TreeNodeOutput(serializers.Serializer):
    campaign_id = serializers.IntegerField()
    name = serializers.CharField()
    parent_campaign_id = serializers.IntegerField(allow_null=True)
    root_campaign_id = serializers.IntegerField(allow_null=True)
    status = serializers.ChoiceField(choices=CampaignStatus.choices)
    chain_code = serializers.CharField(help_text="Stable code of the node (empty before its chain is submitted)")
    needs_review = serializers.BooleanField()
    needs_review_reasons = ShapedJSONField(shape=ReviewReasonOutput(many=True))
    inheritance = ShapedJSONField(shape=InheritanceInput, allow_null=True)
    matched = serializers.BooleanField()
    allowed_actions = serializers.ListField(child=serializers.CharField())
    children = ShapedJSONField(
        shape={"type": "array", "items": component_ref("TreeNodeOutput")}, help_text="the node's children (recursive)"
    )


class TreeOutput(serializers.Serializer):
    total_root_items = serializers.IntegerField()
    page = serializers.IntegerField(allow_null=True, help_text="null in a cursor answer")
    size = serializers.IntegerField()
    has_more = serializers.BooleanField(help_text="top-level campaigns follow this page")
    next = serializers.CharField(allow_null=True, help_text="`?cursor=` of the next page (null: none)")
    roots = TreeNodeOutput(many=True)


class SourceOutput(serializers.Serializer):
    campaign_id = serializers.IntegerField()
    name = serializers.CharField()
    root_campaign_id = serializers.IntegerField(allow_null=True)
    parent_campaign_id = serializers.IntegerField(allow_null=True)
    root_schedule_type = serializers.ChoiceField(
        choices=sched.RECURRING_ROOT_TYPES, help_text="a source is a campaign of a recurring chain"
    )
    needs_review = serializers.BooleanField()


class RootPreviewInput(BodyInput):
    when = _raw(RootScheduleInput)
    runs = serializers.IntegerField(required=False, min_value=1, max_value=12, default=4)


class RootPreviewRunOutput(serializers.Serializer):
    at = serializers.DateTimeField()
    shown = serializers.CharField(help_text='in the workspace\'s zone and calendar, e.g. "1405/01/01 09:00" (Jalali)')
    weekday = serializers.CharField(help_text="the weekday's Persian name")


class RootPreviewOutput(serializers.Serializer):
    time_zone = serializers.CharField()
    calendar = serializers.ChoiceField(choices=["jalali", "gregorian"], help_text="how months are counted")
    runs = RootPreviewRunOutput(many=True)
    recurring = serializers.BooleanField(help_text="false for a one-off or event schedule: no follow-up runs after it")
    ends = serializers.BooleanField(help_text="the schedule ends within the runs shown (its end date)")
    errors = serializers.DictField(child=serializers.ListField(child=serializers.CharField()))


class PreviewInput(BodyInput):
    source_campaign_id = IdField()
    schedule = ShapedJSONField(shape=ChildScheduleInput)
    periods = serializers.IntegerField(required=False, min_value=1, max_value=4, default=4)


class PreviewPeriodOutput(serializers.Serializer):
    period_start = serializers.DateTimeField()
    next_root_at = serializers.DateTimeField(allow_null=True)
    planned_source_at = serializers.DateTimeField(allow_null=True)
    planned_child_at = serializers.DateTimeField(allow_null=True)
    feasible = serializers.BooleanField()
    shown = serializers.DictField(
        child=serializers.CharField(allow_null=True),
        help_text='the four times in the workspace calendar, e.g. "1405/01/01 09:00" (Jalali)',
    )


class AudienceEstimateOutput(serializers.Serializer):
    status = serializers.ChoiceField(
        choices=AUDIENCE_ESTIMATE_STATUSES, help_text="UNKNOWN: a future run's audience is frozen when it runs"
    )
    count = serializers.IntegerField(allow_null=True)
    cost = serializers.IntegerField(allow_null=True)


class PreviewOutput(serializers.Serializer):
    time_zone = serializers.CharField()
    calendar = serializers.ChoiceField(choices=["jalali", "gregorian"], help_text="how months are counted")
    periods = PreviewPeriodOutput(many=True)
    errors = serializers.DictField(child=serializers.ListField(child=serializers.CharField()))
    reasons = ShapedJSONField(shape=ScheduleReasonOutput(many=True))
    audience_estimate = AudienceEstimateOutput()


class PackageOutput(serializers.ModelSerializer):
    status = serializers.ChoiceField(choices=PackageStatus.choices)
    root_campaign_id = serializers.IntegerField(source="root_id")
    submitted_by_id = serializers.IntegerField(allow_null=True)
    decided_by_id = serializers.IntegerField(allow_null=True)
    items = serializers.JSONField()
    is_current = serializers.BooleanField(required=False)
    warnings = ShapedJSONField(shape=PackageWarningOutput(many=True), required=False)
    approver_ids = serializers.ListField(
        child=serializers.IntegerField(),
        required=False,
        max_length=1000,
        help_text="members who may decide this pending package (four eyes: never its submitter)",
    )
    problems = ShapedJSONField(
        shape=PackageProblemOutput(many=True),
        required=False,
        help_text="blocking problems now (per campaign: reasons named in words); approval refuses while any",
    )
    four_eyes = serializers.BooleanField(
        read_only=True, help_text="the workspace's four-eyes rule bound at submit; approval is decided by it"
    )

    class Meta:
        model = ChainApprovalPackage
        fields = [
            "id",
            "root_campaign_id",
            "submitted_revision",
            "status",
            "items",
            "submitted_at",
            "submitted_by_id",
            "decided_at",
            "decided_by_id",
            "reason",
            "is_current",
            "warnings",
            "problems",
            "approver_ids",
            "four_eyes",
            "created_at",
        ]


class PackageDecisionInput(BodyInput):
    expected_submitted_revision = serializers.IntegerField(min_value=1)


class PackageRejectInput(PackageDecisionInput):
    reason = StrictCharField(max_length=1000)


class SubmitOutput(serializers.Serializer):
    campaign = ChainCampaignOutput()
    package = PackageOutput(allow_null=True)
