"""A list's size is kept with every write that changes it (services, import, admin-style deletes, bulk rows,
concurrent adds) and always equals a fresh count; the repair command finds and fixes a wrong one."""

import threading
import time

import pytest
from django.core.management import call_command
from django.db import connection, connections, transaction
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from campaigns.models import Target, TargetList, TargetListSize
from campaigns.platform import list_sizes
from campaigns.services.targets import target_create, target_delete, target_update

from ..conftest import api_client_for, make_list, make_member, make_target
from .test_import import csv_bytes, run_import

pytestmark = pytest.mark.django_db

Membership = Target.lists.through


def stored(tl: TargetList) -> int:
    return TargetListSize.objects.get(pk=tl.pk).members


def assert_exact(*lists: TargetList) -> None:
    """Every stored size equals a count of live members made now."""
    for tl in lists:
        live = Membership.objects.filter(targetlist=tl, target__deleted_at__isnull=True).count()
        assert stored(tl) == live, tl.name


def test_a_new_list_starts_at_zero(workspace):
    assert stored(make_list(workspace)) == 0


def test_service_writes_keep_the_size(actor, workspace):
    a, b = make_list(workspace, "الف"), make_list(workspace, "ب")
    t1 = target_create(actor=actor, name="علی", mobile="09120000001", list_ids=[a.id, b.id])
    t2 = target_create(actor=actor, name="مریم", mobile="09120000002", list_ids=[a.id])
    assert (stored(a), stored(b)) == (2, 1)

    target_update(actor=actor, target_id=t1.id, data={"list_ids": [b.id]})  # leaves a, stays in b
    assert (stored(a), stored(b)) == (1, 1)

    target_delete(actor=actor, target_id=t2.id)  # soft delete: no longer counted
    assert (stored(a), stored(b)) == (0, 1)

    Target.objects.filter(pk=t2.pk).update(deleted_at=None)  # restored (admin): counted again
    assert stored(a) == 1
    assert_exact(a, b)


def test_reverse_and_bulk_membership_writes_keep_the_size(workspace):
    tl = make_list(workspace)
    targets = [make_target(workspace) for _ in range(5)]
    tl.targets.add(*targets[:3])
    tl.targets.add(*targets[:3])  # already members: nothing counted twice
    assert stored(tl) == 3
    tl.targets.remove(targets[0])
    Membership.objects.bulk_create([Membership(target=t, targetlist=tl) for t in targets[3:]])
    assert stored(tl) == 4
    targets[1].delete()  # a hard delete removes its memberships first
    assert stored(tl) == 3
    Target.objects.filter(pk=targets[2].pk).update(deleted_at=timezone.now())
    Membership.objects.filter(target=targets[2]).delete()  # removing a deleted member changes nothing
    assert stored(tl) == 2
    tl.targets.clear()
    assert stored(tl) == 0
    assert_exact(tl)


def test_an_import_keeps_the_size(actor, workspace, django_capture_on_commit_callbacks):
    tl = make_list(workspace)
    existing = make_target(workspace, mobile="+989120000009")
    tl.targets.add(existing)
    content = csv_bytes(["نام,موبایل", "علی,09120000001", "مریم,09120000002", "تکرار,09120000001", "قبلی,09120000009"])
    run_import(actor, "a.csv", content, django_capture_on_commit_callbacks, target_list_id=tl.id, update_existing=True)
    assert stored(tl) == 3
    assert_exact(tl)


def test_deleting_a_list_deletes_its_size(workspace):
    tl = make_list(workspace)
    tl.targets.add(make_target(workspace))
    tl.delete()
    assert not TargetListSize.objects.filter(pk=tl.pk).exists()


def test_the_list_endpoint_reads_the_stored_size_in_fixed_queries(api, workspace, other_workspace):
    lists = [make_list(workspace, f"فهرست {i}") for i in range(3)]
    for i, tl in enumerate(lists):
        tl.targets.add(*[make_target(workspace) for _ in range(i + 1)])
    make_list(other_workspace, "دیگر").targets.add(make_target(other_workspace))
    api.get("/api/v1/target-lists")  # warm-up: the session and caches
    with CaptureQueriesContext(connection) as captured:
        body = api.get("/api/v1/target-lists").json()
    assert {r["name"]: r["target_count"] for r in body["results"]} == {"فهرست 0": 1, "فهرست 1": 2, "فهرست 2": 3}
    assert not any("COUNT(DISTINCT" in q["sql"].upper() for q in captured.captured_queries)
    few = len(captured)
    assert few <= 4  # session, membership, the page of lists with their sizes, its count
    lists[0].targets.add(*[make_target(workspace) for _ in range(20)])
    with CaptureQueriesContext(connection) as captured:
        api.get("/api/v1/target-lists")
    assert len(captured) == few


def test_an_operator_still_sees_only_their_own_targets_counted(workspace):
    from campaigns.choices import Role

    operator = make_member(workspace, Role.OPERATOR)
    tl = make_list(workspace)
    tl.targets.add(make_target(workspace, owner=operator), make_target(workspace))
    assert api_client_for(operator, workspace).get(f"/api/v1/target-lists/{tl.id}").json()["target_count"] == 1


def test_the_repair_command_finds_and_fixes_a_wrong_size(workspace, capsys):
    tl = make_list(workspace)
    tl.targets.add(make_target(workspace), make_target(workspace))
    TargetListSize.objects.filter(pk=tl.pk).update(members=7)
    with pytest.raises(SystemExit) as exited:
        call_command("target_list_sizes", "--check")
    assert exited.value.code == 1
    assert f"list {tl.id}: stored 7, counted 2" in capsys.readouterr().out
    assert stored(tl) == 7  # --check stores nothing
    call_command("target_list_sizes")
    assert stored(tl) == 2
    call_command("target_list_sizes", "--check")  # now exits 0
    assert list_sizes.recount() == {tl.id: 2}


pg_only = pytest.mark.skipif(connection.vendor != "postgresql", reason="concurrent transactions need PostgreSQL")


def _together(*functions) -> list:
    errors: list = []
    barrier = threading.Barrier(len(functions))

    def run(fn):
        try:
            barrier.wait()
            fn()
        except Exception as exc:
            errors.append(exc)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=run, args=(fn,)) for fn in functions]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return errors


@pg_only
@pytest.mark.django_db(transaction=True)
def test_concurrent_adds_of_the_same_and_other_members_are_counted_once(workspace):
    tl = make_list(workspace)
    shared = [make_target(workspace) for _ in range(30)]
    own = [[make_target(workspace) for _ in range(10)] for _ in range(4)]

    def adder(mine):
        return lambda: TargetList.objects.get(pk=tl.pk).targets.add(*shared, *mine)

    assert _together(*(adder(mine) for mine in own)) == []
    assert stored(tl) == 30 + 40
    assert_exact(tl)


@pg_only
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("first", ["delete", "add"])
def test_a_delete_racing_an_add_leaves_the_size_exact(workspace, first):
    """One transaction writes and stays open while the other writes the same targets: the second waits for
    the first to commit, then counts what it committed (neither misses the other)."""
    lists = [make_list(workspace, f"l{i}") for i in range(2)]
    targets = [make_target(workspace) for _ in range(20)]
    lists[0].targets.add(*targets)
    deleted = [t.pk for t in targets[::2]]
    written = threading.Event()

    def delete():
        with transaction.atomic():
            Target.objects.filter(pk__in=deleted).update(deleted_at=timezone.now())
            if first == "delete":
                written.set()
                time.sleep(0.5)
        if first == "add":
            written.set()

    def add():
        with transaction.atomic():
            TargetList.objects.get(pk=lists[1].pk).targets.add(*targets)
            if first == "add":
                written.set()
                time.sleep(0.5)

    def after(fn):
        def run():
            written.wait(10)
            fn()

        return run

    pair = (delete, after(add)) if first == "delete" else (add, after(delete))
    assert _together(*pair) == []
    assert [stored(tl) for tl in lists] == [10, 10]
    assert_exact(*lists)
