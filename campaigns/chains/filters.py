"""One FilterSet per listable model of groups, chains and runs.

A value that does not parse (``period_key=x``, ``status=NOPE``, ``group=abc``) is a 400 VALIDATION_ERROR
naming the parameter (``WorkspaceAPIView.filter_queryset``); an empty value means "no filter".
"""

import django_filters
from django import forms
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema_field

from campaigns.chains.models import CampaignGroup
from campaigns.chains.run_models import CampaignRun, ConversionEvent
from campaigns.chains.runs.choices import RunStatus, RunType
from campaigns.chains.text import search_text
from campaigns.platform.filters import IdFilter
from campaigns.platform.text import typed_int


class GroupField(forms.CharField):
    def clean(self, value):
        text = (super().clean(value) or "").strip().upper()
        if text in ("", "ALL", "NONE") or typed_int(text) is not None:
            return text
        raise forms.ValidationError("گروه باید ALL، NONE یا شناسه یک گروه باشد.")


@extend_schema_field(OpenApiTypes.STR)
class GroupFilter(django_filters.Filter):
    """The campaign list by group, registered as ``group`` on the core's ``CampaignFilter``: ``ALL`` (no
    filter), ``NONE`` (not in a group) or a group id."""

    field_class = GroupField

    def filter(self, qs, value):
        if value in ("", "ALL", None):
            return qs
        if value == "NONE":
            return qs.filter(chain__group__isnull=True)  # an outer join: a campaign without a chains row is in none
        # The queryset is already workspace-scoped: another workspace's group id simply matches nothing.
        return qs.filter(chain__group_id=int(value))


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
