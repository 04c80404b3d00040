"""Input and output serializers (snake_case everywhere)."""

from rest_framework import serializers

from campaigns.choices import CampaignStatus, ImportOutcome, ImportStatus, Role, TargetStatus
from campaigns.models import Campaign, Target, TargetImport, TargetImportRow, TargetList
from campaigns.platform.api.fields import BodyInput, IdField, ObjectField
from campaigns.platform.channels import CampaignKindChoices
from campaigns.platform.phones import display_phone
from campaigns.platform.text import (
    TARGET_ATTRIBUTES_MAX_BYTES,
    TARGET_ATTRIBUTES_MAX_KEY_LENGTH,
    TARGET_ATTRIBUTES_MAX_KEYS,
    StrictCharField,
    VisibleNameField,
    validate_json_document,
)


class TargetOutput(serializers.ModelSerializer):
    mobile_display = serializers.SerializerMethodField()
    landline_display = serializers.SerializerMethodField()
    status_display = serializers.CharField(source="get_status_display", read_only=True)
    list_ids = serializers.SerializerMethodField()

    class Meta:
        model = Target
        fields = [
            "id",
            "name",
            "first_name",
            "last_name",
            "mobile",
            "mobile_display",
            "landline",
            "landline_display",
            "status",
            "status_display",
            "owner_id",
            "province",
            "city",
            "priority",
            "list_ids",
            "attributes",
            "revision",
            "created_at",
            "updated_at",
        ]

    def get_mobile_display(self, obj) -> str:
        return display_phone(obj.mobile)

    def get_landline_display(self, obj) -> str:
        return display_phone(obj.landline)

    def get_list_ids(self, obj) -> list[int]:
        return sorted(tl.id for tl in obj.lists.all())


def _validate_attributes(value) -> None:
    # Free-form per-target data: bounded so one target cannot weigh megabytes in every list page.
    validate_json_document(
        value,
        max_keys=TARGET_ATTRIBUTES_MAX_KEYS,
        max_key_length=TARGET_ATTRIBUTES_MAX_KEY_LENGTH,
        max_bytes=TARGET_ATTRIBUTES_MAX_BYTES,
    )


class TargetInput(BodyInput):
    """A target: `name` and at least one of `mobile` or `landline` (a 400 VALIDATION_ERROR otherwise)."""

    name = VisibleNameField(max_length=200)
    first_name = StrictCharField(max_length=100, required=False, allow_blank=True)
    last_name = StrictCharField(max_length=100, required=False, allow_blank=True)
    mobile = StrictCharField(max_length=40, required=False, allow_blank=True, allow_null=True)
    landline = StrictCharField(max_length=40, required=False, allow_blank=True, allow_null=True)
    status = serializers.ChoiceField(choices=TargetStatus.choices, required=False)
    owner_id = IdField(required=False, allow_null=True)
    province = StrictCharField(max_length=80, required=False, allow_blank=True)
    city = StrictCharField(max_length=80, required=False, allow_blank=True)
    priority = serializers.IntegerField(required=False, min_value=-1000, max_value=1000)
    list_ids = serializers.ListField(child=IdField(), required=False, max_length=100)
    attributes = ObjectField(required=False, validators=[_validate_attributes])


class TargetListOutput(serializers.ModelSerializer):
    target_count = serializers.IntegerField(read_only=True, default=0)

    class Meta:
        model = TargetList
        fields = ["id", "name", "description", "target_count", "created_at", "updated_at"]


class TargetListInput(BodyInput):
    name = VisibleNameField(max_length=120)
    description = StrictCharField(max_length=500, required=False, allow_blank=True)


class TargetImportInput(BodyInput):
    file = serializers.FileField()
    list_id = IdField(required=False, allow_null=True)
    update_existing = serializers.BooleanField(required=False, default=True)


class TargetImportOutput(serializers.ModelSerializer):
    status = serializers.ChoiceField(choices=ImportStatus.choices)
    progress_percent = serializers.IntegerField(read_only=True)

    class Meta:
        model = TargetImport
        fields = [
            "id",
            "file_name",
            "status",
            "total_rows",
            "processed_rows",
            "progress_percent",
            "created_count",
            "updated_count",
            "duplicate_count",
            "invalid_count",
            "target_list_id",
            "update_existing",
            "error",
            "created_at",
            "finished_at",
        ]


class TargetImportRowOutput(serializers.ModelSerializer):
    outcome = serializers.ChoiceField(choices=ImportOutcome.choices)

    class Meta:
        model = TargetImportRow
        fields = ["row_number", "outcome", "reason", "target_id"]


class CampaignOutput(serializers.ModelSerializer):
    kind = serializers.ChoiceField(choices=CampaignKindChoices())
    status = serializers.ChoiceField(choices=CampaignStatus.choices)
    status_display = serializers.CharField(source="get_status_display", read_only=True)

    class Meta:
        model = Campaign
        fields = [
            "id",
            "name",
            "description",
            "kind",
            "status",
            "status_display",
            "revision",
            "created_by_id",
            "created_at",
            "updated_at",
        ]


class CampaignApproveInput(BodyInput):
    expected_revision = serializers.IntegerField(min_value=1, required=False)


class CampaignRejectInput(CampaignApproveInput):
    reason = StrictCharField(max_length=1000, required=False, allow_blank=True)


class MembershipOutput(serializers.Serializer):
    workspace_id = serializers.IntegerField()
    workspace_slug = serializers.CharField(source="workspace.slug")
    workspace_name = serializers.CharField(source="workspace.name")
    time_zone = serializers.CharField(source="workspace.time_zone")
    role = serializers.ChoiceField(choices=Role.choices)
    is_default = serializers.BooleanField()
    permissions = serializers.SerializerMethodField()

    def get_permissions(self, obj) -> list[str]:
        from campaigns.platform.permissions import ROLE_PERMISSIONS

        return sorted(ROLE_PERMISSIONS.get(obj.role, ()))


class MeOutput(serializers.Serializer):
    id = serializers.IntegerField()
    username = serializers.CharField()
    current_workspace_id = serializers.IntegerField()
    memberships = MembershipOutput(many=True)
