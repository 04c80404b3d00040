"""Query filters of the journey API: one FilterSet per listable model (validated; a bad value → 400
VALIDATION_ERROR in the envelope, see ``WorkspaceAPIView.filter_queryset``)."""

import django_filters

from automation.choices import EnrollmentClass, ExecutionStatus, WorkflowStatus
from automation.models import EnrollmentItem, Execution, Workflow
from campaigns.platform.filters import IdFilter


class WorkflowFilter(django_filters.FilterSet):
    status = django_filters.ChoiceFilter(choices=WorkflowStatus.choices)
    category = django_filters.CharFilter(field_name="category", max_length=30)

    class Meta:
        model = Workflow
        fields = ["status", "category"]


class ExecutionFilter(django_filters.FilterSet):
    campaign = IdFilter(field_name="campaign_id")
    status = django_filters.ChoiceFilter(choices=ExecutionStatus.choices)

    class Meta:
        model = Execution
        fields = ["campaign", "status"]


class EnrollmentItemFilter(django_filters.FilterSet):
    """``?class=`` (the review page's tabs) and ``?outcome=``."""

    klass = django_filters.ChoiceFilter(field_name="klass", choices=EnrollmentClass.choices)
    outcome = django_filters.CharFilter(field_name="outcome", max_length=24)

    class Meta:
        model = EnrollmentItem
        fields = ["outcome"]


# The query parameter is ``class`` (a Python keyword, so it cannot be a class attribute).
EnrollmentItemFilter.base_filters["class"] = EnrollmentItemFilter.base_filters.pop("klass")
