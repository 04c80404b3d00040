"""Reads for groups, chain trees, inheritance sources and packages (always tenant-scoped)."""

from __future__ import annotations

from django.db.models import Count, Q, QuerySet
from django.utils import timezone

from campaigns.approval_selectors import workspace_needs_approval
from campaigns.chains import schedule as sched
from campaigns.chains.audience import audience_count, audience_queryset
from campaigns.chains.choices import ChainControl, GroupStatus
from campaigns.chains.models import CampaignGroup, ChainApprovalPackage
from campaigns.chains.node_models import ChainNode
from campaigns.chains.tree import EDITABLE_STATUSES, chain_state, children_map, is_root_alone
from campaigns.choices import CampaignStatus
from campaigns.models import Target
from campaigns.platform.permissions import Perm
from campaigns.platform.registry import PackagePlan
from campaigns.platform.tenancy import Actor, get_scoped, scoped


def group_queryset(*, actor: Actor) -> QuerySet:
    """Active groups, newest first (filters: ``campaigns.chains.filters.CampaignGroupFilter``)."""
    return scoped(CampaignGroup, actor.workspace).filter(status=GroupStatus.ACTIVE).order_by("-created_at", "-id")


def group_get(*, actor: Actor, group_id) -> CampaignGroup:
    return get_scoped(CampaignGroup, actor.workspace, group_id, queryset=group_queryset(actor=actor))


def attach_campaign_counts(*, actor: Actor, groups: list[CampaignGroup]) -> list[CampaignGroup]:
    """One aggregate over the campaigns of this page's groups: counts by status (+ total)."""
    ids = [g.id for g in groups]
    counts: dict[int, dict[str, int]] = {g: {} for g in ids}
    if ids:
        rows = (
            scoped(ChainNode, actor.workspace)
            .filter(group_id__in=ids)
            .values("group_id", "status")
            .annotate(n=Count("id"))
            .order_by()
        )
        for row in rows:
            counts[row["group_id"]][row["status"]] = row["n"]
    for group in groups:
        by_status = {s: counts[group.id].get(s, 0) for s in CampaignStatus.values}
        group.campaign_counts = {**by_status, "total": sum(by_status.values())}
    return groups


# --------------------------------------------------------------------------- chain tree


def allowed_actions(
    node: ChainNode, *, state: str, root: ChainNode | None, has_children: bool, actor: Actor
) -> list[str]:
    """UI hints only; every service re-validates."""
    if not actor.has(Perm.MANAGE_CAMPAIGNS):
        return ["view"]
    actions = ["view", "clone"]
    editable = state == "editable"
    if editable:
        actions += ["edit", "add_child"]
        if node.parent_id is not None:
            actions.append("move")
        if not has_children and node.status in EDITABLE_STATUSES:
            actions.append("delete")
        if (node.root_id is not None and node.parent_id is None) or is_root_alone(node):
            actions.append("submit")  # the chain's package (a root alone: a chain of one)
        elif node.root_id is None and workspace_needs_approval(actor.workspace):
            actions.append("submit")  # single-campaign approval
    elif state == "submitted":
        actions += ["edit", "withdraw"]
        if actor.has(Perm.APPROVE_CHAINS) and node.parent_id is None:
            actions += ["approve", "reject"]
    if node.root_id is None and node.group_id is not None:
        actions.append("move_group")  # an independent campaign changes group whatever its status
    if node.parent_id is None and root is not None and state == "locked":
        control = root.chain_control
        if control == ChainControl.NORMAL:
            actions += ["pause", "stop"]
        elif control == ChainControl.PAUSED:
            actions += ["resume", "stop"]
    return actions


def _node(node: ChainNode, kids: dict, matched: set[int], state: str, root: ChainNode | None, actor: Actor) -> dict:
    children = kids.get(node.id, [])
    return {
        "campaign_id": node.id,
        "name": node.name,
        "parent_campaign_id": node.parent_id,
        "root_campaign_id": node.root_id,
        "status": node.status,
        "chain_code": node.chain_code,
        "needs_review": node.needs_review,
        "needs_review_reasons": node.needs_review_reasons or [],
        "inheritance": inheritance_out(node.inheritance),
        "matched": node.id in matched,
        "allowed_actions": allowed_actions(node, state=state, root=root, has_children=bool(children), actor=actor),
        "children": [_node(c, kids, matched, state, root, actor) for c in children],
    }


def campaign_tree(
    *, actor: Actor, group_id, query: str | None, page: int, size: int, offset: int | None = None
) -> dict:
    """One page of top-level campaigns (roots + independents), then one query for all their descendants.

    ``offset`` (an API cursor's position) replaces ``page``: the answer's ``page`` is then None."""
    group = get_scoped(CampaignGroup, actor.workspace, group_id)
    top = scoped(ChainNode, actor.workspace).filter(group_id=group.id, parent__isnull=True)
    text = (query or "").strip()
    matched_ids: set[int] = set()
    if text:
        hits = scoped(ChainNode, actor.workspace).filter(group_id=group.id, name__icontains=text)
        top = top.filter(Q(pk__in=hits.values("root_id")) | Q(pk__in=hits.filter(root__isnull=True).values("id")))
    top = top.order_by("-created_at", "-id")
    total = top.count()
    start = (page - 1) * size if offset is None else offset
    roots = list(top[start : start + size])
    root_ids = [r.id for r in roots if r.root_id is not None]
    descendants = (
        list(scoped(ChainNode, actor.workspace).filter(root_id__in=root_ids, parent__isnull=False).order_by("id"))
        if root_ids
        else []
    )
    if text:
        needle = text.casefold()
        matched_ids = {n.id for n in [*roots, *descendants] if needle in n.name.casefold()}
    by_root: dict[int, list[ChainNode]] = {}
    for node in descendants:
        by_root.setdefault(node.root_id, []).append(node)
    items = []
    for root in roots:
        nodes = [root, *by_root.get(root.id, [])]
        state = chain_state(nodes)
        items.append(_node(root, children_map(nodes), matched_ids, state, root if root.root_id else None, actor))
    return {
        "total_root_items": total,
        "page": page if offset is None else None,
        "size": size,
        "has_more": start + size < total,
        "roots": items,
    }


# --------------------------------------------------------------------------- sources and packages


def inheritance_out(stored: dict | None) -> dict | None:
    if not stored:
        return None
    return {**stored, "schedule": sched.api_child_schedule(stored.get("schedule"))}


def inheritance_sources(*, actor: Actor, group_id, campaign_id: int | None = None) -> list[dict]:
    """Campaigns of the group a child may inherit from (editable chains or independent, recurring roots)."""
    group = get_scoped(CampaignGroup, actor.workspace, group_id)
    members = list(scoped(ChainNode, actor.workspace).filter(group_id=group.id).order_by("id"))
    chains: dict[int, list[ChainNode]] = {}
    for member in members:
        if member.root_id is not None:
            chains.setdefault(member.root_id, []).append(member)
    excluded: set[int] = set()
    if campaign_id is not None:
        from campaigns.chains.tree import descendant_ids

        excluded = {campaign_id}
        current = next((m for m in members if m.id == campaign_id), None)
        if current is not None and current.root_id is not None:
            excluded |= descendant_ids(campaign_id, chains.get(current.root_id, []))
    by_id = {m.id: m for m in members}
    result = []
    for member in members:
        if member.id in excluded:
            continue
        nodes = chains.get(member.root_id, [member]) if member.root_id else [member]
        if chain_state(nodes) != "editable":
            continue
        root = by_id.get(member.root_id) if member.root_id else member
        if root is None:
            continue
        try:
            root_kind = sched.parse_root_schedule(root.root_schedule or {"type": "EVENT"})
        except sched.ScheduleErrors:
            continue
        if not root_kind.recurring:
            continue
        result.append(
            {
                "campaign_id": member.id,
                "name": member.name,
                "root_campaign_id": member.root_id,
                "parent_campaign_id": member.parent_id,
                "root_schedule_type": root_kind.type,
                "needs_review": member.needs_review,
            }
        )
    return result


def package_get(*, actor: Actor, package_id) -> ChainApprovalPackage:
    return get_scoped(ChainApprovalPackage, actor.workspace, package_id)


def package_launch_plan(*, actor: Actor, package_id) -> PackagePlan:
    """What the engine's launch check reads of a package (``campaigns.platform.registry.package_plan``): the
    root's audience and every member's action as submitted (the package's snapshot), the members as they are."""
    package = package_get(actor=actor, package_id=package_id)
    items = package.items or []
    members = scoped(ChainNode, actor.workspace).in_bulk([i["campaign_id"] for i in items])
    root_item = next((i for i in items if i.get("campaign_id") == package.root_id), {})
    list_id, filters = root_item.get("source_target_list_id"), root_item.get("audience_filters") or {}
    subjects = audience_queryset(workspace_id=actor.workspace.id, target_list_id=list_id, filters=filters)
    # The members' ids along the list's (list, target) index: the check's sample never walks the targets table.
    first_ids = Target.lists.through.objects.filter(targetlist_id=list_id).order_by("target_id")
    root = members.get(package.root_id)
    return PackagePlan(
        package_id=package.id,
        subjects=subjects,
        members=[(members[i["campaign_id"]], i.get("chain_action")) for i in items if i["campaign_id"] in members],
        first_ids=first_ids.values_list("target_id", flat=True) if list_id is not None else [],
        size=None if filters else audience_count(workspace_id=actor.workspace.id, target_list_id=list_id, filters={}),
        first_run_at=_first_run_at(actor, root_item.get("root_schedule") or (root.root_schedule if root else None)),
        first_runs=_first_runs(actor, items, root_item.get("root_schedule") or (root.root_schedule if root else None)),
    )


def _first_run_at(actor: Actor, stored: dict | None):
    """The root's first run after now by its schedule as submitted (None: no schedule, run by hand or an event)."""
    try:
        rs = sched.parse_root_schedule(stored or {"type": "EVENT"})
    except sched.ScheduleErrors:
        return None
    return next(sched.root_occurrences(rs, sched.workspace_zone(actor.workspace), timezone.now()), None)


FIRST_RUN_PERIODS = 13  # a follow-up that fits no period of the root's next year is left to the root's run


def _first_runs(actor: Actor, items: list[dict], stored: dict | None) -> dict[int, object]:
    """Each follow-up's first planned run after now, by the schedules as submitted: the first root period after
    now in which its path fits, its parent's planned run + its own timing, level by level (``sched.plan_path``,
    as the runs plan it); a follow-up that fits none of the next periods is left out."""
    try:
        rs = sched.parse_root_schedule(stored or {"type": "EVENT"})
    except sched.ScheduleErrors:
        return {}
    if not rs.recurring:
        return {}
    tz = sched.workspace_zone(actor.workspace)
    periods = sched.root_periods(rs, tz, timezone.now(), FIRST_RUN_PERIODS)
    by_id = {item["campaign_id"]: item for item in items}
    result = {}
    for campaign_id, item in by_id.items():
        path, node, seen = [], item, set()
        while node and node.get("parent_campaign_id") and node["campaign_id"] not in seen:
            seen.add(node["campaign_id"])
            path.append(node)
            node = by_id.get(node["parent_campaign_id"])
        if not path or node is None:
            continue
        try:
            schedules = [
                sched.parse_child_schedule((n.get("inheritance") or {}).get("schedule")) for n in reversed(path)
            ]
        except sched.ScheduleErrors:
            continue
        planned = next((at for p in periods if (at := sched.plan_path(schedules, p, tz)[1]) is not None), None)
        if planned is not None:
            result[campaign_id] = planned
    return result
