"""Campaign list filter by group: ``group=ALL`` (no filter), ``NONE`` (not in a group) or a group id."""

from django.db.models import QuerySet

from campaigns.platform.errors import ValidationFailed


def filter_by_group(queryset: QuerySet, value: str | None) -> QuerySet:
    text = (value or "").strip().upper()
    if text in ("", "ALL"):
        return queryset
    if text == "NONE":
        return queryset.filter(group__isnull=True)
    if not text.isdigit():
        raise ValidationFailed.field("group", "گروه باید ALL، NONE یا شناسه یک گروه باشد.")
    # The queryset is already workspace-scoped: another workspace's group id simply matches nothing.
    return queryset.filter(group_id=int(text))
