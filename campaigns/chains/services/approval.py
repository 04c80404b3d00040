"""Approval of chains: packages (submit/approve/reject/withdraw) and chain control.

A standalone campaign's approval, the four-eyes rule and the workspace's approval setting are the core's
(``campaigns.services.approval``, ``campaigns.approval_selectors``); ``campaign_submit`` hands a standalone
campaign over to it.

A chain is approved as one package holding a snapshot of every node. Submit
and approve are all-or-nothing transactions under the root's row lock; the
package named by ``root.approval_package`` is the only one that can be
decided, and only at the revision it was submitted with.
"""

from __future__ import annotations

import json

from django.conf import settings
from django.core.serializers.json import DjangoJSONEncoder
from django.db import transaction
from django.dispatch import Signal
from django.utils import timezone

from campaigns.approval_selectors import four_eyes
from campaigns.chains import schedule as sched
from campaigns.chains.approval_selectors import (
    load_chain,
    package_problems,
    package_warnings,
    validation_problems,
    workspace_zone,
)
from campaigns.chains.choices import ChainControl, PackageStatus
from campaigns.chains.errors import (
    ChainControlInvalid,
    ChainInvalid,
    ChainLocked,
    ChainSubmitted,
    NotChainRoot,
    PackageNotCurrent,
    PackageNotPending,
    PackageTooLarge,
)
from campaigns.chains.models import ChainApprovalPackage
from campaigns.chains.node_models import ChainNode
from campaigns.chains.nodes import node_get
from campaigns.chains.services.common import (
    NODE_BOOKKEEPING,
    bump_chain,
    chain_codes_assign,
    check_chain_revision,
    lock_roots,
)
from campaigns.chains.services.four_eyes import package_decided_notify, package_requested_notify
from campaigns.chains.tree import chain_state, is_root_alone
from campaigns.choices import CampaignStatus
from campaigns.platform.errors import NotFound, StaleRevision
from campaigns.platform.permissions import Perm
from campaigns.platform.registry import package_check
from campaigns.platform.tenancy import Actor, get_scoped
from campaigns.platform.text import text_check
from campaigns.services.approval import assert_may_approve, campaign_single_submit
from campaigns.services.lifecycle import campaign_assert_launch_clear, campaign_status_change_all

# Sent after commit when a chain is approved (the run scheduler registers the root's occurrences here).
chain_approved = Signal()


def snapshot_item(node: ChainNode) -> dict:
    """Everything a run needs from one node (content/action, goal, schedule, A/B seed, limits, config)."""
    item = {
        "campaign_id": node.id,
        "parent_campaign_id": node.parent_id,
        "root_campaign_id": node.root_id,
    }
    for f in ChainNode._meta.concrete_fields:
        if f.name in NODE_BOOKKEEPING:
            continue
        item[f.attname] = getattr(node, f.attname)
    return json.loads(json.dumps(item, cls=DjangoJSONEncoder))


# --------------------------------------------------------------------------- submit


def campaign_submit(
    *, actor: Actor, campaign_id: int, expected_chain_revision: int | None = None
) -> tuple[ChainNode, ChainApprovalPackage | None]:
    """A chain member submits the whole tree as one package; so does a root alone (a campaign with its own
    recurring schedule and no follow-ups yet: a chain of one, ``is_root_alone``). Any other standalone
    campaign uses single approval."""
    actor.require(Perm.MANAGE_CAMPAIGNS)
    campaign = node_get(actor.workspace, campaign_id)
    if campaign.root_id is None and not is_root_alone(campaign):
        return campaign_single_submit(actor=actor, campaign=campaign), None
    root_id = campaign.root_id or campaign.id
    with transaction.atomic():
        root = lock_roots(actor, [root_id]).get(root_id)
        if root is None:
            raise NotFound()
        check_chain_revision(root, expected_chain_revision)
        if root.root_id is None:  # a root alone becomes the root of its one-node chain (undone on a refusal)
            root.root_id = root.id
            ChainNode.objects.filter(pk=root.id).update(root_id=root.id)
        nodes = load_chain(actor, root)
        state = chain_state(nodes)
        if state == "submitted":
            raise ChainSubmitted("این زنجیره قبلاً برای تأیید ارسال شده است.")
        if state != "editable":
            raise ChainLocked()
        problems = validation_problems(actor, nodes)
        if problems:
            raise ChainInvalid(details={"nodes": problems})
        chain_codes_assign(nodes)  # validated: every node has its stable code from here on
        items = [snapshot_item(n) for n in nodes]
        size = len(json.dumps(items, ensure_ascii=False).encode())
        limit = settings.CHAINS_PACKAGE_MAX_BYTES
        if size > limit:
            raise PackageTooLarge(details={"size_bytes": size, "limit_bytes": limit})
        bump_chain(root.id)
        package = ChainApprovalPackage.objects.create(
            workspace=actor.workspace,
            root=root,
            submitted_revision=root.chain_revision + 1,
            items=items,
            submitted_at=timezone.now(),
            submitted_by=actor.user,
            four_eyes=four_eyes(actor.workspace),  # bound now: approval reads this, not the setting later
        )
        ChainNode.objects.filter(pk__in=[n.id for n in nodes]).update(needs_review=False, needs_review_reasons=[])
        campaign_status_change_all(
            nodes,
            "submit",
            actor=actor,
            extra_updates={"approval_package_id": package.id},
            event_data={"package": package.id},
            guarded=False,
        )
        package_requested_notify(package, root.name)
    campaign.refresh_from_db()
    return campaign, package


# --------------------------------------------------------------------------- decide


def _locked_package(actor: Actor, package_id) -> tuple[ChainApprovalPackage, ChainNode]:
    package = get_scoped(ChainApprovalPackage, actor.workspace, package_id)
    root = lock_roots(actor, [package.root_id]).get(package.root_id)
    package = ChainApprovalPackage.objects.select_for_update().get(pk=package.pk)
    if root is None:
        raise NotFound()
    return package, root


def _check_pending(package: ChainApprovalPackage, root: ChainNode, expected_submitted_revision: int) -> None:
    if package.status != PackageStatus.SUBMITTED:
        raise PackageNotPending(details={"status": package.status})
    if root.approval_package_id != package.id:
        raise PackageNotCurrent(details={"current_package_id": root.approval_package_id})
    if expected_submitted_revision != package.submitted_revision or root.chain_revision != package.submitted_revision:
        raise StaleRevision(
            details={"submitted_revision": package.submitted_revision, "current_chain_revision": root.chain_revision}
        )


def package_approve(
    *, actor: Actor, package_id: int, expected_submitted_revision: int
) -> tuple[ChainApprovalPackage, list[dict]]:
    """Whole tree → WAITING_SCHEDULE (``scheduled``); twice returns the same result and writes nothing."""
    actor.require(Perm.APPROVE_CHAINS)
    with transaction.atomic():
        package, root = _locked_package(actor, package_id)
        if (
            package.status == PackageStatus.APPROVED
            and root.approval_package_id == package.id
            and expected_submitted_revision == package.submitted_revision
        ):
            return package, package_warnings(actor, package)
        _check_pending(package, root, expected_submitted_revision)
        assert_may_approve(actor, package.submitted_by_id, bound_four_eyes=package.four_eyes)
        nodes = load_chain(actor, root)
        ids = {item["campaign_id"] for item in package.items}
        if {n.id for n in nodes} != ids or any(n.status != CampaignStatus.SUBMITTED for n in nodes):
            raise PackageNotCurrent("زنجیره با بسته ارسال‌شده یکسان نیست.")
        problems = validation_problems(actor, nodes)
        if problems:
            raise ChainInvalid(details={"nodes": problems})
        # what the runs would send: its blockers refuse (409 LAUNCH_BLOCKED; reads only, no network call)
        campaign_assert_launch_clear(check=package_check(actor=actor, package_id=package.id), doing="تأیید")
        chain_codes_assign(nodes)  # a package submitted before codes existed gets them now
        warnings = package_warnings(actor, package)
        ChainApprovalPackage.objects.filter(pk=package.pk).update(
            status=PackageStatus.APPROVED, decided_at=timezone.now(), decided_by=actor.user, updated_at=timezone.now()
        )
        campaign_status_change_all(nodes, "approve", actor=actor, event_data={"package": package.id}, guarded=False)
        ChainNode.objects.filter(pk=root.id).update(chain_control=ChainControl.NORMAL)
        rs = sched.parse_root_schedule(root.root_schedule)
        if next(sched.root_occurrences(rs, workspace_zone(actor), timezone.now()), None) is None:
            # Nothing left to run: the chain finishes at once; children never run.
            fresh = list(load_chain(actor, root))
            finished = {"actor": actor, "event_data": {"reason": "NO_FEASIBLE_RUN"}, "guarded": False}
            campaign_status_change_all(fresh, "activate", **finished)
            campaign_status_change_all(fresh, "complete", **finished)
        bump_chain(root.id)
        root_id = root.id
        transaction.on_commit(lambda: chain_approved.send(sender=ChainApprovalPackage, root_id=root_id))
        package_decided_notify(package, root.name, decider_id=actor.user.id, approved=True)
    package.refresh_from_db()
    return package, warnings


def package_reject(
    *, actor: Actor, package_id: int, expected_submitted_revision: int, reason: str
) -> ChainApprovalPackage:
    actor.require(Perm.APPROVE_CHAINS)
    text_check(texts={"reason": reason})
    return _close(actor, package_id, expected_submitted_revision, PackageStatus.REJECTED, "reject", reason)


def package_withdraw(*, actor: Actor, package_id: int, expected_submitted_revision: int) -> ChainApprovalPackage:
    actor.require(Perm.MANAGE_CAMPAIGNS)
    return _close(actor, package_id, expected_submitted_revision, PackageStatus.WITHDRAWN, "return_to_draft", "")


def _close(actor, package_id, expected, status, transition, reason) -> ChainApprovalPackage:
    with transaction.atomic():
        package, root = _locked_package(actor, package_id)
        _check_pending(package, root, expected)
        nodes = [n for n in load_chain(actor, root) if n.status == CampaignStatus.SUBMITTED]
        ChainApprovalPackage.objects.filter(pk=package.pk).update(
            status=status, decided_at=timezone.now(), decided_by=actor.user, reason=reason, updated_at=timezone.now()
        )
        campaign_status_change_all(nodes, transition, actor=actor, event_data={"package": package.id}, guarded=False)
        bump_chain(root.id)
        if status == PackageStatus.REJECTED:
            package_decided_notify(package, root.name, decider_id=actor.user.id, approved=False, reason=reason)
    package.refresh_from_db()
    return package


# --------------------------------------------------------------------------- chain control

_CONTROL = {
    "pause": ({ChainControl.NORMAL}, ChainControl.PAUSED),
    "resume": ({ChainControl.PAUSED}, ChainControl.NORMAL),
    "stop": ({ChainControl.NORMAL, ChainControl.PAUSED}, ChainControl.STOPPED),
}


def chain_control_set(*, actor: Actor, campaign_id: int, action: str, expected_chain_revision: int | None) -> ChainNode:
    """pause / resume / stop an approved chain at its root (children → 409)."""
    actor.require(Perm.MANAGE_CAMPAIGNS)
    allowed, target = _CONTROL[action]
    campaign = node_get(actor.workspace, campaign_id)
    if campaign.root_id is None or campaign.root_id != campaign.id:
        raise NotChainRoot()
    with transaction.atomic():
        root = lock_roots(actor, [campaign.id])[campaign.id]
        check_chain_revision(root, expected_chain_revision)
        if chain_state(load_chain(actor, root)) not in ("locked",):
            raise ChainControlInvalid("کنترل زنجیره فقط برای زنجیره تأییدشده و تمام‌نشده ممکن است.")
        if root.chain_control not in allowed:
            raise ChainControlInvalid(details={"chain_control": root.chain_control, "action": action})
        ChainNode.objects.filter(pk=root.id).update(chain_control=target)
        bump_chain(root.id)
        from campaigns.chains.runs.control import chain_control_effects

        chain_control_effects(actor=actor, root=root, nodes=load_chain(actor, root), action=action, now=timezone.now())
    campaign.refresh_from_db()
    return campaign


__all__ = [
    "campaign_submit",
    "chain_control_set",
    "package_approve",
    "package_problems",
    "package_reject",
    "package_warnings",
    "package_withdraw",
    "snapshot_item",
]
