"""Reads of chain approval: what blocks a package, what a late approval misses (who may approve, four eyes
and the workspace settings are the core's: ``campaigns.approval_selectors``).

The approval service, the chain pages and the API read them here; the service's writes stay in
``campaigns.chains.services.approval`` / ``four_eyes``.
"""

from __future__ import annotations

from datetime import timedelta

from django.utils import timezone

from campaigns.chains import schedule as sched
from campaigns.chains.audience import audience_problems
from campaigns.chains.choices import PackageStatus
from campaigns.chains.models import ChainApprovalPackage
from campaigns.chains.node_models import ChainNode
from campaigns.chains.tree import chain_queryset, has_action, tree_reasons
from campaigns.platform.tenancy import Actor

ACTION_MISSING = {
    "code": "ACTION_MISSING",
    "message": "کمپین اقدامی (کانال و محتوا یا گردش‌کار) ندارد.",
    "fields": ["chain_action"],
    "source_campaign_id": None,
}


def load_chain(actor: Actor, root: ChainNode) -> list[ChainNode]:
    """All live nodes of the chain (fresh, after the root lock); an independent campaign alone."""
    if root.root_id is None:
        return [root]
    nodes = list(chain_queryset(actor.workspace, root.id))
    return nodes or [root]


def workspace_zone(actor: Actor):
    return sched.workspace_zone(actor.workspace)


def validation_problems(actor: Actor, nodes: list[ChainNode]) -> list[dict]:
    reasons = tree_reasons(nodes, workspace_zone(actor), timezone.now())
    problems = []
    for node in nodes:
        node_problems = list(reasons.get(node.id, []))
        if node.parent_id is None:
            try:
                rs = sched.parse_root_schedule(node.root_schedule or {"type": "EVENT"})
                recurring = rs.recurring
            except sched.ScheduleErrors:
                recurring = False
            if not recurring:
                node_problems.append(
                    {
                        "code": "ROOT_SCHEDULE_MISSING",
                        "message": "ریشه زنجیره زمان‌بندی تکرارشونده ندارد.",
                        "fields": ["when"],
                        "source_campaign_id": None,
                    }
                )
        if node.parent_id is None and node.root_id is not None:
            node_problems.extend(audience_problems(node))
        if node.needs_review and not node_problems:
            node.needs_review, node.needs_review_reasons = False, []  # fixed meanwhile: cleared below
        if not has_action(node):
            node_problems.append(dict(ACTION_MISSING))
        if node_problems:
            problems.append({"campaign_id": node.id, "name": node.name, "reasons": node_problems})
    return problems


def package_problems(actor: Actor, package: ChainApprovalPackage) -> list[dict]:
    """What blocks approving a pending package now (the same checks approval runs), [] once decided."""
    root = ChainNode.objects.filter(pk=package.root_id, workspace=actor.workspace, deleted_at=None).first()
    if package.status != PackageStatus.SUBMITTED or root is None or root.approval_package_id != package.id:
        return []
    return validation_problems(actor, load_chain(actor, root))


def package_warnings(actor: Actor, package: ChainApprovalPackage, now=None) -> list[dict]:
    """Late approval: children whose turn in the current period has passed (that period gets no run)."""
    now = now or timezone.now()
    tz = workspace_zone(actor)
    items = {item["campaign_id"]: item for item in package.items}
    root_item = items.get(package.root_id)
    if not root_item:
        return []
    try:
        rs = sched.parse_root_schedule(root_item.get("root_schedule") or {"type": "EVENT"})
    except sched.ScheduleErrors:
        return []
    if not rs.recurring:
        return []
    current = None
    for period in sched.root_periods(rs, tz, now - timedelta(days=40), sched.MAX_PERIODS):
        if period.start > now:
            break
        current = period
    if current is None or (current.next_start is not None and current.next_start <= now):
        return []
    warnings = []
    for campaign_id, item in items.items():
        path = []
        node = item
        while node and node.get("parent_campaign_id"):
            path.append(node)
            node = items.get(node["parent_campaign_id"])
        if not path:
            continue
        try:
            schedules = [
                sched.parse_child_schedule((n.get("inheritance") or {}).get("schedule")) for n in reversed(path)
            ]
        except sched.ScheduleErrors:
            continue
        _, planned = sched.plan_path(schedules, current, tz)
        if planned is None or planned <= now:
            warnings.append(
                {
                    "code": "NO_FEASIBLE_RUN_IN_CURRENT_PERIOD",
                    "campaign_id": campaign_id,
                    "period_start": current.start.isoformat(),
                    "planned_child_at": planned.isoformat() if planned else None,
                    "message": "زمان اجرای این کمپین در دوره جاری گذشته است؛ نخستین اجرا در دوره بعد است.",
                }
            )
    return warnings
