"""Races on real PostgreSQL: two threads, two connections, two real transactions (no mocks of the database).

Each test holds the first transaction open right after it took its lock (an event, not a timer), starts the
second one and releases the first only once PostgreSQL reports the second as waiting for that lock, so the
second really runs while the first is open.
"""

import threading

import pytest
from django.db import connection, connections

from campaigns.chains.choices import GroupStatus, PackageStatus
from campaigns.chains.models import CampaignGroup, ChainApprovalPackage, ChainNode
from campaigns.chains.services import approval, chains, groups
from campaigns.choices import CampaignStatus
from campaigns.platform.errors import PlatformError

from ..conftest import make_actor, make_campaign, make_workspace
from .conftest import group_of, make_chain, make_group

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(connection.vendor != "postgresql", reason="row locks need PostgreSQL"),
]

TIMEOUT = 30  # seconds; only reached when a test is broken


class Hold:
    """Wraps ``module.name`` so that its first caller keeps its transaction open until released."""

    def __init__(self, monkeypatch, module, name):
        self.reached = threading.Event()
        self.release = threading.Event()
        self._taken = threading.Lock()
        self._first = True
        original = getattr(module, name)

        def wrapper(*args, **kwargs):
            result = original(*args, **kwargs)
            with self._taken:
                first, self._first = self._first, False
            if first:
                self.reached.set()
                assert self.release.wait(TIMEOUT), "the held transaction was never released"
            return result

        monkeypatch.setattr(module, name, wrapper)


def _backend_is_waiting_for_lock(pid: int) -> bool:
    with connection.cursor() as cursor:
        cursor.execute("SELECT wait_event_type FROM pg_stat_activity WHERE pid = %s", [pid])
        row = cursor.fetchone()
    return bool(row) and row[0] == "Lock"


def _runner(results: dict, name: str, fn, pid_box: dict | None = None):
    def run():
        try:
            if pid_box is not None:
                with connection.cursor() as cursor:
                    cursor.execute("SELECT pg_backend_pid()")
                    pid_box["pid"] = cursor.fetchone()[0]
                pid_box["known"].set()
            results[name] = fn()
        except PlatformError as exc:
            results[name] = exc
        finally:
            connections.close_all()

    return threading.Thread(target=run)


def run_pair(first, second, *, hold: Hold):
    """Run ``first`` up to the held call, then ``second`` until PostgreSQL shows it waiting for a lock
    the first one holds, then let the first one finish."""
    results: dict[str, object] = {}
    pid_box: dict = {"known": threading.Event()}
    t1 = _runner(results, "first", first)
    t2 = _runner(results, "second", second, pid_box)
    t1.start()
    reached = hold.reached.wait(TIMEOUT)
    if not reached:
        hold.release.set()
        t1.join(TIMEOUT)
        pytest.fail(f"the first transaction never reached the held call: {results.get('first')!r}")
    t2.start()
    waited = False
    try:
        assert pid_box["known"].wait(TIMEOUT)
        done = threading.Event()
        for _ in range(TIMEOUT * 100):
            waited = _backend_is_waiting_for_lock(pid_box["pid"])
            if waited or not t2.is_alive():
                break
            done.wait(0.01)  # poll PostgreSQL; the release itself is driven by the observed wait
    finally:
        hold.release.set()
        t1.join(TIMEOUT)
        t2.join(TIMEOUT)
    assert waited, f"the second transaction never waited for the first one's lock: {results.get('second')!r}"
    return results["first"], results["second"]


def run_together(first, second):
    """Run both at once (the caller makes them meet at a barrier)."""
    results: dict[str, object] = {}
    threads = [_runner(results, "first", first), _runner(results, "second", second)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(TIMEOUT)
    return results["first"], results["second"]


def errors_of(*results):
    return [r for r in results if isinstance(r, Exception)]


def test_two_renames_to_the_same_name(monkeypatch):
    workspace = make_workspace("race")
    actor = make_actor(workspace)
    one, two = make_group(workspace, "یک"), make_group(workspace, "دو")
    original = groups._name_taken
    both_checked = threading.Barrier(2, timeout=TIMEOUT)

    def name_taken(*args, **kwargs):
        taken = original(*args, **kwargs)
        both_checked.wait()  # both pass the pre-check before either writes: the unique index decides
        return taken

    monkeypatch.setattr(groups, "_name_taken", name_taken)
    a, b = run_together(
        lambda: groups.group_update(actor=actor, group_id=one.id, name="Same", expected_revision=1),
        lambda: groups.group_update(actor=actor, group_id=two.id, name="SAME", expected_revision=1),
    )
    failures = errors_of(a, b)
    assert len(failures) == 1 and failures[0].code == "GROUP_NAME_TAKEN"
    assert CampaignGroup.objects.filter(workspace=workspace, name_key="same").count() == 1


def test_two_reparents_creating_a_cycle(monkeypatch):
    workspace = make_workspace("race")
    actor = make_actor(workspace)
    group = make_group(workspace)
    one, two = make_chain(workspace, group), make_chain(workspace, group)
    hold = Hold(monkeypatch, chains, "lock_roots")
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
        hold=hold,
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
    hold = Hold(monkeypatch, chains, "lock_roots")
    b, c = chain["B"], chain["C"]
    first, second = run_pair(
        lambda: chains.chain_campaign_update(
            actor=actor, campaign_id=b.id, data={"parent_campaign_id": c.id}, expected_chain_revision=1
        ),
        lambda: chains.chain_campaign_update(
            actor=actor, campaign_id=c.id, data={"parent_campaign_id": b.id}, expected_chain_revision=1
        ),
        hold=hold,
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
    hold = Hold(monkeypatch, groups, "unfinished_chain_roots")  # delete holds the group lock
    a, b = run_pair(
        lambda: groups.group_delete(actor=actor, group_id=group.id, expected_revision=1),
        lambda: groups.group_add_campaigns(actor=actor, group_id=group.id, campaign_ids=[campaign.id]),
        hold=hold,
    )
    assert a is None  # the delete went first and succeeded
    assert isinstance(b, groups.GroupDeleted)
    group.refresh_from_db()
    assert group.status == GroupStatus.DELETED and group_of(campaign) is None


def test_add_vs_delete_add_first_then_delete_detaches(monkeypatch):
    workspace = make_workspace("race")
    actor = make_actor(workspace)
    group = make_group(workspace)
    campaign = make_campaign(workspace)
    hold = Hold(monkeypatch, groups, "bump_group")  # add holds the group row lock
    a, b = run_pair(
        lambda: groups.group_add_campaigns(actor=actor, group_id=group.id, campaign_ids=[campaign.id]),
        lambda: groups.group_delete(actor=actor, group_id=group.id, expected_revision=2),
        hold=hold,
    )
    assert a.added_ids == [campaign.id] and b is None
    assert group_of(campaign) is None  # detached by the delete that waited for the add


def test_approve_vs_edit(monkeypatch):
    workspace = make_workspace("race")
    actor = make_actor(workspace)
    group = make_group(workspace)
    chain = make_chain(workspace, group)
    _, package = approval.campaign_submit(actor=actor, campaign_id=chain["A"].id, expected_chain_revision=1)
    hold = Hold(monkeypatch, approval, "lock_roots")
    a, b = run_pair(
        lambda: approval.package_approve(actor=actor, package_id=package.id, expected_submitted_revision=2),
        lambda: chains.chain_campaign_update(
            actor=actor, campaign_id=chain["B"].id, data={"name": "ویرایش"}, expected_chain_revision=2
        ),
        hold=hold,
    )
    assert not isinstance(a, Exception), a
    assert isinstance(b, PlatformError) and b.http_status == 409
    b_node = ChainNode.objects.get(pk=chain["B"].id)
    assert b_node.name != "ویرایش" and b_node.status == CampaignStatus.SCHEDULED
    assert ChainApprovalPackage.objects.get(pk=package.id).status == PackageStatus.APPROVED


def test_edit_vs_approve(monkeypatch):
    workspace = make_workspace("race")
    actor = make_actor(workspace)
    group = make_group(workspace)
    chain = make_chain(workspace, group)
    _, package = approval.campaign_submit(actor=actor, campaign_id=chain["A"].id, expected_chain_revision=1)
    hold = Hold(monkeypatch, chains, "withdraw_current_package")
    a, b = run_pair(
        lambda: chains.chain_campaign_update(
            actor=actor, campaign_id=chain["B"].id, data={"name": "ویرایش"}, expected_chain_revision=2
        ),
        lambda: approval.package_approve(actor=actor, package_id=package.id, expected_submitted_revision=2),
        hold=hold,
    )
    assert not isinstance(a, Exception), a
    assert isinstance(b, PlatformError) and b.http_status == 409
    assert ChainApprovalPackage.objects.get(pk=package.id).status == PackageStatus.WITHDRAWN
    assert set(ChainNode.objects.filter(root_id=chain["A"].id).values_list("status", flat=True)) == {
        CampaignStatus.DRAFT
    }
