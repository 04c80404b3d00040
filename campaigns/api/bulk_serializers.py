"""``POST /api/v1/targets/bulk``: the rows in, one result per row out."""

from rest_framework import serializers

from campaigns.api.serializers import _validate_attributes
from campaigns.choices import TargetStatus
from campaigns.platform.api.fields import BodyInput, IdField, ObjectField
from campaigns.platform.errors import ValidationFailed
from campaigns.platform.text import StrictCharField, VisibleNameField
from campaigns.services.target_bulk import MAX_ROWS, OUTCOMES


class TargetBulkRowInput(BodyInput):
    """One target. At least one number, in `mobile` or `landline` (either field takes either kind: each number
    is classified by what it is, as the import does). Without `name`: first + last name, else the number."""

    name = VisibleNameField(max_length=200, required=False)
    first_name = StrictCharField(max_length=100, required=False, allow_blank=True)
    last_name = StrictCharField(max_length=100, required=False, allow_blank=True)
    mobile = StrictCharField(max_length=40, required=False, allow_blank=True, allow_null=True)
    landline = StrictCharField(max_length=40, required=False, allow_blank=True, allow_null=True)
    status = serializers.ChoiceField(choices=TargetStatus.choices, required=False)
    province = StrictCharField(max_length=80, required=False, allow_blank=True)
    city = StrictCharField(max_length=80, required=False, allow_blank=True)
    priority = serializers.IntegerField(required=False, min_value=-1000, max_value=1000)
    attributes = ObjectField(required=False, validators=[_validate_attributes])


class PerRowList(serializers.ListField):
    """Each row validated on its own: a bad row becomes its own ``invalid`` result, not a 400 for the call."""

    def run_child_validation(self, data):
        rows = []
        for item in data:
            try:
                rows.append(self.child.run_validation(item))
            except serializers.ValidationError as exc:
                rows.append(ValidationFailed(details=exc.detail))
        return rows


class TargetBulkInput(BodyInput):
    rows = PerRowList(child=TargetBulkRowInput(), min_length=1, max_length=MAX_ROWS)
    list_ids = serializers.ListField(child=IdField(), required=False, max_length=100, default=list)


class TargetBulkRowOutput(serializers.Serializer):
    index = serializers.IntegerField(help_text="The row's position in `rows` (from 0).")
    outcome = serializers.ChoiceField(choices=OUTCOMES)
    id = serializers.IntegerField(allow_null=True, help_text="The target created, updated or matched.")
    errors = serializers.DictField(
        child=serializers.ListField(child=serializers.CharField()), help_text="Field errors of the row."
    )


class TargetBulkOutput(serializers.Serializer):
    created = serializers.IntegerField()
    updated = serializers.IntegerField()
    unchanged = serializers.IntegerField()
    duplicate = serializers.IntegerField()
    invalid = serializers.IntegerField()
    results = TargetBulkRowOutput(many=True)
