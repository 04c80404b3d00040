"""Reads. Every query starts from ``tenancy.scoped`` (never ``Model.objects``)."""

from collections.abc import Iterator
from dataclasses import dataclass

from django.db import connection
from django.db.models import Count, Q, QuerySet
from django.db.models.functions import Coalesce

from campaigns.approval_selectors import approver_ids, four_eyes, workspace_needs_approval
from campaigns.calendar import workspace_calendar
from campaigns.choices import CampaignStatus
from campaigns.models import Campaign, Target, TargetImport, TargetImportRow, TargetList, WorkspaceSettingsEvent
from campaigns.platform.database import is_postgresql
from campaigns.platform.pagination import COUNT_CAP
from campaigns.platform.permissions import Perm
from campaigns.platform.registry import target_list_user_campaign_ids
from campaigns.platform.tenancy import Actor, get_scoped, scoped

# A finished or cancelled campaign takes no more audience from its list.
CAMPAIGN_DONE = (CampaignStatus.COMPLETED, CampaignStatus.CANCELLED)


def target_queryset(*, actor: Actor) -> QuerySet:
    """Targets this actor may see (operators: only their own)."""
    qs = scoped(Target, actor.workspace).select_related("owner").prefetch_related("lists")
    if actor.has(Perm.OWN_TARGETS_ONLY):
        qs = qs.filter(owner=actor.user)
    return qs


class ListMembers:
    """The targets of a filtered queryset that are members of one list, newest (highest id) first, for a pager.

    PostgreSQL plans "members of a list, newest first" as a walk of every target newer than the list's newest
    members (it assumes members are spread evenly; an old list sits at the far end). This reads the list's
    members instead — its (list, target) index backwards — and checks each against the filters with a probe
    (``EXISTS … OFFSET 0`` keeps the probe a per-member check), so a page costs its rows and a count stops at the
    pager's cap whatever the workspace's size. ``len()`` is that capped count; a slice is one page of targets.
    """

    def __init__(self, queryset: QuerySet, *, list_id: int, cap: int = COUNT_CAP) -> None:
        self.queryset = queryset.order_by("-id")
        inner, params = queryset.order_by().values("pk").query.sql_with_params()
        members = Target.lists.through._meta.db_table
        # Members below an id (every member: the largest bigint), newest first.
        self._sql = (
            f"SELECT m.target_id FROM {members} m WHERE m.targetlist_id = %s AND m.target_id < %s "  # noqa: S608
            f"AND EXISTS (SELECT 1 FROM ({inner}) AS f (id) WHERE f.id = m.target_id OFFSET 0) "
            "ORDER BY m.target_id DESC"
        )
        self._params = params
        self._list_id = list_id
        self.cap = cap

    def _args(self, below: int = 2**63 - 1) -> list:
        return [self._list_id, below, *self._params]

    def _ids(self, limit: int, offset: int = 0) -> list[int]:
        with connection.cursor() as cursor:
            cursor.execute(f"{self._sql} LIMIT %s OFFSET %s", [*self._args(), limit, offset])
            return [row[0] for row in cursor.fetchall()]

    def id_chunks(self, size: int) -> Iterator[list[int]]:
        """Every member id that passes the filters, newest first, ``size`` at a time (keyset: each chunk starts
        below the last id of the one before, so the walk costs the list once, not once per chunk)."""
        below = 2**63 - 1
        while True:
            with connection.cursor() as cursor:
                cursor.execute(f"{self._sql} LIMIT %s", [*self._args(below), size])
                ids = [row[0] for row in cursor.fetchall()]
            if ids:
                yield ids
            if len(ids) < size:
                return
            below = ids[-1]

    def __len__(self) -> int:
        with connection.cursor() as cursor:
            sql = f"SELECT count(*) FROM ({self._sql} LIMIT %s) capped"  # noqa: S608 - the statement above
            cursor.execute(sql, [*self._args(), self.cap + 1])
            return cursor.fetchone()[0]

    def __getitem__(self, page: slice) -> list[Target]:
        start, stop = page.start or 0, page.stop
        ids = self._ids(stop - start, start)
        rows = {t.id: t for t in self.queryset.filter(pk__in=ids)}
        return [rows[i] for i in ids if i in rows]


def list_member_count(queryset: QuerySet, *, list_id: int, cap: int | None = None) -> int:
    """How many members of one list pass the filters of ``queryset`` (targets, the list not among its filters).

    Read along the list's ``(list, target)`` index with one primary-key probe per member (``ListMembers``): the
    planner's own plan for "members of a list with this status" scans every target of the workspace and hashes
    it against the list (a million targets: 500–800 ms for a 20,000-member list, against 45 ms for the walk).
    It reads the list, not the table. ``cap`` stops the count at ``cap + 1`` (said «بیش از …» by the caller);
    ``None`` counts every member."""
    if not is_postgresql(connection):
        matching = queryset.filter(lists=list_id).order_by().values("pk").distinct()
        return matching.count() if cap is None else matching[: cap + 1].count()
    return len(ListMembers(queryset, list_id=list_id, cap=2**62 if cap is None else cap))


def target_page_rows(queryset: QuerySet, *, list_id: int | None):
    """What a pager of targets reads: the queryset, or (PostgreSQL, filtered by a list) a walk of its members."""
    if list_id is None or not is_postgresql(connection):
        return queryset
    return ListMembers(queryset, list_id=list_id)


def target_get(*, actor: Actor, target_id: int) -> Target:
    return get_scoped(Target, actor.workspace, target_id, queryset=target_queryset(actor=actor))


def target_list_queryset(*, actor: Actor) -> QuerySet:
    """Lists with ``target_count``: the live targets of the list this actor may see. Roles that see every
    target read the size kept with the writes (``TargetListSize``); operators count their own targets."""
    qs = scoped(TargetList, actor.workspace).order_by("name", "id")
    if actor.has(Perm.OWN_TARGETS_ONLY):
        counted = Q(targets__deleted_at__isnull=True, targets__owner=actor.user)
        return qs.annotate(target_count=Count("targets", filter=counted, distinct=True))
    return qs.annotate(target_count=Coalesce("size__members", 0))


def target_list_get(*, actor: Actor, list_id: int) -> TargetList:
    return get_scoped(TargetList, actor.workspace, list_id, queryset=target_list_queryset(actor=actor))


def target_list_campaigns(*, workspace, list_id: int) -> list[Campaign]:
    """Open campaigns (not completed or cancelled) whose audience is built on the list: its source list
    (a journey campaign, a chain root) or what another app registered (an auto-enroll rule's filter)."""
    registered = target_list_user_campaign_ids(workspace=workspace, list_id=list_id)
    return list(
        scoped(Campaign, workspace)
        .filter(Q(source_target_list_id=list_id) | Q(pk__in=registered))
        .exclude(status__in=CAMPAIGN_DONE)
        .only("id", "name")
        .order_by("id")
    )


def campaign_queryset(*, actor: Actor) -> QuerySet:
    return scoped(Campaign, actor.workspace).select_related("created_by")


def campaign_get(*, actor: Actor, campaign_id: int) -> Campaign:
    return get_scoped(Campaign, actor.workspace, campaign_id, queryset=campaign_queryset(actor=actor))


def target_import_get(*, actor: Actor, import_id: int) -> TargetImport:
    return get_scoped(TargetImport, actor.workspace, import_id, queryset=scoped_imports(actor=actor))


def target_import_rows(*, actor: Actor, import_id: int, outcome: str | None = None) -> QuerySet:
    """Report rows of one import; an operator sees only rows without a target or with one they own."""
    target_import = target_import_get(actor=actor, import_id=import_id)
    qs = scoped(TargetImportRow, actor.workspace).filter(target_import=target_import)
    if actor.has(Perm.OWN_TARGETS_ONLY):
        qs = qs.filter(Q(target__isnull=True) | Q(target__owner=actor.user))
    return qs.filter(outcome=outcome) if outcome else qs


HOME_COUNT_CAP = 100_000  # the home page counts targets up to this (an index range), then says «بیش از …»


def dashboard_counts(*, actor: Actor) -> dict[str, int]:
    from campaigns.platform.registry import dashboard_counts as registered_counts

    targets = target_queryset(actor=actor).order_by().values("pk")[: HOME_COUNT_CAP + 1].count()
    return {
        "targets": min(targets, HOME_COUNT_CAP),
        "targets_more": targets > HOME_COUNT_CAP,
        "campaigns": scoped(Campaign, actor.workspace).count(),
        "workflows": 0,  # shown even without the engine
        **registered_counts(workspace=actor.workspace),
    }


def scoped_imports(*, actor: Actor) -> QuerySet:
    """Imports this actor may see (operators: only their own uploads)."""
    qs = scoped(TargetImport, actor.workspace).defer("content")
    if actor.has(Perm.OWN_TARGETS_ONLY):
        qs = qs.filter(created_by=actor.user)
    return qs


def target_number_clashes(*, workspace, mobile: str | None, landline: str | None, exclude_id: int | None) -> dict:
    """{field: existing target} for numbers already used by another live target of the workspace."""
    clashes = {}
    for field, value in (("mobile", mobile), ("landline", landline)):
        if not value:
            continue
        qs = scoped(Target, workspace).filter(**{field: value})
        if exclude_id:
            qs = qs.exclude(pk=exclude_id)
        existing = qs.only("id", "name").first()
        if existing is not None:
            clashes[field] = existing
    return clashes


@dataclass(frozen=True)
class ApprovalSettings:
    """What the workspace reads now (a missing key is its default: off, off, Gregorian) and who may approve."""

    campaigns_need_approval: bool
    approval_four_eyes: bool
    calendar: str
    approver_count: int


def workspace_approval_settings(*, actor: Actor) -> ApprovalSettings:
    workspace = actor.workspace
    return ApprovalSettings(
        campaigns_need_approval=workspace_needs_approval(workspace),
        approval_four_eyes=four_eyes(workspace),
        calendar=workspace_calendar(workspace),
        approver_count=len(approver_ids(workspace, submitter_id=None, bound_four_eyes=False)),
    )


# How the settings history names a key and its values (a key not listed shows as stored).
SETTING_LABELS = {
    "campaigns_need_approval": "تأیید کمپین‌ها",
    "approval_four_eyes": "تأیید چهارچشمی",
    "calendar": "تقویم زمان‌بندی",
    "time_zone": "منطقه زمانی",
    "notifications_email": "اعلان ایمیلی",
    "sms_retention_days": "نگهداری گزارش پیامک (روز)",
}
_VALUE_LABELS = {True: "روشن", False: "خاموش", None: "پیش‌فرض", "jalali": "شمسی", "gregorian": "میلادی"}


def _value_text(value) -> str:
    if isinstance(value, bool) or value is None or value in ("jalali", "gregorian"):
        return _VALUE_LABELS[value]
    return str(value)


@dataclass(frozen=True)
class SettingsChange:
    """One row of the settings history: when, who, and each changed key as (label, before, after) texts."""

    created_at: object
    actor_name: str
    changes: list[tuple[str, str, str]]


def workspace_settings_history(*, actor: Actor, limit: int = 50) -> list[SettingsChange]:
    """The latest changes of the actor's workspace settings, newest first."""
    events = scoped(WorkspaceSettingsEvent, actor.workspace).select_related("actor").order_by("-created_at", "-id")
    rows = []
    for event in events[:limit]:
        before, after = (event.data or {}).get("before", {}), (event.data or {}).get("after", {})
        user = event.actor
        rows.append(
            SettingsChange(
                created_at=event.created_at,
                actor_name=(user.get_full_name() or user.get_username()) if user else "سامانه",
                changes=[
                    (SETTING_LABELS.get(key, key), _value_text(before.get(key)), _value_text(after.get(key)))
                    for key in sorted(set(before) | set(after))
                ],
            )
        )
    return rows
