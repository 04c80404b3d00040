"""Races on real PostgreSQL: two threads, two connections, two real transactions (no mocks of the database).

Each test widens the race window by pausing the first transaction right after
it took its lock, so the second one really runs while the first is open.
"""

import threading
import time

import pytest
from django.db import connection, connections

from campaigns.chains.choices import GroupStatus, PackageStatus
from campaigns.chains.models import CampaignGroup, ChainApprovalPackage
from campaigns.chains.services import approval, chains, common, groups
from campaigns.choices import CampaignStatus
from campaigns.models import Campaign
from campaigns.platform.errors import PlatformError

from ..conftest import make_actor, make_campaign, make_workspace
from .conftest import make_chain, make_group

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(connection.vendor != "postgresql", reason="row locks need PostgreSQL"),
]


def run_pair(first, second, *, stagger: float = 0.15):
    """Start ``first``, then ``second`` while ``first`` is still inside its transaction."""
    results: dict[str, object] = {}

    def wrap(name, fn):
        try:
            results[name] = fn()
        except PlatformError as exc:
            results[name] = exc
        finally:
            connections.close_all()

    t1 = threading.Thread(target=wrap, args=("first", first))
    t2 = threading.Thread(target=wrap, args=("second", second))
    t1.start()
    time.sleep(stagger)
    t2.start()
    t1.join(30)
    t2.join(30)
    return results["first"], results["second"]


def slow(module, name, seconds: float = 0.6, only_first: bool = True):
    """Wrap ``module.name`` so that its first caller holds the transaction open a little longer."""
    original = getattr(module, name)
    state = {"calls": 0}

    def wrapper(*args, **kwargs):
        result = original(*args, **kwargs)
        state["calls"] += 1
        if not only_first or state["calls"] == 1:
            time.sleep(seconds)
        return result

    return original, wrapper


def errors_of(*results):
    return [r for r in results if isinstance(r, Exception)]


def test_two_renames_to_the_same_name(monkeypatch):
    workspace = make_workspace("race")
    actor = make_actor(workspace)
    one, two = make_group(workspace, "یک"), make_group(workspace, "دو")
    _original, wrapper = slow(groups, "_name_taken", 0.5, only_first=False)
    monkeypatch.setattr(groups, "_name_taken", wrapper)  # both pass the pre-check: the unique index decides
    a, b = run_pair(
        lambda: groups.group_update(actor=actor, group_id=one.id, name="Same", expected_revision=1),
        lambda: groups.group_update(actor=actor, group_id=two.id, name="SAME", expected_revision=1),
        stagger=0.05,
    )
    failures = errors_of(a, b)
    assert len(failures) == 1 and failures[0].code == "GROUP_NAME_TAKEN"
    assert CampaignGroup.objects.filter(workspace=workspace, name_key="same").count() == 1


def test_two_reparents_creating_a_cycle(monkeypatch):
    workspace = make_workspace("race")
    actor = make_actor(workspace)
    group = make_group(workspace)
    one, two = make_chain(workspace, group), make_chain(workspace, group)
    _original, wrapper = slow(chains, "lock_roots")
    monkeypatch.setattr(chains, "lock_roots", wrapper)
    x, y = one["B"], two["B"]
    a, b = run_pair(
        lambda: chains.chain_campaign_update(
            actor=actor,
            campaign_id=x.id,
            data={"parent_campaign_id": y.id},
            expected_chain_revision=1,
            expected_target_chain_revision=1,
        ),
        lambda: chains.chain_campaign_update(
            actor=actor,
            campaign_id=y.id,
            data={"parent_campaign_id": x.id},
            expected_chain_revision=1,
            expected_target_chain_revision=1,
        ),
    )
    failures = errors_of(a, b)
    assert len(failures) == 1 and failures[0].http_status == 409, (a, b)
    x.refresh_from_db()
    y.refresh_from_db()
    assert not (x.parent_id == y.id and y.parent_id == x.id)  # never a cycle
    assert x.parent_id == y.id  # the first one won


def test_two_reparents_without_expected_target_revision_still_no_cycle(monkeypatch):
    """Even when the second caller read fresh revisions, the root lock re-validates the branch after waiting."""
    workspace = make_workspace("race")
    actor = make_actor(workspace)
    group = make_group(workspace)
    chain = make_chain(workspace, group, shape="A>B,A>C")
    _original, wrapper = slow(chains, "lock_roots")
    monkeypatch.setattr(chains, "lock_roots", wrapper)
    b, c = chain["B"], chain["C"]
    first, second = run_pair(
        lambda: chains.chain_campaign_update(
            actor=actor, campaign_id=b.id, data={"parent_campaign_id": c.id}, expected_chain_revision=1
        ),
        lambda: chains.chain_campaign_update(
            actor=actor, campaign_id=c.id, data={"parent_campaign_id": b.id}, expected_chain_revision=1
        ),
    )
    assert len(errors_of(first, second)) == 1
    b.refresh_from_db()
    c.refresh_from_db()
    assert not (b.parent_id == c.id and c.parent_id == b.id)


def test_delete_vs_add_never_leaves_a_campaign_in_a_deleted_group(monkeypatch):
    workspace = make_workspace("race")
    actor = make_actor(workspace)
    group = make_group(workspace)
    campaign = make_campaign(workspace)
    _original, wrapper = slow(groups, "unfinished_chain_roots")
    monkeypatch.setattr(groups, "unfinished_chain_roots", wrapper)  # delete holds the group lock
    a, b = run_pair(
        lambda: groups.group_delete(actor=actor, group_id=group.id, expected_revision=1),
        lambda: groups.group_add_campaigns(actor=actor, group_id=group.id, campaign_ids=[campaign.id]),
    )
    assert a is None  # the delete went first and succeeded
    assert isinstance(b, groups.GroupDeleted)
    campaign.refresh_from_db()
    group.refresh_from_db()
    assert group.status == GroupStatus.DELETED and campaign.group_id is None


def test_add_vs_delete_add_first_then_delete_detaches(monkeypatch):
    workspace = make_workspace("race")
    actor = make_actor(workspace)
    group = make_group(workspace)
    campaign = make_campaign(workspace)
    _original, wrapper = slow(groups, "bump_group")
    monkeypatch.setattr(groups, "bump_group", wrapper)  # add holds the group row lock
    a, b = run_pair(
        lambda: groups.group_add_campaigns(actor=actor, group_id=group.id, campaign_ids=[campaign.id]),
        lambda: groups.group_delete(actor=actor, group_id=group.id, expected_revision=2),
    )
    assert a.added_ids == [campaign.id] and b is None
    campaign.refresh_from_db()
    assert campaign.group_id is None  # detached by the delete that waited for the add


def test_approve_vs_edit(monkeypatch):
    workspace = make_workspace("race")
    actor = make_actor(workspace)
    group = make_group(workspace)
    chain = make_chain(workspace, group)
    _, package = approval.campaign_submit(actor=actor, campaign_id=chain["A"].id, expected_chain_revision=1)
    _original, wrapper = slow(approval, "lock_roots")
    monkeypatch.setattr(approval, "lock_roots", wrapper)
    a, b = run_pair(
        lambda: approval.package_approve(actor=actor, package_id=package.id, expected_submitted_revision=2),
        lambda: chains.chain_campaign_update(
            actor=actor, campaign_id=chain["B"].id, data={"name": "ویرایش"}, expected_chain_revision=2
        ),
    )
    assert not isinstance(a, Exception), a
    assert isinstance(b, PlatformError) and b.http_status == 409
    b_node = Campaign.objects.get(pk=chain["B"].id)
    assert b_node.name != "ویرایش" and b_node.status == CampaignStatus.SCHEDULED
    assert ChainApprovalPackage.objects.get(pk=package.id).status == PackageStatus.APPROVED


def test_edit_vs_approve(monkeypatch):
    workspace = make_workspace("race")
    actor = make_actor(workspace)
    group = make_group(workspace)
    chain = make_chain(workspace, group)
    _, package = approval.campaign_submit(actor=actor, campaign_id=chain["A"].id, expected_chain_revision=1)
    _original, wrapper = slow(common, "withdraw_current_package")
    monkeypatch.setattr(chains, "withdraw_current_package", wrapper)
    a, b = run_pair(
        lambda: chains.chain_campaign_update(
            actor=actor, campaign_id=chain["B"].id, data={"name": "ویرایش"}, expected_chain_revision=2
        ),
        lambda: approval.package_approve(actor=actor, package_id=package.id, expected_submitted_revision=2),
    )
    assert not isinstance(a, Exception), a
    assert isinstance(b, PlatformError) and b.http_status == 409
    assert ChainApprovalPackage.objects.get(pk=package.id).status == PackageStatus.WITHDRAWN
    assert set(Campaign.objects.filter(root_id=chain["A"].id).values_list("status", flat=True)) == {
        CampaignStatus.DRAFT
    }
