"""Query filters of the browser API (validated; bad values → 400 envelope)."""

import django_filters

from workers.choices import ActionType, ErrorCode, SessionStatus, TaskStatus
from workers.models import BrowserAccount, BrowserTask, Proxy


class TaskFilter(django_filters.FilterSet):
    campaign = django_filters.NumberFilter(field_name="campaign_id")
    platform = django_filters.NumberFilter(field_name="platform_id")
    account = django_filters.NumberFilter(field_name="account_id")
    status = django_filters.ChoiceFilter(choices=TaskStatus.choices)
    error_code = django_filters.ChoiceFilter(choices=ErrorCode.choices)
    action_type = django_filters.ChoiceFilter(choices=ActionType.choices)

    class Meta:
        model = BrowserTask
        fields = ["campaign", "platform", "account", "status", "error_code", "action_type"]


class AccountFilter(django_filters.FilterSet):
    platform = django_filters.CharFilter()
    session_status = django_filters.ChoiceFilter(choices=SessionStatus.choices)

    class Meta:
        model = BrowserAccount
        fields = ["platform", "session_status"]


class ProxyFilter(django_filters.FilterSet):
    is_available = django_filters.BooleanFilter()

    class Meta:
        model = Proxy
        fields = ["is_available"]
