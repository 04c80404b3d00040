"""Reads for the chain pages, built on the selectors the API uses (always tenant-scoped)."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.db.models import QuerySet

from campaigns.approval_selectors import approvers, single_submission
from campaigns.chains import selectors
from campaigns.chains.approval_selectors import ACTION_MISSING, package_problems, package_warnings
from campaigns.chains.audience import audience_problems
from campaigns.chains.choices import PackageStatus
from campaigns.chains.filters import CampaignGroupFilter
from campaigns.chains.models import ChainApprovalPackage
from campaigns.chains.node_models import ChainNode
from campaigns.chains.page_forms import (
    action_text,
    audience_text,
    child_schedule_text,
    filters_text,
    goal_text,
    inheritance_text,
    list_id_text,
    root_schedule_text,
)
from campaigns.chains.runs import selectors as run_selectors
from campaigns.chains.tree import INDEPENDENT, has_action, is_root_alone
from campaigns.choices import CampaignStatus
from campaigns.models import TargetList
from campaigns.platform.registry import campaign_check, run_engine
from campaigns.platform.tenancy import Actor, scoped

# Campaign counts shown per group (the rest are folded into "other").
COUNTED_STATUSES = [
    CampaignStatus.DRAFT,
    CampaignStatus.SUBMITTED,
    CampaignStatus.SCHEDULED,
    CampaignStatus.ACTIVE,
    CampaignStatus.PAUSED,
    CampaignStatus.COMPLETED,
]


def group_rows(*, actor: Actor, query: str) -> QuerySet:
    """Active groups filtered exactly like ``GET /campaign-groups?query=`` (accent-insensitive, literal)."""
    filterset = CampaignGroupFilter({"query": query}, queryset=selectors.group_queryset(actor=actor))
    return filterset.qs


def attach_counts(*, actor: Actor, groups: list) -> list:
    selectors.attach_campaign_counts(actor=actor, groups=groups)
    for group in groups:
        counts = group.campaign_counts
        group.count_rows = [
            (status.value, status.label, counts.get(status.value, 0))
            for status in COUNTED_STATUSES
            if counts.get(status.value)
        ]
    return groups


def _decorate(node: dict, summaries: dict, names: dict, roots: dict, actor: Actor) -> None:
    summary = summaries.get(node["campaign_id"]) or {}
    node["status_label"] = CampaignStatus(node["status"]).label if node["status"] in CampaignStatus.values else ""
    node["inheritance_label"] = summary.get("inheritance_label")
    node["timing_text"] = child_schedule_text((node.get("inheritance") or {}).get("schedule"))
    node["latest_run"] = summary.get("latest_run")
    node["latest_run_count"] = summary.get("latest_run_count")
    node["source_name"] = names.get(node["parent_campaign_id"])
    root = roots.get(node["campaign_id"])
    if root is not None and root.root_id is None:  # an independent campaign: single approval, its own revision
        node["revision"] = root.revision
        if root.status == CampaignStatus.SUBMITTED:
            submission = single_submission(root, actor.workspace)
            node["submitted_by_id"] = submission.submitter_id
            node["four_eyes"] = submission.four_eyes
            # the launch check's blockers disable its «تأیید کمپین» (the service refuses them all the same)
            node["launch_blockers"] = (campaign_check(actor=actor, campaign_id=root.id) or {}).get("blockers") or []
    if root is not None:
        node["chain_revision"] = root.chain_revision
        node["chain_control"] = root.chain_control
        node["chain_control_label"] = root.get_chain_control_display()
        node["approval_package_id"] = root.approval_package_id
        node["schedule_text"] = root_schedule_text(root.root_schedule)
        target_list = root.source_target_list
        node["audience_text"] = audience_text(target_list.name if target_list else None, root.audience_filters)
    for child in node["children"]:
        _decorate(child, summaries, names, roots, actor)


def _mark_blockers(tree_roots: list[dict], roots: dict) -> None:
    """What would refuse the submit of a root (of a chain, or alone), marked on its node before anyone presses
    «ارسال برای تأیید»: its audience (none chosen, or reaching nobody now) and a missing message — the submit's
    own checks and words (``validation_problems``); a follow-up's problems are the review reasons already shown."""
    for top in tree_roots:
        root = roots.get(top["campaign_id"])
        if root is None or "submit" not in top["allowed_actions"]:
            continue
        if root.root_id is None and not is_root_alone(root):
            continue  # a standalone campaign's single approval checks none of these
        top["blockers"] = audience_problems(root) + ([] if has_action(root) else [dict(ACTION_MISSING)])


def _walk(nodes: list[dict]):
    for node in nodes:
        yield node
        yield from _walk(node["children"])


def group_tree(*, actor: Actor, group_id, query: str, page: int, size: int = 20) -> dict:
    """``campaign_tree`` (the API's tree) plus, per node, the run summary and, per root, revision and control."""
    tree = selectors.campaign_tree(actor=actor, group_id=group_id, query=query, page=page, size=size)
    nodes = list(_walk(tree["roots"]))
    names = {n["campaign_id"]: n["name"] for n in nodes}
    top_ids = [n["campaign_id"] for n in tree["roots"]]
    roots = {
        c.id: c for c in scoped(ChainNode, actor.workspace).filter(pk__in=top_ids).select_related("source_target_list")
    }
    summaries = {n["campaign_id"]: run_selectors.run_summary(actor=actor, campaign_id=n["campaign_id"]) for n in nodes}
    for node in tree["roots"]:
        _decorate(node, summaries, names, roots, actor)
    _mark_blockers(tree["roots"], roots)
    tree["pages"] = max(1, -(-tree["total_root_items"] // size))
    return tree


def package_queryset(*, actor: Actor, status: str = "", root_id: int | None = None) -> QuerySet:
    qs = scoped(ChainApprovalPackage, actor.workspace).select_related("root", "submitted_by", "decided_by")
    if status in PackageStatus.values:
        qs = qs.filter(status=status)
    if root_id is not None:
        qs = qs.filter(root_id=root_id)
    return qs.order_by("-created_at", "-id")


DIFF_FIELDS = [
    ("source_target_list_id", "فهرست مخاطبان", list_id_text),
    ("audience_filters", "فیلتر مخاطبان", filters_text),
    ("name", "نام", None),
    ("description", "توضیحات", None),
    ("parent_campaign_id", "منبع", None),
    ("root_schedule", "زمان‌بندی ریشه", root_schedule_text),
    ("inheritance", "ارث‌بری", inheritance_text),
    ("goal", "هدف", goal_text),
    ("attribution_window_days", "بازه انتساب (روز)", None),
    ("chain_action", "اقدام", action_text),
]


def _item_row(item: dict, names: dict, list_names: dict | None = None) -> dict:
    is_root = item.get("parent_campaign_id") is None
    list_name = (list_names or {}).get(item.get("source_target_list_id"))
    return {
        "audience": audience_text(list_name, item.get("audience_filters")) if is_root else "از اجرای منبع",
        "campaign_id": item.get("campaign_id"),
        "chain_code": item.get("chain_code") or "",
        "name": item.get("name") or f"#{item.get('campaign_id')}",
        "is_root": item.get("parent_campaign_id") is None,
        "source_name": names.get(item.get("parent_campaign_id")),
        "schedule": root_schedule_text(item.get("root_schedule"))
        if item.get("parent_campaign_id") is None
        else inheritance_text(item.get("inheritance")),
        "goal": goal_text(item.get("goal")),
        "action": action_text(item.get("chain_action")),
        "window": item.get("attribution_window_days"),
    }


def _shown(field: str, fmt, value, names: dict, list_names: dict) -> str:
    if field == "parent_campaign_id":
        return names.get(value) or ("—" if value is None else f"#{value}")
    if field == "source_target_list_id" and value in list_names:
        return f"فهرست «{list_names[value]}»"
    if fmt is not None:
        return fmt(value)
    return "—" if value in (None, "") else str(value)


def snapshot_diff(previous: list[dict], current: list[dict], *, list_names: dict | None = None) -> list[dict]:
    """Per campaign: added, removed or the configuration fields that changed since the previous package.

    ``list_names`` ({list id: name}) names an audience list; a list no longer found keeps its number."""
    list_names = list_names or {}
    names = {i["campaign_id"]: i.get("name") for i in [*previous, *current]}
    old = {i["campaign_id"]: i for i in previous}
    new = {i["campaign_id"]: i for i in current}
    result = []
    for campaign_id, item in new.items():
        if campaign_id not in old:
            result.append({"kind": "added", "name": names[campaign_id], "lines": []})
            continue
        lines = []
        for field, label, fmt in DIFF_FIELDS:
            before, after = old[campaign_id].get(field), item.get(field)
            if before != after:
                lines.append(
                    {
                        "label": label,
                        "old": _shown(field, fmt, before, names, list_names),
                        "new": _shown(field, fmt, after, names, list_names),
                    }
                )
        if lines:
            result.append({"kind": "changed", "name": names[campaign_id], "lines": lines})
    for campaign_id in old.keys() - new.keys():
        result.append({"kind": "removed", "name": names[campaign_id], "lines": []})
    return result


def package_page(*, actor: Actor, package_id) -> dict:
    """The package (404 for another workspace's), its snapshot as readable rows and the diff to the previous one."""
    package = selectors.package_get(actor=actor, package_id=package_id)
    root = scoped(ChainNode, actor.workspace).filter(pk=package.root_id).first()
    is_current = root is not None and root.approval_package_id == package.id
    names = {i["campaign_id"]: i.get("name") for i in package.items}
    previous = (
        package_queryset(actor=actor, root_id=package.root_id)
        .filter(created_at__lt=package.created_at)
        .exclude(pk=package.pk)
        .first()
    )
    items = [*package.items, *(previous.items if previous else [])]
    list_ids = {i.get("source_target_list_id") for i in items} - {None}
    list_names = dict(scoped(TargetList, actor.workspace).filter(pk__in=list_ids).values_list("id", "name"))
    return {
        "package": package,
        "root": root,
        "is_current": is_current,
        "rows": [_item_row(item, names, list_names) for item in package.items],
        "problems": package_problems(actor, package),
        "four_eyes": package.four_eyes,
        "approvers": approvers(
            actor.workspace, submitter_id=package.submitted_by_id, bound_four_eyes=package.four_eyes
        ),
        "own_package": package.four_eyes and package.submitted_by_id == actor.user.id,
        "warnings": package_warnings(actor, package) if package.status == PackageStatus.SUBMITTED else [],
        "previous": previous,
        "diff": snapshot_diff(previous.items, package.items, list_names=list_names) if previous else None,
        "migrations": member_migrations(actor, names),
    }


def member_migrations(actor: Actor, names: dict[int, str]) -> list[dict]:
    """Who moved the members' executions to a newer version of their workflow (the engine's record), each with
    the members it reached by name."""
    engine = run_engine()
    if engine is None or engine.migrations is None or not names:
        return []
    rows = engine.migrations(workspace_id=actor.workspace.id, campaign_ids=list(names))
    return [r | {"members": [names[i] for i in r["campaign_ids"] if i in names]} for r in rows]


def free_campaigns(*, actor: Actor, limit: int = 100) -> list[ChainNode]:
    """Independent campaigns in no group and no chain, newest first (what a group can take in)."""
    qs = scoped(ChainNode, actor.workspace).filter(INDEPENDENT)
    return list(qs.exclude(status__in=[CampaignStatus.COMPLETED, CampaignStatus.CANCELLED]).order_by("-id")[:limit])


def other_groups(*, actor: Actor, group_id: int, limit: int = 100) -> list:
    """The workspace's other ACTIVE groups, by name (where an independent campaign can move)."""
    return list(selectors.group_queryset(actor=actor).exclude(pk=group_id).order_by("name_key", "id")[:limit])


def pending_single_campaigns(*, actor: Actor, limit: int = 50) -> list[ChainNode]:
    """Standalone campaigns (no chain) waiting for single-campaign approval, oldest first, with who submitted."""
    qs = scoped(ChainNode, actor.workspace).filter(
        status=CampaignStatus.SUBMITTED, root__isnull=True, parent__isnull=True, deleted_at__isnull=True
    )
    campaigns = list(qs.select_related("group").order_by("updated_at", "id")[:limit])
    submissions = {c.id: single_submission(c, actor.workspace) for c in campaigns}
    users = get_user_model().objects.in_bulk([s.submitter_id for s in submissions.values() if s.submitter_id])
    for campaign in campaigns:
        submission = submissions[campaign.id]
        campaign.submitted_by_id = submission.submitter_id
        campaign.submitted_by = users.get(campaign.submitted_by_id)
        campaign.own_submission = submission.four_eyes and campaign.submitted_by_id == actor.user.id
    return campaigns
