"""Chain writes: create a campaign in a chain, edit, re-parent, delete a leaf, clone.

Every chain change runs in one transaction that first locks the chain root
(``SELECT … FOR UPDATE``), compares ``expected_chain_revision`` and bumps the
root's ``chain_revision`` (both roots when a branch moves between chains).
The root row is the shared write point: two concurrent moves or edits are
serialised there and the loser sees a stale revision (409).
"""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone

from campaigns.chains import schedule as sched
from campaigns.chains.approval_selectors import load_chain
from campaigns.chains.audience import parse_audience_filters, target_list_or_400
from campaigns.chains.choices import GroupStatus
from campaigns.chains.errors import AffectedCampaignsConfirmationRequired, ChainHasChildren, ChainLocked, ChainSubmitted
from campaigns.chains.models import CampaignGroup
from campaigns.chains.node_models import ChainNode
from campaigns.chains.nodes import node_get
from campaigns.chains.services.common import (
    NODE_BOOKKEEPING,
    bump_chain,
    check_chain_revision,
    lock_roots,
    withdraw_current_package,
)
from campaigns.chains.services.groups import bump_group
from campaigns.chains.services.inputs import (
    parse_action,
    parse_daily_limit,
    parse_goal,
    parse_inheritance,
    parse_send_window,
    parse_when,
    reasons_error,
    with_cap_priority,
)
from campaigns.chains.tree import (
    EDITABLE_STATUSES,
    apply_review,
    chain_state,
    descendant_ids,
    node_reasons,
    tree_reasons,
)
from campaigns.choices import CampaignKind, CampaignStatus
from campaigns.platform.errors import NotFound, ValidationFailed
from campaigns.platform.permissions import Perm
from campaigns.platform.tenancy import Actor, scoped
from campaigns.platform.text import text_check

CHAIN_FIELDS = [
    "name",
    "description",
    "group",
    "parent",
    "root",
    "inheritance",
    "root_schedule",
    "goal",
    "attribution_window_days",
    "chain_action",
    "source_target_list",
    "audience_filters",
    "daily_limit",
    "send_window",
    "journey_settings",
    "needs_review",
    "needs_review_reasons",
    "updated_at",
]


CHILD_AUDIENCE = "مخاطبان کمپین دنباله از اجرای منبعش می‌آیند؛ فهرست و فیلتر فقط برای ریشه است."


def _tz(actor: Actor):
    return sched.workspace_zone(actor.workspace)


def _now():
    return timezone.now()


def _require_editable(nodes: list[ChainNode], *, allow_submitted: bool = False) -> str:
    state = chain_state(nodes)
    if state == "submitted" and not allow_submitted:
        raise ChainSubmitted()
    if state in ("locked", "finished"):
        raise ChainLocked()
    return state


def _source_or_400(actor: Actor, parent_id: int, field_name: str = "parent_campaign_id") -> ChainNode:
    parent = scoped(ChainNode, actor.workspace).filter(pk=parent_id).first()
    if parent is None:  # another workspace's id looks exactly like a missing one
        raise ValidationFailed.field(field_name, "کمپین منبع پیدا نشد.")
    return parent


def _active_group_or_400(actor: Actor, group_id: int, field_name: str = "campaign_group_id") -> CampaignGroup:
    group = scoped(CampaignGroup, actor.workspace).filter(pk=group_id, status=GroupStatus.ACTIVE).first()
    if group is None:
        raise ValidationFailed.field(field_name, "گروه فعال پیدا نشد.")
    return group


def _refresh_review(actor: Actor, nodes: list[ChainNode]) -> None:
    """Recompute needs_review for every child of each chain in ``nodes`` (in memory)."""
    by_root: dict[int | None, list[ChainNode]] = {}
    for node in nodes:
        by_root.setdefault(node.root_id, []).append(node)
    for root_id, members in by_root.items():
        if root_id is None:
            for m in members:
                m.needs_review, m.needs_review_reasons = False, []
            continue
        apply_review(members, tree_reasons(members, _tz(actor), _now()))


def _save(nodes: list[ChainNode]) -> None:
    now = _now()
    for node in nodes:
        node.updated_at = now
    ChainNode.objects.bulk_update(nodes, CHAIN_FIELDS)


# --------------------------------------------------------------------------- create


def chain_campaign_create(
    *,
    actor: Actor,
    name: str,
    description: str = "",
    kind: str = CampaignKind.JOURNEY,
    campaign_group_id: int | None = None,
    parent_campaign_id: int | None = None,
    expected_chain_revision: int | None = None,
    inheritance: dict | None = None,
    when: dict | None = None,
    goal: dict | None = None,
    attribution_window_days: int = 7,
    chain_action: dict | None = None,
    source_target_list_id: int | None = None,
    audience_filters: dict | None = None,
    daily_limit: int | None = None,
    send_window: dict | None = None,
    frequency_cap_priority: str | None = None,
) -> ChainNode:
    """Create an independent campaign (optionally in a group) or a child of a source in a chain.

    A root/independent campaign may carry its audience (a target list + targets-page filters); a child's
    audience is always a class of its source's run."""
    actor.require(Perm.MANAGE_CAMPAIGNS)
    text_check(names={"name": name}, descriptions={"description": description})
    name = (name or "").strip()
    if not name:
        raise ValidationFailed.field("name", "نام کمپین لازم است.")
    if kind not in CampaignKind.values:
        raise ValidationFailed.field("kind", "نوع کمپین نامعتبر است.")
    action = parse_action(chain_action)
    fields = dict(
        workspace=actor.workspace,
        name=name,
        description=description or "",
        kind=kind,
        created_by=actor.user,
        attribution_window_days=attribution_window_days,
        chain_action=action,
        daily_limit=parse_daily_limit(daily_limit),
        send_window=parse_send_window(send_window),
        journey_settings=with_cap_priority({}, frequency_cap_priority),
    )
    if parent_campaign_id is None:
        if inheritance is not None:
            raise ValidationFailed.field("inheritance", "فقط کمپین دنباله (دارای منبع) ارث‌بری دارد.")
        group = _active_group_or_400(actor, campaign_group_id) if campaign_group_id else None
        fields.update(
            source_target_list=target_list_or_400(actor, source_target_list_id),
            audience_filters=parse_audience_filters(audience_filters),
        )
        with transaction.atomic():
            if group is not None:
                bump_group(workspace=actor.workspace, group_id=group.id, actor_user=actor.user)
            when_stored = parse_when(when)
            return ChainNode.objects.create(group=group, root_schedule=when_stored, goal=parse_goal(goal), **fields)

    if source_target_list_id is not None or audience_filters:
        raise ValidationFailed.field("source_target_list_id", CHILD_AUDIENCE)

    if when is not None:
        raise ValidationFailed.field("when", "کمپین دنباله زمان‌بندی مستقل ندارد؛ زمان را ارث‌بری تعیین می‌کند.")
    if goal is not None:
        raise ValidationFailed.field("goal", "هدف کمپین دنباله از ریشه زنجیره به ارث می‌رسد.")
    stored_inheritance = parse_inheritance(inheritance)
    parent = _source_or_400(actor, parent_campaign_id)
    if parent.group_id is None:
        raise ValidationFailed.field("parent_campaign_id", "زنجیره باید در یک گروه باشد؛ ابتدا منبع را به گروهی ببرید.")
    if campaign_group_id is not None and campaign_group_id != parent.group_id:
        raise ValidationFailed.field("parent_campaign_id", "منبع در این گروه نیست.")
    with transaction.atomic():
        root_id = parent.root_id or parent.id
        root = lock_roots(actor, [root_id]).get(root_id)
        if root is None:
            raise ValidationFailed.field("parent_campaign_id", "کمپین منبع پیدا نشد.")
        check_chain_revision(root, expected_chain_revision)
        nodes = load_chain(actor, root)
        by_id = {n.id: n for n in nodes}
        parent = by_id.get(parent.id)
        if parent is None:
            raise ValidationFailed.field("parent_campaign_id", "کمپین منبع پیدا نشد.")
        _require_editable(nodes)
        bump_group(workspace=actor.workspace, group_id=parent.group_id, actor_user=actor.user)
        child = ChainNode(
            group_id=parent.group_id,
            parent=parent,
            root_id=root.id,
            inheritance=stored_inheritance,
            goal=root.goal,
            **fields,
        )
        if root.root_id is None:
            root.root_id = root.id  # an independent source becomes a chain root
        reasons = node_reasons(child, by_id, root, _tz(actor), _now())
        if reasons:
            raise reasons_error(reasons)
        child.save()
        ChainNode.objects.filter(pk=root.id).update(root_id=root.id)
        bump_chain(root.id)
    child.refresh_from_db()
    return child


# --------------------------------------------------------------------------- update / re-parent


def _codes(reasons: list[dict]) -> set[str]:
    return {r["code"] for r in reasons or []}


def chain_campaign_update(
    *,
    actor: Actor,
    campaign_id: int,
    data: dict,
    expected_chain_revision: int | None = None,
    expected_target_chain_revision: int | None = None,
    accept_affected: bool = False,
) -> ChainNode:
    """Edit chain config and/or change the source. Children made invalid need ``accept_affected``."""
    actor.require(Perm.MANAGE_CAMPAIGNS)
    text_check(names={"name": data.get("name")}, descriptions={"description": data.get("description")})
    campaign = node_get(actor.workspace, campaign_id)
    moving = "parent_campaign_id" in data and data["parent_campaign_id"] != campaign.parent_id
    new_parent = None
    if moving:
        if data["parent_campaign_id"] is None:
            raise ValidationFailed.field("parent_campaign_id", "منبع را نمی‌توان حذف کرد؛ منبع دیگری انتخاب کنید.")
        new_parent = _source_or_400(actor, data["parent_campaign_id"])
        if campaign.group_id is None or new_parent.group_id != campaign.group_id:
            raise ValidationFailed.field("parent_campaign_id", "منبع جدید باید در همین گروه باشد.")
    with transaction.atomic():
        old_root_id = campaign.root_id or campaign.id
        new_root_id = (new_parent.root_id or new_parent.id) if new_parent else old_root_id
        roots = lock_roots(actor, [old_root_id, new_root_id])
        old_root = roots.get(old_root_id)
        if old_root is None:
            raise NotFound()
        if campaign.root_id is not None or expected_chain_revision is not None:
            check_chain_revision(old_root, expected_chain_revision)
        old_nodes = load_chain(actor, old_root)
        campaign = next((n for n in old_nodes if n.id == campaign.id), None)
        if campaign is None:
            raise NotFound()
        state = _require_editable(old_nodes, allow_submitted=not moving)
        new_nodes: list[ChainNode] = []
        if moving and new_root_id != old_root_id:
            new_root = roots.get(new_root_id)
            if new_root is None:
                raise ValidationFailed.field("parent_campaign_id", "کمپین منبع پیدا نشد.")
            check_chain_revision(new_root, expected_target_chain_revision, "expected_target_chain_revision")
            new_nodes = load_chain(actor, new_root)
            _require_editable(new_nodes)
        if state == "submitted":
            withdraw_current_package(actor, old_root, old_nodes, reason="ویرایش زنجیره پس از ارسال برای تأیید")
            old_root = lock_roots(actor, [old_root_id])[old_root_id]
            old_nodes = load_chain(actor, old_root)
            campaign = next(n for n in old_nodes if n.id == campaign.id)
        everything = {n.id: n for n in [*old_nodes, *new_nodes]}
        before = {n.id: list(n.needs_review_reasons or []) for n in everything.values()}
        _refresh_review(actor, list(everything.values()))
        baseline = {n.id: _codes(n.needs_review_reasons) for n in everything.values()}
        for node_id, reasons in before.items():
            baseline[node_id] |= _codes(reasons)

        if moving:
            fresh_parent = everything.get(new_parent.id)
            if fresh_parent is None:  # deleted or moved to another chain while we waited for the lock
                raise ValidationFailed.field("parent_campaign_id", "کمپین منبع پیدا نشد.")
            _apply_move(actor, campaign, fresh_parent, old_nodes, everything, data)
        _apply_fields(actor, campaign, data, everything)

        nodes = list(everything.values())
        _refresh_review(actor, nodes)
        own = campaign.needs_review_reasons or []
        if campaign.parent_id is not None and own:
            raise reasons_error(own)
        has_children = any(n.parent_id == campaign.id for n in nodes)
        if has_children:
            rs = (
                sched.parse_root_schedule(campaign.root_schedule or {"type": "EVENT"})
                if campaign.parent_id is None
                else None
            )
            if rs is not None and not rs.recurring:
                raise ValidationFailed.field(
                    "when", "این کمپین منبع کمپین‌های دیگری است و باید زمان‌بندی تکرارشونده داشته باشد."
                )
        affected = [
            n
            for n in nodes
            if n.id != campaign.id and n.needs_review and _codes(n.needs_review_reasons) - baseline.get(n.id, set())
        ]
        if affected and not accept_affected:
            raise AffectedCampaignsConfirmationRequired(
                details={
                    "affected_campaigns": [
                        {"campaign_id": n.id, "name": n.name, "reasons": n.needs_review_reasons} for n in affected
                    ],
                    "chain_revision": old_root.chain_revision,
                }
            )
        _save(nodes)
        for root_id in {old_root_id, new_root_id}:
            bump_chain(root_id)
    campaign.refresh_from_db()
    return campaign


def _apply_fields(actor: Actor, campaign: ChainNode, data: dict, everything: dict[int, ChainNode]) -> None:
    is_child = campaign.parent_id is not None
    if "source_target_list_id" in data or "audience_filters" in data:
        _apply_audience(actor, campaign, data, is_child)
    if "name" in data:
        name = (data["name"] or "").strip()
        if not name:
            raise ValidationFailed.field("name", "نام کمپین لازم است.")
        campaign.name = name
    if "description" in data:
        campaign.description = data["description"] or ""
    if "attribution_window_days" in data:
        campaign.attribution_window_days = data["attribution_window_days"]
    if "chain_action" in data:
        campaign.chain_action = parse_action(data["chain_action"])
    if "daily_limit" in data:  # each node keeps its own limit and window (the seed: independent per child)
        campaign.daily_limit = parse_daily_limit(data["daily_limit"])
    if "send_window" in data:
        campaign.send_window = parse_send_window(data["send_window"])
    if "frequency_cap_priority" in data:  # who gets the last units of the frequency cap (sms: journey_settings)
        campaign.journey_settings = with_cap_priority(campaign.journey_settings, data["frequency_cap_priority"])
    if "when" in data:
        if is_child:
            raise ValidationFailed.field("when", "کمپین دنباله زمان‌بندی مستقل ندارد.")
        campaign.root_schedule = parse_when(data["when"])
    if "goal" in data:
        if is_child:
            raise ValidationFailed.field("goal", "هدف کمپین دنباله از ریشه زنجیره به ارث می‌رسد.")
        campaign.goal = parse_goal(data["goal"])
        for node in everything.values():  # children inherit the root's conversion definition
            if node.root_id == campaign.id and node.id != campaign.id:
                node.goal = campaign.goal
    if "inheritance" in data and data["inheritance"] is not None:
        if not is_child:
            raise ValidationFailed.field("inheritance", "فقط کمپین دنباله ارث‌بری دارد.")
        campaign.inheritance = parse_inheritance(data["inheritance"])


def _apply_audience(actor: Actor, campaign: ChainNode, data: dict, is_child: bool) -> None:
    if is_child:
        if data.get("source_target_list_id") is not None or data.get("audience_filters"):
            raise ValidationFailed.field("source_target_list_id", CHILD_AUDIENCE)
        return
    if "source_target_list_id" in data:
        campaign.source_target_list = target_list_or_400(actor, data["source_target_list_id"])
    if "audience_filters" in data:
        campaign.audience_filters = parse_audience_filters(data["audience_filters"])


def _apply_move(
    actor: Actor,
    campaign: ChainNode,
    new_parent: ChainNode,
    old_nodes: list[ChainNode],
    everything: dict[int, ChainNode],
    data: dict,
) -> None:
    """Re-parent a branch in memory: never under itself, both chains re-rooted, an emptied root freed."""
    branch = {campaign.id} | (descendant_ids(campaign.id, old_nodes) if campaign.root_id else set())
    if new_parent.id in branch:
        raise ValidationFailed.field("parent_campaign_id", "منبع نمی‌تواند خود کمپین یا یکی از دنباله‌های آن باشد.")
    old_root_id = campaign.root_id
    was_root = campaign.parent_id is None
    if was_root and data.get("inheritance") is None:
        raise ValidationFailed.field("inheritance", "ریشه‌ای که زیر منبع دیگری می‌رود به ارث‌بری نیاز دارد.")
    new_root = everything.get(new_parent.root_id) if new_parent.root_id else new_parent
    new_root.root_id = new_root.id
    campaign.parent_id = new_parent.id
    campaign.parent = new_parent
    if was_root:
        campaign.root_schedule = None  # a child never has its own schedule
        campaign.source_target_list, campaign.audience_filters = None, {}  # nor its own audience
    for node_id in branch:
        node = everything[node_id]
        node.root_id = new_root.id
        node.goal = new_root.goal
    if old_root_id and not was_root:
        old_root = everything[old_root_id]
        still_children = any(
            n.parent_id == old_root.id for n in everything.values() if n.id not in branch and n.root_id == old_root.id
        )
        if not still_children:
            old_root.root_id = None  # left without children: independent again


# --------------------------------------------------------------------------- delete


def chain_campaign_delete(*, actor: Actor, campaign_id: int, expected_chain_revision: int | None = None) -> None:
    """Soft-delete a leaf (or an independent campaign). The last child turns a draft root independent."""
    actor.require(Perm.MANAGE_CAMPAIGNS)
    campaign = node_get(actor.workspace, campaign_id)
    with transaction.atomic():
        root_id = campaign.root_id or campaign.id
        root = lock_roots(actor, [root_id]).get(root_id)
        if root is None:
            raise NotFound()
        if campaign.root_id is not None:
            check_chain_revision(root, expected_chain_revision)
        nodes = load_chain(actor, root)
        campaign = next((n for n in nodes if n.id == campaign.id), None)
        if campaign is None:
            raise NotFound()
        _require_editable(nodes)
        if any(n.parent_id == campaign.id for n in nodes):
            raise ChainHasChildren()
        if campaign.status not in EDITABLE_STATUSES:
            raise ChainLocked()
        if campaign.group_id is not None:  # leaving the group's live members is a membership change
            bump_group(workspace=actor.workspace, group_id=campaign.group_id, actor_user=actor.user)
        ChainNode.objects.filter(pk=campaign.id, deleted_at__isnull=True).update(
            deleted_at=timezone.now(), updated_at=timezone.now()
        )
        if campaign.root_id is None:
            return
        remaining = [n for n in nodes if n.id != campaign.id and n.parent_id is not None]
        if not remaining and root.status == CampaignStatus.DRAFT:
            ChainNode.objects.filter(pk=root.id).update(root=None, updated_at=timezone.now())
        bump_chain(root.id)


# --------------------------------------------------------------------------- clone

_NOT_COPIED = NODE_BOOKKEEPING | {"group", "ab_seed", "chain_code"}  # a copy gets its own


def _copy(node: ChainNode, *, actor: Actor, group_id: int | None, name: str | None = None) -> ChainNode:
    from campaigns.chains.node_models import new_ab_seed

    values = {f.attname: getattr(node, f.attname) for f in ChainNode._meta.concrete_fields if f.name not in _NOT_COPIED}
    values.update(
        workspace=actor.workspace,
        status=CampaignStatus.DRAFT,
        created_by=actor.user,
        group_id=group_id,
        ab_seed=new_ab_seed(),
    )
    if name:
        values["name"] = name
    return ChainNode(**values)


def chain_campaign_clone(
    *, actor: Actor, campaign_id: int, campaign_group_id: int | None = None
) -> tuple[ChainNode, dict]:
    """Root → the whole tree; draft child → one node under the same source; independent → one campaign."""
    actor.require(Perm.MANAGE_CAMPAIGNS)
    source = node_get(actor.workspace, campaign_id)
    suffix = " (کپی)"
    if source.parent_id is not None:
        return _clone_child(actor, source, campaign_group_id, suffix)
    if campaign_group_id is not None:
        group = _active_group_or_400(actor, campaign_group_id)
    elif source.group_id is not None:
        group = scoped(CampaignGroup, actor.workspace).filter(pk=source.group_id).first()
        if group is None or group.status != GroupStatus.ACTIVE:
            raise ValidationFailed.field("campaign_group_id", "گروه این کمپین حذف شده است؛ یک گروه فعال انتخاب کنید.")
    else:
        group = None
    nodes = list(load_chain(actor, source)) if source.root_id else [source]
    with transaction.atomic():
        if group is not None:
            bump_group(workspace=actor.workspace, group_id=group.id, actor_user=actor.user)
        # 1) allocate every copy (ids first), 2) map old → new, 3) point parent/root at the copies.
        copies = {n.id: _copy(n, actor=actor, group_id=group.id if group else None) for n in nodes}
        copies[source.id].name = (source.name + suffix)[:200]
        for copy in copies.values():  # one INSERT per table each (a child model has no bulk_create)
            copy.save(force_insert=True)
        id_map = {old: copies[old].id for old in copies}
        if source.root_id:
            for old in nodes:
                copy = copies[old.id]
                copy.root_id = id_map[source.id]
                copy.parent_id = id_map[old.parent_id] if old.parent_id else None
            copy_nodes = list(copies.values())
            apply_review(copy_nodes, tree_reasons(copy_nodes, _tz(actor), _now()))
            ChainNode.objects.bulk_update(copy_nodes, ["root", "parent", "needs_review", "needs_review_reasons"])
    return ChainNode.objects.get(pk=id_map[source.id]), id_map


def _clone_child(actor: Actor, source: ChainNode, campaign_group_id: int | None, suffix: str):
    if campaign_group_id is not None and campaign_group_id != source.group_id:
        raise ValidationFailed.field(
            "campaign_group_id", "کپی یک کمپین دنباله در همان گروه و زیر همان منبع ساخته می‌شود."
        )
    with transaction.atomic():
        root = lock_roots(actor, [source.root_id]).get(source.root_id)
        if root is None:
            raise NotFound()
        nodes = load_chain(actor, root)
        _require_editable(nodes)
        fresh = next((n for n in nodes if n.id == source.id), None)
        if fresh is None:
            raise NotFound()
        if fresh.status != CampaignStatus.DRAFT:
            raise ChainLocked("فقط کمپین دنباله پیش‌نویس کپی می‌شود.")
        bump_group(workspace=actor.workspace, group_id=fresh.group_id, actor_user=actor.user)
        copy = _copy(fresh, actor=actor, group_id=fresh.group_id, name=(fresh.name + suffix)[:200])
        copy.parent_id, copy.root_id, copy.goal = fresh.parent_id, root.id, root.goal
        by_id = {n.id: n for n in nodes}
        reasons = node_reasons(copy, by_id, by_id[root.id], _tz(actor), _now())
        copy.needs_review, copy.needs_review_reasons = bool(reasons), reasons
        copy.save()
        bump_chain(root.id)
    return copy, {source.id: copy.id}
