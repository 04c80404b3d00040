"""Query filters of the SMS API: one FilterSet per listable model (a bad value → 400 VALIDATION_ERROR).

The number rule (a full number in any notation matches exactly, a digit fragment anywhere) is the one the
pages use (``sms.selectors``)."""

import django_filters

from campaigns.platform.filters import IdFilter, IsoDateTimeFilter, StrictBooleanFilter
from sms.choices import AttemptStatus
from sms.models import BlacklistEntry, SmsAttempt
from sms.selectors import blacklist_search, number_filter


class SmsAttemptFilter(django_filters.FilterSet):
    status = django_filters.ChoiceFilter(choices=AttemptStatus.choices)
    campaign = IdFilter(field_name="campaign_id")
    number = django_filters.CharFilter(method="filter_number", max_length=40)
    since = IsoDateTimeFilter(field_name="request_at", lookup_expr="gte")
    until = IsoDateTimeFilter(field_name="request_at", lookup_expr="lt")

    class Meta:
        model = SmsAttempt
        fields = ["status", "campaign", "number", "since", "until"]

    def filter_number(self, queryset, name, value):
        return number_filter(queryset, "phone", value)


class BlacklistFilter(django_filters.FilterSet):
    q = django_filters.CharFilter(method="filter_q", max_length=100)
    active = StrictBooleanFilter(field_name="is_active")

    class Meta:
        model = BlacklistEntry
        fields = ["q", "active"]

    def filter_q(self, queryset, name, value):
        return blacklist_search(queryset, value)
