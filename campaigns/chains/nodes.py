"""Chain rows of campaigns the core created: made when chains first needs them, never before.

A journey, SMS or browser campaign has no ``ChainNode`` row until a chains endpoint or page takes it (its
detail, an edit, submit, clone, a group add …): ``node_get`` and ``node_rows_ensure`` insert the row with the
defaults (not in a group, not in a chain, a fresh A/B seed), inserting only the chains table. Reads over
many campaigns never create rows: a missing row reads as those defaults (``node_of`` → None, the group
filter's ``chain__group`` lookup is an outer join).
"""

from __future__ import annotations

from django.db import IntegrityError, transaction

from campaigns.chains.node_models import ChainNode
from campaigns.models import Campaign
from campaigns.platform.tenancy import get_scoped


def node_rows_ensure(*, workspace, campaign_ids) -> None:
    """Give each campaign of the workspace among these ids its chains row (defaults) if it has none."""
    ids = []
    for value in campaign_ids:
        try:
            ids.append(int(value))
        except (TypeError, ValueError):
            continue
    if not ids:
        return
    missing = Campaign.objects.filter(pk__in=ids, workspace=workspace, chain__isnull=True)
    for campaign in missing:
        node = ChainNode(campaign_id=campaign.pk)
        for field in Campaign._meta.concrete_fields:
            setattr(node, field.attname, getattr(campaign, field.attname))
        try:
            with transaction.atomic():  # a savepoint: a row inserted meanwhile leaves the caller's work usable
                node.save_base(raw=True)  # the chains table only; the campaign's row is the core's
        except IntegrityError:
            continue


def node_get(workspace, campaign_id, *, queryset=None) -> ChainNode:
    """One campaign of the workspace as chains sees it (its row made first if it had none), or NotFound."""
    node_rows_ensure(workspace=workspace, campaign_ids=[campaign_id])
    return get_scoped(ChainNode, workspace, campaign_id, queryset=queryset)


def node_of(campaign: Campaign) -> ChainNode | None:
    """The campaign's chains row, or None (a campaign chains never took: no group, no chain)."""
    if isinstance(campaign, ChainNode):
        return campaign
    try:
        return campaign.chain
    except ChainNode.DoesNotExist:
        return None
