"""Live edits over the API (``workflows/{id}/migrations``), typed for the OpenAPI schema."""

from rest_framework import serializers

from automation.choices import MigrationChoice, MigrationKind, MigrationStatus
from automation.models import VersionMigration
from campaigns.platform.api.fields import BodyInput, IdField
from campaigns.platform.text import StrictCharField


class MigrationVersionsInput(BodyInput):
    from_version_id = IdField(help_text="The older published version whose live executions move.")
    to_version_id = IdField(help_text="The workflow's published version (409 STALE_VERSION when it is not).")
    campaign_id = IdField(required=False, allow_null=True, default=None, help_text="Only this campaign's executions.")


class MigrationChoiceInput(BodyInput):
    node_key = StrictCharField(max_length=40)
    choice = serializers.ChoiceField(choices=MigrationChoice.choices)
    to_node_key = StrictCharField(max_length=40, required=False, allow_null=True, default=None)


class MigrationCommitInput(MigrationVersionsInput):
    choices = MigrationChoiceInput(
        many=True, required=False, default=list, max_length=200, help_text="Old nodes not named get their default."
    )
    recompute_waits = serializers.BooleanField(
        required=False, default=False, help_text="Waits end the new wait's time after entering (else keep their due)."
    )
    text_fix = serializers.BooleanField(
        required=False,
        default=False,
        help_text="Only SMS texts changed: move who has not sent a changed step yet to the same step "
        "(choices ignored).",
    )


class DiffLineOutput(serializers.Serializer):
    label = serializers.CharField()
    old = serializers.CharField(allow_null=True)
    new = serializers.CharField(allow_null=True)


class StepDiffOutput(serializers.Serializer):
    node_key = serializers.CharField()
    name = serializers.CharField()
    kind = serializers.ChoiceField(choices=[("added", "added"), ("removed", "removed"), ("changed", "changed")])
    lines = DiffLineOutput(many=True)


class MigrationNodeOutput(serializers.Serializer):
    node_key = serializers.CharField()
    name = serializers.CharField()
    type = serializers.CharField()
    live = serializers.IntegerField(help_text="Live executions standing at this node now.")
    busy = serializers.IntegerField(help_text="Of them, claimed by a worker now (moved after their step).")
    held = serializers.IntegerField(help_text="Of them, a send in doubt: they stay on the old version.")
    default_choice = serializers.ChoiceField(choices=MigrationChoice.choices)
    default_to = serializers.CharField(allow_null=True)
    text_changed = serializers.BooleanField()
    reaches_text_change = serializers.BooleanField(help_text="Standing at or before a step whose text changed.")


class MigrationTargetOutput(serializers.Serializer):
    node_key = serializers.CharField()
    name = serializers.CharField()
    type = serializers.CharField()


class MigrationPreviewOutput(serializers.Serializer):
    workflow_id = serializers.IntegerField(source="workflow.id")
    from_version_id = serializers.IntegerField(source="from_version.id")
    from_version_number = serializers.IntegerField(source="from_version.version_number")
    to_version_id = serializers.IntegerField(source="to_version.id")
    to_version_number = serializers.IntegerField(source="to_version.version_number")
    campaign_id = serializers.IntegerField(allow_null=True)
    live = serializers.IntegerField()
    text_only = serializers.BooleanField(help_text="Only SMS texts changed: a text fix is possible.")
    text_changed_keys = serializers.ListField(child=serializers.CharField())
    text_fix_count = serializers.IntegerField(help_text="Executions a text fix would move.")
    diff = StepDiffOutput(many=True)
    nodes = MigrationNodeOutput(many=True)
    targets = MigrationTargetOutput(many=True, help_text="Nodes of the new version a choice may move to.")


class MigrationPlanOutput(serializers.Serializer):
    node_key = serializers.CharField()
    choice = serializers.ChoiceField(choices=MigrationChoice.choices)
    to_node_key = serializers.CharField(allow_null=True)


class MigrationResultOutput(serializers.Serializer):
    moved = serializers.IntegerField(required=False)
    exited = serializers.IntegerField(required=False)
    busy = serializers.IntegerField(required=False, help_text="Still claimed by a worker at the last sweep.")
    held = serializers.IntegerField(required=False, help_text="A send in doubt: stayed on the old version.")


class VersionMigrationOutput(serializers.ModelSerializer):
    kind = serializers.ChoiceField(choices=MigrationKind.choices)
    status = serializers.ChoiceField(choices=MigrationStatus.choices)
    plan = MigrationPlanOutput(many=True)
    result = MigrationResultOutput()
    created_by = serializers.CharField(source="created_by.username", allow_null=True, default=None)

    class Meta:
        model = VersionMigration
        fields = [
            "id",
            "workflow_id",
            "from_version_id",
            "to_version_id",
            "campaign_id",
            "kind",
            "plan",
            "recompute_waits",
            "status",
            "total",
            "processed",
            "result",
            "attempts",
            "created_by",
            "created_at",
            "finished_at",
        ]
