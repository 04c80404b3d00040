"""A chain root's audience: one target list, optionally narrowed by the targets page's filters.

The definition lives on the campaign (``source_target_list`` + ``audience_filters``) and in the approved
package's snapshot; runs freeze it from the snapshot (``definition_of``). Filters are the targets page's
``TargetFilter`` (status, province, city, priority, owner, search, created between) minus ``list`` — the list
is the list. The count is the same query a run freezes, over the whole workspace (not the viewer's own
targets only): it is the audience the campaign reaches.
"""

from __future__ import annotations

from datetime import datetime

from django.db.models import QuerySet

from campaigns.chains.node_models import ChainNode
from campaigns.filters import TargetFilter
from campaigns.models import Target, TargetList, TargetListSize
from campaigns.platform.errors import ValidationFailed
from campaigns.platform.jalali import fa_digits
from campaigns.platform.permissions import Perm
from campaigns.platform.tenancy import Actor, scoped
from campaigns.selectors import list_member_count

FILTER_KEYS = ("status", "province", "city", "priority_min", "owner", "q", "created_after", "created_before")
MAX_TEXT = 100

NO_AUDIENCE = "ریشه زنجیره مخاطبی ندارد: یک فهرست مخاطبان برایش انتخاب کنید."
EMPTY_AUDIENCE = "مخاطبان ریشه زنجیره (فهرست «{list}» با فیلترهایش) اکنون ۰ نفرند؛ این زنجیره به کسی نمی‌رسد."


def parse_audience_filters(data) -> dict:
    """Request filters → the stored form (unknown keys, bad values and over-long text are 400 field errors)."""
    if data in (None, ""):
        return {}
    if not isinstance(data, dict):
        raise ValidationFailed.field("audience_filters", "فیلترها باید یک شیء باشند.")
    unknown = sorted(set(data) - set(FILTER_KEYS))
    if unknown:
        raise ValidationFailed.field("audience_filters", f"فیلترهای ناشناخته: {unknown}؛ مجاز: {list(FILTER_KEYS)}.")
    cleaned: dict = {}
    for key in FILTER_KEYS:
        value = data.get(key)
        if key == "status":
            values = value if isinstance(value, list) else ([] if value in (None, "") else [value])
            values = sorted({str(v).strip() for v in values if str(v).strip()})
            if values:
                cleaned[key] = values
            continue
        text = "" if value is None else (value.isoformat() if isinstance(value, datetime) else str(value).strip())
        if len(text) > MAX_TEXT:
            raise ValidationFailed.field(f"audience_filters.{key}", f"حداکثر {MAX_TEXT} نویسه.")
        if text:
            cleaned[key] = text
    form = TargetFilter(data=cleaned, queryset=Target.objects.none()).form
    if not form.is_valid():
        raise ValidationFailed(details={f"audience_filters.{k}": list(v) for k, v in form.errors.items()})
    return cleaned


def target_list_or_400(actor: Actor, list_id: int | None) -> TargetList | None:
    if list_id is None:
        return None
    found = scoped(TargetList, actor.workspace).filter(pk=list_id).first()
    if found is None:  # another workspace's list looks exactly like a missing one
        raise ValidationFailed.field("source_target_list_id", "فهرست مخاطبان پیدا نشد.")
    return found


def audience_queryset(*, workspace_id: int, target_list_id: int | None, filters: dict | None) -> QuerySet:
    """Live targets of the list matching the filters (no list → nobody)."""
    if target_list_id is None:
        return Target.objects.none()
    base = Target.objects.filter(workspace_id=workspace_id, lists=target_list_id, deleted_at=None)
    fs = TargetFilter(data=dict(filters or {}), queryset=base)
    if not fs.is_valid():  # stored filters were validated; a value that no longer parses reaches nobody
        return Target.objects.none()
    return fs.qs.order_by()


def audience_count(
    *, workspace_id: int, target_list_id: int | None, filters: dict | None, cap: int | None = None
) -> int:
    """The audience's size now: a whole list's is the size kept with its writes (``TargetListSize``: its live
    members), a filtered one is counted along the list's members (``list_member_count``: the list's index and
    one probe per member, not a scan of every target). ``cap`` stops a counted one at ``cap + 1``."""
    if target_list_id is None:
        return 0
    if not filters:
        kept = TargetListSize.objects.filter(target_list_id=target_list_id, workspace_id=workspace_id)
        return kept.values_list("members", flat=True).first() or 0
    fs = TargetFilter(data=dict(filters), queryset=Target.objects.filter(workspace_id=workspace_id, deleted_at=None))
    if not fs.is_valid():  # as audience_queryset: a stored value that no longer parses reaches nobody
        return 0
    return list_member_count(fs.qs.order_by(), list_id=target_list_id, cap=cap)


def audience_reaches_nobody(*, workspace_id: int, target_list_id: int | None, filters: dict | None) -> bool:
    """No live target of the list passes the filters (the first match ends the look, nothing is counted)."""
    return not audience_queryset(workspace_id=workspace_id, target_list_id=target_list_id, filters=filters).exists()


def definition_of(campaign: ChainNode) -> tuple[int | None, dict]:
    """(list id, filters) from the approved package's snapshot when there is one, else the campaign's own."""
    list_id, filters = campaign.source_target_list_id, campaign.audience_filters or {}
    package = campaign.approval_package if campaign.approval_package_id else None
    for item in (package.items if package is not None else None) or []:
        if item.get("campaign_id") == campaign.id and "audience_filters" in item:
            list_id, filters = item.get("source_target_list_id"), item.get("audience_filters") or {}
    if list_id is not None and not TargetList.objects.filter(pk=list_id, workspace_id=campaign.workspace_id).exists():
        list_id = None  # the list was deleted since
    return list_id, filters


def audience_problems(root: ChainNode, *, use_snapshot: bool = False) -> list[dict]:
    """Blocking problems of a root's audience: none chosen, or it counts 0 now (review reasons' shape)."""
    list_id, filters = definition_of(root) if use_snapshot else (root.source_target_list_id, root.audience_filters)
    if list_id is None:
        return [_problem("AUDIENCE_MISSING", NO_AUDIENCE)]
    if audience_reaches_nobody(workspace_id=root.workspace_id, target_list_id=list_id, filters=filters):
        name = TargetList.objects.filter(pk=list_id).values_list("name", flat=True).first() or ""
        return [_problem("AUDIENCE_EMPTY", EMPTY_AUDIENCE.format(list=name))]
    return []


def _problem(code: str, message: str) -> dict:
    return {
        "code": code,
        "message": message,
        "fields": ["source_target_list_id", "audience_filters"],
        "source_campaign_id": None,
    }


def reach_message(count: int, *, more: bool = False) -> str:
    """«این کمپین به ۱٬۲۴۰ نفر می‌رسد» (Persian digits, Persian thousands separator); ``more``: a capped count,
    «به بیش از ۱۰٬۰۰۰ نفر»."""
    if count == 0:
        return "این کمپین با این فهرست و فیلترها به هیچ‌کس نمی‌رسد (۰ نفر)."
    return f"این کمپین به {'بیش از ' if more else ''}{fa_digits(f'{count:,}'.replace(',', '٬'))} نفر می‌رسد"


def audience_preview(
    *, actor: Actor, source_target_list_id: int | None, audience_filters: dict | None = None, cap: int | None = None
) -> dict:
    """The live count of a root audience before saving it (what a run would freeze now). ``cap`` (the page's
    live count: ``COUNT_CAP``) stops a filtered count there: ``count`` is then ``cap`` and ``more`` true."""
    actor.require(Perm.MANAGE_CAMPAIGNS)
    target_list = target_list_or_400(actor, source_target_list_id)
    filters = parse_audience_filters(audience_filters)
    count = audience_count(
        workspace_id=actor.workspace.id,
        target_list_id=target_list.id if target_list else None,
        filters=filters,
        cap=cap,
    )
    more = cap is not None and count > cap
    count = min(count, cap) if more else count
    return {"count": count, "more": more, "message": reach_message(count, more=more)}
