"""One FilterSet per listable model, shared by the API, the pages and exports."""

import django_filters
from django import forms
from django.db.models import Q
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema_field

from campaigns.choices import CampaignStatus, ImportOutcome, TargetStatus
from campaigns.models import Campaign, Target, TargetImportRow, TargetList
from campaigns.platform.channels import campaign_kind_choices
from campaigns.platform.filters import IdFilter, IsoDateTimeFilter
from campaigns.platform.phones import PhoneError, parse_phone
from campaigns.platform.search import search_digits

_DIGITS = str.maketrans("۰۱۲۳۴۵۶۷۸۹٠١٢٣٤٥٦٧٨٩", "01234567890123456789")


class TargetFilter(django_filters.FilterSet):
    q = django_filters.CharFilter(method="search", label="جستجو")
    status = django_filters.MultipleChoiceFilter(choices=TargetStatus.choices, label="وضعیت")
    list = IdFilter(field_name="lists", method="in_list", label="فهرست")
    province = django_filters.CharFilter(lookup_expr="iexact", label="استان")
    city = django_filters.CharFilter(lookup_expr="iexact", label="شهر")
    priority_min = django_filters.NumberFilter(
        field_name="priority", lookup_expr="gte", label="اولویت دست‌کم", min_value=-(2**31), max_value=2**31 - 1
    )
    owner = IdFilter(field_name="owner_id", label="مسئول")
    created_after = IsoDateTimeFilter(field_name="created_at", lookup_expr="gte", label="ایجاد از")
    created_before = IsoDateTimeFilter(field_name="created_at", lookup_expr="lt", label="ایجاد تا")

    class Meta:
        model = Target
        fields = [
            "q",
            "status",
            "list",
            "province",
            "city",
            "priority_min",
            "owner",
            "created_after",
            "created_before",
        ]

    def in_list(self, queryset, name, value):
        """Members of one list, newest first by id (the order they were created in): pagers walk the list's
        (list, target) index in that order (``campaigns.selectors.ListMembers``)."""
        return queryset.filter(lists=value).order_by("-id")

    def search(self, queryset, name, value):
        text = value.strip()
        if not text:
            return queryset
        # One folded column (names, then numbers as digits) with a trigram index on PostgreSQL.
        condition = Q(search_text__contains=search_digits(text))
        digits = "".join(ch for ch in text.translate(_DIGITS) if ch.isdigit())
        try:
            e164 = parse_phone(text).e164
            condition |= Q(mobile=e164) | Q(landline=e164)
        except PhoneError:
            if len(digits) >= 4:
                condition |= Q(search_text__contains=digits.lstrip("0"))  # 0912… is stored as 98912…
        return queryset.filter(condition)


class GroupField(forms.CharField):
    def clean(self, value):
        text = (super().clean(value) or "").strip().upper()
        if text in ("", "ALL", "NONE") or text.isdigit():
            return text
        raise forms.ValidationError("گروه باید ALL، NONE یا شناسه یک گروه باشد.")


@extend_schema_field(OpenApiTypes.STR)
class GroupFilter(django_filters.Filter):
    """Campaigns by group: ``ALL`` (no filter), ``NONE`` (not in a group) or a group id."""

    field_class = GroupField

    def filter(self, qs, value):
        if value in ("", "ALL", None):
            return qs
        if value == "NONE":
            return qs.filter(group__isnull=True)
        # The queryset is already workspace-scoped: another workspace's group id simply matches nothing.
        return qs.filter(group_id=int(value))


class CampaignFilter(django_filters.FilterSet):
    q = django_filters.CharFilter(field_name="name", lookup_expr="icontains", label="جستجو")
    kind = django_filters.ChoiceFilter(choices=campaign_kind_choices, label="نوع")
    status = django_filters.MultipleChoiceFilter(choices=CampaignStatus.choices, label="وضعیت")
    group = GroupFilter(label="گروه")  # ALL | NONE | <id>

    class Meta:
        model = Campaign
        fields = ["q", "kind", "status", "group"]


class TargetListFilter(django_filters.FilterSet):
    q = django_filters.CharFilter(field_name="name", lookup_expr="icontains", label="جستجو")

    class Meta:
        model = TargetList
        fields = ["q"]


class TargetImportRowFilter(django_filters.FilterSet):
    outcome = django_filters.ChoiceFilter(choices=ImportOutcome.choices, label="نتیجه")

    class Meta:
        model = TargetImportRow
        fields = ["outcome"]
