"""Shared write helpers: root locks (the chain's one write point), revision bumps, package withdrawal.

Status changes of chain nodes go through the campaign lifecycle (``campaigns.services.lifecycle``) with
``guarded=False``: these services are the chain's own approval and control.
"""

from __future__ import annotations

from django.db.models import F
from django.utils import timezone

from campaigns.chains.choices import PackageStatus
from campaigns.chains.errors import StaleChainRevision
from campaigns.chains.models import ChainApprovalPackage
from campaigns.chains.node_models import ChainNode
from campaigns.choices import CampaignStatus
from campaigns.platform.errors import ValidationFailed
from campaigns.platform.tenancy import Actor
from campaigns.services.lifecycle import campaign_status_change_all

# A node's bookkeeping and links, never its configuration: left out of an approval snapshot and of a copy.
NODE_BOOKKEEPING = frozenset(
    {
        "id",
        "campaign",  # the child row's link to its campaign
        "parent",
        "root",
        "workspace",
        "status",
        "revision",
        "created_at",
        "updated_at",
        "created_by",
        "deleted_at",
        "approval_package",
        "chain_revision",
        "chain_control",
        "needs_review",
        "needs_review_reasons",
        "paused_at",  # operational state of other kinds
        "paused_by",
    }
)


def lock_roots(actor: Actor, root_ids) -> dict[int, ChainNode]:
    """SELECT … FOR UPDATE the chain roots in id order (no deadlock between opposite moves)."""
    ids = sorted({i for i in root_ids if i is not None})
    locked = list(
        ChainNode.objects.select_for_update()
        .filter(pk__in=ids, workspace=actor.workspace, deleted_at__isnull=True)
        .order_by("id")
    )
    return {c.id: c for c in locked}


def check_chain_revision(root: ChainNode, expected: int | None, field_name: str = "expected_chain_revision") -> None:
    if expected is None:
        raise ValidationFailed.field(field_name, "نسخه زنجیره (expected_chain_revision) لازم است.")
    if root.chain_revision != expected:
        raise StaleChainRevision(details={"current_chain_revision": root.chain_revision, "root_campaign_id": root.id})


def bump_chain(root_id: int) -> None:
    ChainNode.objects.filter(pk=root_id).update(chain_revision=F("chain_revision") + 1, updated_at=timezone.now())


def withdraw_current_package(actor: Actor, root: ChainNode, nodes: list[ChainNode], *, reason: str) -> None:
    """Package → WITHDRAWN, SUBMITTED nodes → draft (inside the caller's transaction)."""
    package_id = root.approval_package_id
    if package_id is not None:
        ChainApprovalPackage.objects.filter(pk=package_id, status=PackageStatus.SUBMITTED).update(
            status=PackageStatus.WITHDRAWN,
            decided_at=timezone.now(),
            decided_by=actor.user,
            reason=reason,
            updated_at=timezone.now(),
        )
    submitted = [n for n in nodes if n.status == CampaignStatus.SUBMITTED]
    campaign_status_change_all(submitted, "return_to_draft", actor=actor, event_data={"reason": reason}, guarded=False)


def chain_codes_assign(nodes: list[ChainNode]) -> None:
    """Give every node of a validated chain that has no chain code its own (caller's transaction).

    A code, once given, never changes (a resubmitted or re-validated chain keeps it): the run's execution keys
    are built from it. A collision with another node's code (unique over every workspace) draws again."""
    from django.db import IntegrityError, transaction

    from campaigns.chains.node_models import new_chain_code

    for node in nodes:
        if node.chain_code:
            continue
        for _ in range(5):
            try:
                with transaction.atomic():  # a savepoint: a collision leaves the outer transaction usable
                    ChainNode.objects.filter(pk=node.pk, chain_code="").update(chain_code=new_chain_code())
                break
            except IntegrityError:
                continue
        node.chain_code = ChainNode.objects.filter(pk=node.pk).values_list("chain_code", flat=True).get()
