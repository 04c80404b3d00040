"""In-memory chain trees: load a whole chain in one query, validate every node, compute review reasons.

Nothing here writes. Services load a tree under the root's row lock, apply a
change to the loaded objects, call ``tree_reasons`` and persist.
"""

from __future__ import annotations

from datetime import datetime

from django.db.models import Q, QuerySet

from campaigns.chains import schedule as sched
from campaigns.chains.choices import InheritanceType
from campaigns.chains.node_models import ChainNode
from campaigns.choices import CampaignStatus
from campaigns.platform.registry import campaign_journey
from campaigns.platform.tenancy import scoped

EDITABLE_STATUSES = {CampaignStatus.DRAFT, CampaignStatus.REJECTED}
FINISHED_STATUSES = {CampaignStatus.COMPLETED, CampaignStatus.CANCELLED}
GOAL_TYPES = {InheritanceType.NOT_CONVERTED, InheritanceType.CONVERTED}
# An independent campaign: in no group and no chain (what a group can take in).
INDEPENDENT = Q(group__isnull=True, root__isnull=True, parent__isnull=True)


def chain_queryset(workspace, root_id: int) -> QuerySet:
    """Every live node of one chain (root included), one query."""
    return scoped(ChainNode, workspace).filter(root_id=root_id).order_by("id")


def is_root_alone(node: ChainNode) -> bool:
    """A campaign with a root's own schedule and no follow-ups (no parent, no chain yet): submitting it makes it a
    chain of one, approved as a package and run by the chain scheduler like any root (docs/chains.md)."""
    return node.root_id is None and node.parent_id is None and bool(node.root_schedule)


def children_map(nodes: list[ChainNode]) -> dict[int | None, list[ChainNode]]:
    result: dict[int | None, list[ChainNode]] = {}
    for node in nodes:
        result.setdefault(node.parent_id, []).append(node)
    return result


def descendant_ids(node_id: int, nodes: list[ChainNode]) -> set[int]:
    kids = children_map(nodes)
    found: set[int] = set()
    stack = [node_id]
    while stack:
        current = stack.pop()
        for child in kids.get(current, []):
            if child.id not in found:
                found.add(child.id)
                stack.append(child.id)
    return found


def chain_state(nodes: list[ChainNode]) -> str:
    """editable (every node draft/rejected) | submitted | finished | locked (approved/running)."""
    statuses = {n.status for n in nodes}
    if statuses <= EDITABLE_STATUSES:
        return "editable"
    if CampaignStatus.SUBMITTED in statuses:
        return "submitted"
    if statuses <= FINISHED_STATUSES:
        return "finished"
    return "locked"


def has_channel(campaign: ChainNode) -> bool:
    """A delivery channel exists: a chain action naming one, or a journey workflow."""
    return bool((campaign.chain_action or {}).get("channel")) or campaign_journey(campaign) is not None


def has_action(campaign: ChainNode) -> bool:
    action = campaign.chain_action or {}
    return bool(action.get("channel") and (action.get("content") or "").strip()) or (
        campaign_journey(campaign) is not None
    )


def unknown_params(node: ChainNode) -> list[str]:
    """Variables of a child's message that its inherited audience cannot fill.

    An inherited audience carries the source's targets (their fields) and nothing else; the only other
    values are the campaign's own parameters. Which names exist is the engine's (``campaigns.platform.registry``).
    """
    from campaigns.platform.registry import run_engine

    engine = run_engine()
    content = (node.chain_action or {}).get("content") or ""
    if engine is None or engine.unknown_variables is None or "{" not in content:
        return []
    return list(engine.unknown_variables(content))


def _reason(code: str, message: str, *, source_id: int | None, fields: list[str], **extra) -> dict:
    return {"code": code, "message": message, "source_campaign_id": source_id, "fields": fields, **extra}


def path_to(node: ChainNode, by_id: dict[int, ChainNode]) -> list[ChainNode] | None:
    """Children from the root's first child down to ``node`` (None if the chain is broken or cyclic)."""
    path: list[ChainNode] = []
    current = node
    seen: set[int] = set()
    while current.parent_id is not None:
        if current.id in seen:
            return None
        seen.add(current.id)
        path.append(current)
        current = by_id.get(current.parent_id)
        if current is None:
            return None
    path.reverse()
    return path


def node_reasons(node: ChainNode, by_id: dict[int, ChainNode], root: ChainNode, tz, now: datetime) -> list[dict]:
    """Why a chain child is not valid against its source and root (empty list: valid)."""
    if node.parent_id is None:
        return []
    parent = by_id.get(node.parent_id)
    source_id = node.parent_id
    inheritance = node.inheritance or {}
    if inheritance.get("type") not in InheritanceType.values:
        return [
            _reason("INHERITANCE_MISSING", "نوع ارث‌بری تعیین نشده است.", source_id=source_id, fields=["inheritance"])
        ]
    try:
        rs = sched.parse_root_schedule(root.root_schedule or {"type": "EVENT"})
        cs = sched.parse_child_schedule(inheritance.get("schedule"))
    except sched.ScheduleErrors as exc:
        return [
            _reason(
                "SCHEDULE_INVALID",
                "؛ ".join(m for ms in exc.errors.values() for m in ms),
                source_id=root.id,
                fields=list(exc.errors),
            )
        ]
    reasons: list[dict] = []
    structural = sched.compatibility_errors(cs, rs)
    if structural:
        code = "SOURCE_NOT_RECURRING" if "parent_campaign_id" in structural else "SCHEDULE_INCOMPATIBLE"
        reasons.append(
            _reason(
                code, "؛ ".join(m for ms in structural.values() for m in ms), source_id=root.id, fields=list(structural)
            )
        )
    if inheritance["type"] in GOAL_TYPES and not root.goal:
        reasons.append(
            _reason("GOAL_MISSING", "ریشه زنجیره هدفی (تعریف تبدیل) ندارد.", source_id=root.id, fields=["goal"])
        )
    if inheritance["type"] == InheritanceType.FAILED_DELIVERY and parent is not None and not has_channel(parent):
        reasons.append(
            _reason(
                "SOURCE_HAS_NO_CHANNEL",
                "منبع کانال ارسالی ندارد؛ «ارسال ناموفق» معنا ندارد.",
                source_id=source_id,
                fields=["inheritance.type"],
            )
        )
    unknown = unknown_params(node)
    if unknown:
        reasons.append(
            _reason(
                "PARAM_NOT_IN_SOURCE",
                f"متغیرهای {'، '.join(unknown)} در داده‌های مخاطبان منبع یا پارامترهای کمپین نیست.",
                source_id=source_id,
                fields=["chain_action.content"],
                params=unknown,
            )
        )
    if structural:
        return reasons
    path = path_to(node, by_id)
    if path is None:
        return reasons
    try:
        child_path = [sched.parse_child_schedule((n.inheritance or {}).get("schedule")) for n in path]
    except sched.ScheduleErrors:
        return reasons  # an ancestor is invalid; it carries its own reason
    error = sched.feasibility_errors(rs, child_path, tz, now)
    if error is not None:
        detail = dict(error.reasons[0])
        code = detail.pop("code")
        field_name = detail.pop("field")
        message = "؛ ".join(m for ms in error.errors.values() for m in ms)
        reasons.append(_reason(code, message, source_id=source_id, fields=[field_name], **detail))
    return reasons


def tree_reasons(nodes: list[ChainNode], tz, now: datetime) -> dict[int, list[dict]]:
    by_id = {n.id: n for n in nodes}
    roots = [n for n in nodes if n.parent_id is None]
    if not roots:
        return {}
    root = roots[0]
    return {n.id: node_reasons(n, by_id, root, tz, now) for n in nodes if n.parent_id is not None}


def apply_review(nodes: list[ChainNode], reasons: dict[int, list[dict]]) -> list[ChainNode]:
    """Set/clear needs_review from computed reasons; returns the nodes that changed."""
    changed = []
    for node in nodes:
        new = reasons.get(node.id, [])
        flag = bool(new)
        if node.needs_review != flag or (node.needs_review_reasons or []) != new:
            node.needs_review, node.needs_review_reasons = flag, new
            changed.append(node)
    return changed
