"""Serializers of chain runs, run summaries and conversion events (snake_case)."""

import json

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from campaigns.chains import schedule as sched
from campaigns.chains.api.serializers import AudienceFiltersInput
from campaigns.chains.run_models import CampaignRun, ConversionEvent
from campaigns.chains.runs.choices import (
    AudienceClass,
    ConversionSource,
    ExclusionReason,
    RefusalReason,
    RunStatus,
    RunType,
    SkipReason,
    WaitReason,
)
from campaigns.models import Workspace
from campaigns.platform.api.fields import BodyInput, IdField, ObjectField, ShapedJSONField
from campaigns.platform.text import StrictCharField, VisibleNameField

MAX_EVENT_DATA_BYTES = 8000

# A run's times the API also writes in the workspace calendar (``shown``), like the preview's periods.
SHOWN_TIMES = ("planned_at", "scheduled_at", "wait_deadline_at", "started_at", "dispatched_at", "completed_at")


class SelectionRuleOutput(serializers.Serializer):
    """How the run's audience was chosen, frozen with it: a root's list and filters (``TARGET_LIST``), a re-run
    of an earlier run (``RERUN``), or an inherited class of the source run's audience (no ``source``)."""

    source = serializers.ChoiceField(
        choices=["TARGET_LIST", "RERUN"], required=False, help_text="absent for an inherited run"
    )
    targetListId = serializers.IntegerField(required=False, allow_null=True)
    targetFilters = ShapedJSONField(shape=AudienceFiltersInput, required=False, allow_null=True)
    rerunOfRunId = serializers.IntegerField(required=False)
    sourceRunId = serializers.IntegerField(required=False)
    sourceTargetSnapshotId = serializers.IntegerField(required=False, allow_null=True)
    inheritType = serializers.CharField(required=False)
    deliveryCutoffAt = serializers.DateTimeField(required=False)
    conversionDataAsOf = serializers.DateTimeField(required=False)
    deliveryReportsPending = serializers.IntegerField(required=False)
    dataAsOf = serializers.DateTimeField(required=False)


class RunOutput(serializers.ModelSerializer):
    selection_rule_snapshot = ShapedJSONField(shape=SelectionRuleOutput, allow_null=True)
    campaign_id = serializers.IntegerField()
    root_campaign_id = serializers.IntegerField(source="root_id", allow_null=True)
    run_type = serializers.ChoiceField(choices=RunType.choices)
    status = serializers.ChoiceField(choices=RunStatus.choices)
    source_run_id = serializers.IntegerField(allow_null=True)
    source_campaign_id = serializers.SerializerMethodField()
    inherit_type = serializers.ChoiceField(choices=AudienceClass.choices, allow_blank=True)
    wait_reason = serializers.ChoiceField(choices=WaitReason.choices, allow_blank=True)
    skip_reason = serializers.ChoiceField(choices=SkipReason.choices, allow_blank=True)
    target_snapshot_id = serializers.IntegerField(allow_null=True)
    shown = serializers.SerializerMethodField()
    refused_count = serializers.IntegerField(
        help_text="Members of the frozen audience (control group apart) the channel left out at dispatch: no "
        "execution, no message; `audience_count` − `control_count` = `expected_execution_count` + this."
    )
    refused_reasons = serializers.DictField(
        child=serializers.IntegerField(min_value=1),
        help_text="`refused_count` by reason: "
        + ", ".join(f"`{code}`" for code in RefusalReason.values)
        + "; another channel may name its own. Each such person's timeline has an entry with the reason.",
    )
    excluded_reasons = serializers.DictField(
        child=serializers.IntegerField(min_value=1),
        help_text="Executions whose send left their person out when it came to send, by reason: "
        + ", ".join(f"`{code}`" for code in ExclusionReason.values)
        + " (kept by the completion check of a dispatched run; counted in `expected_execution_count`).",
    )

    class Meta:
        model = CampaignRun
        fields = [
            "id",
            "campaign_id",
            "root_campaign_id",
            "run_type",
            "status",
            "period_key",
            "source_run_id",
            "source_campaign_id",
            "inherit_type",
            "planned_at",
            "scheduled_at",
            "next_check_at",
            "wait_deadline_at",
            "wait_reason",
            "skip_reason",
            "failure_reason",
            "operational_error",
            "selection_rule_snapshot",
            "target_snapshot_id",
            "audience_count",
            "control_count",
            "expected_execution_count",
            "refused_count",
            "refused_reasons",
            "excluded_reasons",
            "started_at",
            "dispatched_at",
            "completed_at",
            "created_at",
            "shown",
        ]
        read_only_fields = fields

    @extend_schema_field(
        serializers.DictField(
            child=serializers.CharField(allow_null=True),
            help_text=f"{', '.join(SHOWN_TIMES)} in the workspace calendar and time zone, e.g. "
            '"1405/01/01 09:00" (Jalali; "2026-03-21 09:00" in a Gregorian workspace); null when not set',
        )
    )
    def get_shown(self, run) -> dict:
        zones = self.__dict__.setdefault("_zones", {})  # one read per workspace for a whole page of runs
        if run.workspace_id not in zones:
            zones[run.workspace_id] = sched.workspace_zone(
                Workspace.objects.only("time_zone", "settings").get(pk=run.workspace_id)
            )
        tz = zones[run.workspace_id]
        return {key: sched.show_time(getattr(run, key), tz) if getattr(run, key) else None for key in SHOWN_TIMES}

    def get_source_campaign_id(self, run) -> int | None:
        return run.source_run.campaign_id if run.source_run_id else None


class RunSummaryOutput(serializers.Serializer):
    campaign_id = serializers.IntegerField()
    source_campaign_id = serializers.IntegerField(allow_null=True)
    source_campaign_name = serializers.CharField(allow_null=True)
    inherit_type = serializers.ChoiceField(choices=AudienceClass.choices, allow_null=True)
    inheritance_label = serializers.CharField(
        allow_null=True, help_text="«ارث‌بری از <منبع> – <دسته مخاطبان>» for a chain child, null otherwise."
    )
    latest_run = RunOutput(allow_null=True)
    latest_counted_run_id = serializers.IntegerField(allow_null=True)
    latest_run_count = serializers.IntegerField(
        allow_null=True, help_text="Audience count of the newest run that ran; null before any ran (never a sum)."
    )


class ConversionEventInput(BodyInput):
    target_id = IdField()
    name = VisibleNameField(max_length=100)
    occurred_at = serializers.DateTimeField()
    data = ObjectField(required=False, default=dict)
    external_id = StrictCharField(max_length=100, required=False, allow_null=True, allow_blank=True)

    def validate_data(self, value):
        if len(json.dumps(value, ensure_ascii=False)) > MAX_EVENT_DATA_BYTES:
            raise serializers.ValidationError(f"داده رویداد حداکثر {MAX_EVENT_DATA_BYTES} نویسه است.")
        return value


class ConversionEventOutput(serializers.ModelSerializer):
    target_id = serializers.IntegerField()
    source = serializers.ChoiceField(choices=ConversionSource.choices)

    class Meta:
        model = ConversionEvent
        fields = ["id", "target_id", "name", "occurred_at", "data", "source", "external_id", "created_at"]
        read_only_fields = fields


class ManualRunOutput(serializers.Serializer):
    run = RunOutput()
    children_triggered = serializers.BooleanField(help_text="Always false: a manual run opens no period.")
    message = serializers.CharField()


class LiftOutput(serializers.Serializer):
    run_id = serializers.IntegerField(allow_null=True, help_text="null: the campaign's runs added up")
    campaign_id = serializers.IntegerField()
    treated = serializers.IntegerField(help_text="non-CONTROL members of the frozen audiences")
    treated_conversions = serializers.IntegerField()
    control = serializers.IntegerField(help_text="CONTROL members (held out, never sent)")
    control_conversions = serializers.IntegerField()
    treated_rate = serializers.FloatField(allow_null=True)
    control_rate = serializers.FloatField(allow_null=True)
    difference = serializers.FloatField(allow_null=True, help_text="treated rate − control rate")
    ci_low = serializers.FloatField(allow_null=True, help_text="95 % interval of the difference (two-proportion)")
    ci_high = serializers.FloatField(allow_null=True)
    enough_data = serializers.BooleanField(help_text="false below 30 people in either part: no difference given")
    message = serializers.CharField()
