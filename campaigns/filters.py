"""One FilterSet per listable model, shared by the API, the pages and exports."""

import django_filters
from django.db.models import Q

from campaigns.choices import CampaignStatus, ImportOutcome, TargetStatus
from campaigns.models import Campaign, Target, TargetImportRow, TargetList
from campaigns.platform.channels import campaign_kind_choices
from campaigns.platform.filters import IdFilter, IsoDateTimeFilter
from campaigns.platform.models import WebhookDelivery, WebhookDeliveryStatus
from campaigns.platform.phones import PhoneError, parse_phone
from campaigns.platform.search import search_digits
from campaigns.platform.webhooks import WEBHOOK_EVENTS
from campaigns.platform.widgets import NumberInput

_DIGITS = str.maketrans("۰۱۲۳۴۵۶۷۸۹٠١٢٣٤٥٦٧٨٩", "01234567890123456789")


class TargetFilter(django_filters.FilterSet):
    q = django_filters.CharFilter(method="search", label="جستجو")
    status = django_filters.MultipleChoiceFilter(choices=TargetStatus.choices, label="وضعیت")
    list = IdFilter(field_name="lists", method="in_list", label="فهرست")
    province = django_filters.CharFilter(lookup_expr="iexact", label="استان")
    city = django_filters.CharFilter(lookup_expr="iexact", label="شهر")
    priority_min = django_filters.NumberFilter(
        field_name="priority",
        lookup_expr="gte",
        label="اولویت دست‌کم",
        min_value=-(2**31),
        max_value=2**31 - 1,
        widget=NumberInput(attrs={"inputmode": "text"}),  # Persian digits kept as typed; a minus sign too
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


class CampaignFilter(django_filters.FilterSet):
    q = django_filters.CharFilter(field_name="name", lookup_expr="icontains", label="جستجو")
    kind = django_filters.ChoiceFilter(choices=campaign_kind_choices, label="نوع")
    status = django_filters.MultipleChoiceFilter(choices=CampaignStatus.choices, label="وضعیت")

    class Meta:
        model = Campaign
        fields = ["q", "kind", "status"]  # + the filters other apps register (chains: ``group``)


def register_campaign_filter(name: str, campaign_filter: django_filters.Filter) -> None:
    """Another app's filter of the campaign list (``GET /api/v1/campaigns?<name>=``), from its ``ready()``:
    the core filters no column it does not own."""
    from django.apps import apps

    if apps.ready or name in CampaignFilter.base_filters:
        raise ValueError(f"campaign filter {name!r}: registered after start-up or taken")
    campaign_filter.field_name = campaign_filter.field_name or name
    CampaignFilter.base_filters[name] = campaign_filter


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


def _webhook_event_choices() -> list[tuple[str, str]]:
    return [(name, label) for name, label in WEBHOOK_EVENTS]


class WebhookDeliveryFilter(django_filters.FilterSet):
    """An endpoint's delivery log (its page and ``GET /api/v1/webhooks/{id}/deliveries``): by status, by event."""

    status = django_filters.ChoiceFilter(choices=WebhookDeliveryStatus.choices, label="وضعیت")
    event_type = django_filters.ChoiceFilter(choices=_webhook_event_choices, label="رویداد")

    class Meta:
        model = WebhookDelivery
        fields = ["status", "event_type"]
