"""FilterSets of the notification and activity lists (API and pages)."""

import django_filters

from campaigns.notifications.models import Activity, ActivityStatus, Notification
from campaigns.platform.filters import IdFilter, IsoDateTimeFilter


class NotificationFilter(django_filters.FilterSet):
    unread = django_filters.BooleanFilter(field_name="read_at", lookup_expr="isnull", label="خوانده نشده")

    class Meta:
        model = Notification
        fields = ["unread"]


class ActivityFilter(django_filters.FilterSet):
    mine = django_filters.BooleanFilter(method="filter_mine", label="فقط پیگیری‌های من")
    status = django_filters.ChoiceFilter(choices=ActivityStatus.choices, label="وضعیت")
    target = IdFilter(field_name="target_id", label="مخاطب")
    assignee = IdFilter(field_name="assignee_id", label="مسئول")
    due_before = IsoDateTimeFilter(field_name="due_at", lookup_expr="lt", label="موعد تا")

    class Meta:
        model = Activity
        fields = ["mine", "status", "target", "assignee", "due_before"]

    def filter_mine(self, queryset, name, value):
        if value:
            return queryset.filter(assignee_id=self.request.user.pk)
        return queryset
