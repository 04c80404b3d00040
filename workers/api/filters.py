"""Query filters of the browser API: one FilterSet per listable model (validated; a bad value → 400
VALIDATION_ERROR in the envelope, see ``WorkspaceAPIView.filter_queryset``)."""

import django_filters

from campaigns.platform.filters import IdFilter, StrictBooleanFilter
from workers.choices import ActionType, ErrorCode, PlatformStatus, SessionStatus, TaskStatus
from workers.models import ActionConfig, BrowserAccount, BrowserTask, CampaignPlatform, Proxy


class TaskFilter(django_filters.FilterSet):
    campaign = IdFilter(field_name="campaign_id")
    platform = IdFilter(field_name="platform_id")
    account = IdFilter(field_name="account_id")
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
    is_available = StrictBooleanFilter()

    class Meta:
        model = Proxy
        fields = ["is_available"]


class ActionConfigFilter(django_filters.FilterSet):
    platform = django_filters.CharFilter()
    action_type = django_filters.ChoiceFilter(choices=ActionType.choices)

    class Meta:
        model = ActionConfig
        fields = ["platform", "action_type"]


class PlatformFilter(django_filters.FilterSet):
    campaign = IdFilter(field_name="campaign_id")
    platform = django_filters.CharFilter()
    status = django_filters.ChoiceFilter(choices=PlatformStatus.choices)

    class Meta:
        model = CampaignPlatform
        fields = ["campaign", "platform", "status"]
