"""One FilterSet per listable model of groups, chains and runs.

A value that does not parse (``period_key=x``, ``status=NOPE``, ``group=abc``) is a 400 VALIDATION_ERROR
naming the parameter (``WorkspaceAPIView.filter_queryset``); an empty value means "no filter".
"""

import django_filters

from campaigns.chains.models import CampaignGroup
from campaigns.chains.run_models import CampaignRun, ConversionEvent
from campaigns.chains.runs.choices import RunStatus, RunType
from campaigns.chains.text import search_text
from campaigns.platform.filters import IdFilter


class CampaignGroupFilter(django_filters.FilterSet):
    query = django_filters.CharFilter(method="search", label="name contains (accent-insensitive, literal)")

    class Meta:
        model = CampaignGroup
        fields = ["query"]

    def search(self, queryset, name, value):
        text = search_text(value)
        # ``contains`` escapes % and _ : the input is always a literal, never a pattern.
        return queryset.filter(name_search__contains=text) if text else queryset


class CampaignRunFilter(django_filters.FilterSet):
    campaign_id = IdFilter(field_name="campaign_id")
    period_key = IdFilter(field_name="period_key", label="the root run's id")
    status = django_filters.ChoiceFilter(choices=RunStatus.choices)
    run_type = django_filters.ChoiceFilter(choices=RunType.choices)

    class Meta:
        model = CampaignRun
        fields = ["campaign_id", "period_key", "status", "run_type"]


class ConversionEventFilter(django_filters.FilterSet):
    target_id = IdFilter(field_name="target_id")
    name = django_filters.CharFilter(field_name="name", max_length=100)

    class Meta:
        model = ConversionEvent
        fields = ["target_id", "name"]
