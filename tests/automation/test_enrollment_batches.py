"""Enrollment review on PostgreSQL: preview classes, decisions, commit re-checks, races, background commit."""

import threading
from datetime import timedelta

import pytest
from django.db import connection, connections, transaction
from django.test import TestCase
from django.utils import timezone

from automation.choices import BatchStatus
from automation.models import EnrollmentBatch, EnrollmentItem, Execution, ExecutionEvent
from automation.services.enrollment import enroll_subjects
from automation.services.enrollment_batches import (
    enrollment_batch_commit,
    enrollment_batch_decide,
    enrollment_batch_preview,
    enrollment_batch_run,
    enrollment_batches_resume,
)
from automation.services.executions import execution_control
from automation.services.leases import MAX_ATTEMPTS
from campaigns.choices import Role
from campaigns.models import Target
from sms.services import blacklist_add, blacklist_deactivate
from tests.api_base import TenantIsolationCases
from tests.conftest import api_client_for, make_actor, make_list, make_member, make_target

from .helpers import end_node, journey, linear_graph, setup_sms, sms_node

GRAPH = linear_graph(sms_node("a"), end_node())


@pytest.fixture
def two(actor, workspace):
    """This campaign and another running one (targets enrolled there are conflicts here)."""
    setup_sms(workspace)
    return journey(actor, GRAPH, activate=False), journey(actor, GRAPH)


def _classes(batch):
    return {i.subject_id: i.klass for i in batch.items.all()}


@pytest.mark.django_db
def test_preview_classifies_every_subject(actor, workspace, two):
    campaign, other = two
    ready, landline, blocked, here, elsewhere = (
        make_target(workspace),
        make_target(workspace, landline="+982188776655"),
        make_target(workspace),
        make_target(workspace),
        make_target(workspace),
    )
    blacklist_add(actor=actor, number=blocked.mobile)
    enroll_subjects(actor=actor, campaign_id=campaign.id, target_ids=[here.id])
    enroll_subjects(actor=actor, campaign_id=other.id, target_ids=[elsewhere.id])
    ids = [ready.id, landline.id, blocked.id, here.id, elsewhere.id, 999999]
    batch = enrollment_batch_preview(actor=actor, campaign_id=campaign.id, target_ids=ids)
    assert _classes(batch) == {
        ready.id: "ready",
        landline.id: "invalid",
        blocked.id: "blacklisted",
        here.id: "already_live",
        elsewhere.id: "conflict",
        999999: "invalid",
    }
    assert batch.counts == {"ready": 1, "invalid": 2, "blacklisted": 1, "already_live": 1, "conflict": 1}
    item = batch.items.get(subject_id=elsewhere.id)
    [info] = item.conflicts
    assert info["campaign_id"] == other.id and info["workflow_id"] and info["status"] == "active"
    assert info["current_step"] == "a" and info["next_run_at"]
    assert batch.items.get(subject_id=landline.id).reason == "no_valid_mobile"
    assert Execution.objects.filter(campaign=campaign).count() == 1  # preview enrolls nobody


@pytest.mark.django_db
def test_preview_from_filter_respects_owner_visibility(workspace, two):
    campaign, _ = two
    operator = make_member(workspace, Role.MANAGER)
    listed = make_list(workspace)
    mine = [make_target(workspace) for _ in range(3)]
    for t in mine:
        t.lists.add(listed)
    make_target(workspace)  # not in the list
    batch = enrollment_batch_preview(
        actor=make_actor(workspace, user=operator), campaign_id=campaign.id, filters={"list": listed.id}
    )
    assert batch.source == "filter" and set(_classes(batch)) == {t.id for t in mine}


@pytest.mark.django_db
def test_commit_refuses_undecided_conflicts_then_follows_decisions(actor, workspace, two):
    campaign, other = two
    a, b, c = (make_target(workspace) for _ in range(3))
    enroll_subjects(actor=actor, campaign_id=other.id, target_ids=[a.id, b.id])
    batch = enrollment_batch_preview(actor=actor, campaign_id=campaign.id, target_ids=[a.id, b.id, c.id])
    from automation.errors import ConflictsUnresolved

    with pytest.raises(ConflictsUnresolved) as refused:
        enrollment_batch_commit(actor=actor, batch_id=batch.id)
    assert refused.value.details["subject_ids"] == [a.id, b.id]
    assert Execution.objects.filter(campaign=campaign).count() == 0
    # default skip + one override add: a joins, b is skipped, c (ready) joins.
    enrollment_batch_decide(
        actor=actor,
        batch_id=batch.id,
        default="skip",
        set_default=True,
        overrides=[{"subject_id": a.id, "decision": "add"}],
    )
    done = enrollment_batch_commit(actor=actor, batch_id=batch.id)
    assert done.status == BatchStatus.COMMITTED
    assert set(Execution.objects.filter(campaign=campaign).values_list("subject_id", flat=True)) == {a.id, c.id}
    assert {i.subject_id: i.outcome for i in done.items.all()} == {a.id: "added", b.id: "skipped", c.id: "added"}
    from automation.errors import BatchNotDraft

    with pytest.raises(BatchNotDraft):  # committing twice does nothing
        enrollment_batch_commit(actor=actor, batch_id=batch.id)


@pytest.mark.django_db
def test_default_add_adds_every_conflict(actor, workspace, two):
    campaign, other = two
    a = make_target(workspace)
    enroll_subjects(actor=actor, campaign_id=other.id, target_ids=[a.id])
    batch = enrollment_batch_preview(actor=actor, campaign_id=campaign.id, target_ids=[a.id])
    enrollment_batch_decide(actor=actor, batch_id=batch.id, default="add", set_default=True)
    enrollment_batch_commit(actor=actor, batch_id=batch.id)
    assert Execution.objects.filter(subject_id=a.id, status__in=["pending", "active"]).count() == 2


@pytest.mark.django_db
def test_conflict_appearing_between_preview_and_commit_is_409(actor, workspace, two):
    campaign, other = two
    a, b = make_target(workspace), make_target(workspace)
    blocked_later = make_target(workspace)
    batch = enrollment_batch_preview(actor=actor, campaign_id=campaign.id, target_ids=[a.id, b.id, blocked_later.id])
    assert set(_classes(batch).values()) == {"ready"}
    enroll_subjects(actor=actor, campaign_id=other.id, target_ids=[b.id])  # b joins another journey meanwhile
    blacklist_add(actor=actor, number=blocked_later.mobile)
    from automation.errors import ConflictsUnresolved

    with pytest.raises(ConflictsUnresolved) as refused:
        enrollment_batch_commit(actor=actor, batch_id=batch.id)
    assert refused.value.details["subject_ids"] == [b.id]
    batch.refresh_from_db()
    assert batch.status == BatchStatus.DRAFT and _classes(batch)[b.id] == "conflict"
    enrollment_batch_decide(actor=actor, batch_id=batch.id, overrides=[{"subject_id": b.id, "decision": "skip"}])
    done = enrollment_batch_commit(actor=actor, batch_id=batch.id)
    outcomes = {i.subject_id: i.outcome for i in done.items.all()}
    assert outcomes == {a.id: "added", b.id: "skipped", blocked_later.id: "blacklisted"}


@pytest.mark.django_db
def test_commit_adds_what_each_subject_is_at_the_time_it_is_added(actor, workspace, two):
    """The job checks every subject as it adds it: what changed since the preview decides, not its class."""
    campaign, other = two
    here, freed, ended, raced = (make_target(workspace) for _ in range(4))
    enroll_subjects(actor=actor, campaign_id=campaign.id, target_ids=[here.id])
    enroll_subjects(actor=actor, campaign_id=other.id, target_ids=[here.id, ended.id], on_conflict="add")
    entry = blacklist_add(actor=actor, number=freed.mobile)
    batch = enrollment_batch_preview(
        actor=actor, campaign_id=campaign.id, target_ids=[here.id, freed.id, ended.id, raced.id]
    )
    assert _classes(batch) == {
        here.id: "already_live",
        freed.id: "blacklisted",
        ended.id: "conflict",
        raced.id: "ready",
    }
    blacklist_deactivate(actor=actor, entry_id=entry.id)  # the number was unblocked meanwhile
    execution_control(
        actor=actor, execution_id=Execution.objects.get(campaign=other, subject_id=ended.id).id, action="remove"
    )
    enroll_subjects(actor=actor, campaign_id=campaign.id, target_ids=[raced.id])  # added by someone else meanwhile
    done = enrollment_batch_commit(actor=actor, batch_id=batch.id)  # the ended conflict needs no decision now
    outcomes = {i.subject_id: i.outcome for i in done.items.all()}
    assert outcomes == {here.id: "already_live", freed.id: "added", ended.id: "added", raced.id: "added_concurrently"}
    assert set(Execution.objects.filter(campaign=campaign).values_list("subject_id", flat=True)) == {
        here.id,
        freed.id,
        ended.id,
        raced.id,
    }


@pytest.mark.django_db
def test_direct_enrollment_without_on_conflict_names_the_conflicts(api, actor, workspace, two):
    campaign, other = two
    a, b = make_target(workspace), make_target(workspace)
    enroll_subjects(actor=actor, campaign_id=other.id, target_ids=[a.id])
    url = f"/api/v1/campaigns/{campaign.id}/enrollments"
    refused = api.post(url, {"target_ids": [a.id, b.id]}, format="json")
    assert refused.status_code == 400, refused.content
    error = refused.json()["error"]
    assert error["code"] == "CONFLICTS_PRESENT" and error["details"]["subject_ids"] == [a.id]
    assert error["details"]["conflicts"][0]["conflicts"][0]["campaign_id"] == other.id
    assert not Execution.objects.filter(campaign=campaign).exists()
    skipped = api.post(url, {"target_ids": [a.id, b.id], "on_conflict": "skip"}, format="json").json()
    assert skipped["added"] == [b.id] and skipped["conflict_skipped"] == [a.id]
    c = make_target(workspace)
    enroll_subjects(actor=actor, campaign_id=other.id, target_ids=[c.id])
    added = api.post(url, {"target_ids": [c.id], "on_conflict": "add"}, format="json").json()
    assert added["added"] == [c.id]


def _background_batch(actor, workspace, campaign, n=301):
    ids = [make_target(workspace).id for _ in range(n)]
    batch = enrollment_batch_preview(actor=actor, campaign_id=campaign.id, target_ids=ids)
    queued: list[int] = []
    with TestCase.captureOnCommitCallbacks(execute=True):
        batch = enrollment_batch_commit(actor=actor, batch_id=batch.id, enqueue=queued.append)
    return batch, queued, ids


@pytest.mark.django_db
def test_large_batch_runs_in_background_with_progress(actor, workspace, two):
    campaign, _ = two
    batch, queued, _ = _background_batch(actor, workspace, campaign)
    assert batch.status == BatchStatus.COMMITTING and batch.total == 301 and batch.processed == 0
    assert queued == [batch.id] and not Execution.objects.filter(campaign=campaign).exists()
    done = enrollment_batch_run(batch_id=batch.id)
    assert done.status == BatchStatus.COMMITTED and done.processed == done.total == 301
    assert Execution.objects.filter(campaign=campaign).count() == 301
    assert done.result == {"added": 301}


@pytest.mark.django_db
def test_dead_worker_is_resumed_then_failed_never_committing_forever(actor, workspace, two):
    campaign, _ = two
    batch, _, _ = _background_batch(actor, workspace, campaign)
    # The worker took the job and died after one chunk: some items are done, the lease runs out.
    first = list(EnrollmentItem.objects.filter(batch=batch).order_by("id")[:10])
    from automation.services.enrollment_batches import _actor_for, _commit_chunk

    _commit_chunk(batch, campaign, _actor_for(batch, campaign), first)
    later = timezone.now() + timedelta(minutes=10)
    requeued: list[int] = []
    assert enrollment_batches_resume(now=later, enqueue=requeued.append) == {"resumed": 1, "failed": 0}
    assert requeued == [batch.id]
    done = enrollment_batch_run(batch_id=batch.id)  # the resumed job continues where the dead one stopped
    assert done.status == BatchStatus.COMMITTED
    assert Execution.objects.filter(campaign=campaign).count() == 301  # nobody twice
    # A batch whose worker keeps dying ends failed.
    other_batch, _, _ = _background_batch(actor, workspace, campaign)
    EnrollmentBatch.objects.filter(pk=other_batch.pk).update(attempts=MAX_ATTEMPTS)
    assert enrollment_batches_resume(now=later, enqueue=requeued.append) == {"resumed": 0, "failed": 1}
    other_batch.refresh_from_db()
    assert other_batch.status == BatchStatus.FAILED and other_batch.error


@pytest.mark.skipif(connection.vendor != "postgresql", reason="row locks need PostgreSQL")
@pytest.mark.django_db(transaction=True)
def test_two_commits_racing_for_one_target_add_it_once(actor, workspace):
    assert connection.vendor == "postgresql"
    setup_sms(workspace)
    campaign = journey(actor, GRAPH)
    target = make_target(workspace)
    batch = enrollment_batch_preview(actor=actor, campaign_id=campaign.id, target_ids=[target.id])
    holding, release = threading.Event(), threading.Event()
    results: dict = {}

    def first():  # another enrollment inserts the same target and holds its transaction open
        try:
            with transaction.atomic():
                results["first"] = enroll_subjects(actor=actor, campaign_id=campaign.id, target_ids=[target.id])
                holding.set()
                release.wait(30)
        finally:
            connections.close_all()

    def second():
        try:
            results["second"] = enrollment_batch_commit(actor=actor, batch_id=batch.id)
        finally:
            connections.close_all()

    t1 = threading.Thread(target=first)
    t1.start()
    assert holding.wait(30)
    t2 = threading.Thread(target=second)
    t2.start()
    # Wait until the batch's insert is blocked on the live unique index, then let the first one commit.
    for _ in range(3000):
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = current_database()"
            )
            if cursor.fetchone()[0]:
                break
        threading.Event().wait(0.01)
    release.set()
    t1.join()
    t2.join()
    assert results["first"].added == [target.id]
    item = EnrollmentItem.objects.get(batch=batch)
    assert item.outcome == "added_concurrently"
    assert Execution.objects.filter(campaign=campaign, subject_id=target.id).count() == 1


class TestEnrollmentBatchIsolation(TenantIsolationCases):
    detail_url = "/api/v1/enrollments/{id}"
    can_delete = True

    def make(self, workspace):
        actor = make_actor(workspace)
        setup_sms(workspace)
        campaign = journey(actor, GRAPH, activate=False)
        return enrollment_batch_preview(actor=actor, campaign_id=campaign.id, target_ids=[make_target(workspace).id])

    def test_batch_endpoints_of_other_workspace_are_404(self, setup):
        client, _, foreign = setup
        assert client.get(f"/api/v1/enrollments/{foreign.id}/items").status_code == 404
        assert (
            client.put(f"/api/v1/enrollments/{foreign.id}/decisions", {"default": "add"}, format="json").status_code
            == 404
        )
        assert client.post(f"/api/v1/enrollments/{foreign.id}/commit").status_code == 404
        preview = client.post(
            f"/api/v1/campaigns/{foreign.campaign_id}/enrollments/preview", {"target_ids": [1]}, format="json"
        )
        assert preview.status_code == 404
        foreign.refresh_from_db()
        assert foreign.status == BatchStatus.DRAFT

    def test_viewer_reads_but_cannot_decide_or_commit(self, setup):
        _, own, _ = setup
        viewer = make_member(own.workspace, Role.VIEWER)
        client = api_client_for(viewer, own.workspace)
        assert client.get(f"/api/v1/enrollments/{own.id}").status_code == 200
        assert (
            client.put(f"/api/v1/enrollments/{own.id}/decisions", {"default": "add"}, format="json").status_code == 403
        )
        assert client.post(f"/api/v1/enrollments/{own.id}/commit").status_code == 403


@pytest.mark.django_db
def test_batch_api_flow(api, actor, workspace, two):
    campaign, other = two
    a, b = make_target(workspace), make_target(workspace)
    enroll_subjects(actor=actor, campaign_id=other.id, target_ids=[a.id])
    created = api.post(
        f"/api/v1/campaigns/{campaign.id}/enrollments/preview", {"target_ids": [a.id, b.id]}, format="json"
    )
    assert created.status_code == 201, created.content
    bid = created.json()["id"]
    conflicts = api.get(f"/api/v1/enrollments/{bid}/items", {"class": "conflict"}).json()
    assert conflicts["count"] == 1 and conflicts["results"][0]["class"] == "conflict"
    refused = api.post(f"/api/v1/enrollments/{bid}/commit")
    assert refused.status_code == 409 and refused.json()["error"]["code"] == "CONFLICTS_UNRESOLVED"
    decided = api.put(
        f"/api/v1/enrollments/{bid}/decisions", {"overrides": [{"subject_id": a.id, "decision": "skip"}]}, format="json"
    )
    assert decided.status_code == 200
    assert api.get(f"/api/v1/enrollments/{bid}/items", {"class": "conflict"}).json()["results"][0]["decision"] == "skip"
    committed = api.post(f"/api/v1/enrollments/{bid}/commit").json()
    assert committed["status"] == "committed" and committed["result"] == {"added": 1, "skipped": 1}
    assert api.post(f"/api/v1/enrollments/{bid}/commit").status_code == 409


@pytest.mark.django_db
def test_a_commit_retried_with_its_idempotency_key_gets_the_first_answer(api, workspace, two):
    # a client that lost the answer of its commit retries with the same key: the stored answer, not a 409
    campaign, _ = two
    target = make_target(workspace)
    bid = api.post(
        f"/api/v1/campaigns/{campaign.id}/enrollments/preview", {"target_ids": [target.id]}, format="json"
    ).json()["id"]
    first = api.post(f"/api/v1/enrollments/{bid}/commit", HTTP_IDEMPOTENCY_KEY="commit-1")
    assert first.status_code == 200 and first.json()["status"] == "committed"
    again = api.post(f"/api/v1/enrollments/{bid}/commit", HTTP_IDEMPOTENCY_KEY="commit-1")
    assert again.status_code == 200 and again["Idempotent-Replayed"] == "true" and again.json() == first.json()
    assert Execution.objects.filter(campaign_id=campaign.id).count() == 1
    fresh = api.post(f"/api/v1/enrollments/{bid}/commit", HTTP_IDEMPOTENCY_KEY="commit-2")
    assert fresh.status_code == 409  # another key runs the commit again: already committed


@pytest.mark.django_db
def test_background_job_checks_each_chunk_again(actor, workspace, two):
    """What changed between the commit and the job: a new conflict without a decision is skipped with its
    details, a number blacklisted or a target deleted meanwhile is refused, one enrolled meanwhile counts as
    added concurrently; every added execution has exactly one enrolled event."""
    campaign, other = two
    batch, _, ids = _background_batch(actor, workspace, campaign)
    conflicted, blocked, deleted, raced = ids[:4]
    enroll_subjects(actor=actor, campaign_id=other.id, target_ids=[conflicted])
    blacklist_add(actor=actor, number=Target.objects.get(pk=blocked).mobile)
    Target.objects.filter(pk=deleted).update(deleted_at=timezone.now())
    enroll_subjects(actor=actor, campaign_id=campaign.id, target_ids=[raced])
    done = enrollment_batch_run(batch_id=batch.id)
    outcomes = dict(done.items.values_list("subject_id", "outcome"))
    assert {k: outcomes[k] for k in ids[:4]} == {
        conflicted: "conflict_skipped",
        blocked: "blacklisted",
        deleted: "invalid",
        raced: "added_concurrently",
    }
    assert done.result == {"added": 297, "conflict_skipped": 1, "blacklisted": 1, "invalid": 1, "added_concurrently": 1}
    assert done.status == BatchStatus.COMMITTED and done.processed == done.total == 301
    [info] = done.items.get(subject_id=conflicted).conflicts
    assert info["campaign_id"] == other.id
    added = Execution.objects.filter(campaign=campaign).exclude(subject_id=raced)
    assert set(added.values_list("subject_id", flat=True)) == set(ids[4:])
    events = ExecutionEvent.objects.filter(campaign=campaign, type="enrolled", execution__in=added)
    assert events.count() == 297 and set(events.values_list("to_status", flat=True)) == {"pending"}
    assert {e.data["by"] for e in events} == {actor.user.pk}
    assert not events.exclude(node_id__isnull=False).exists()


@pytest.mark.skipif(connection.vendor != "postgresql", reason="needs a second connection")
@pytest.mark.django_db(transaction=True)
def test_job_of_a_batch_failed_meanwhile_writes_nothing_more(actor, workspace, monkeypatch):
    setup_sms(workspace)
    campaign = journey(actor, GRAPH, activate=False)
    batch, _, _ = _background_batch(actor, workspace, campaign)
    from automation.services import enrollment_batches

    real = enrollment_batches.checked

    def beat_fails_it(*args, **kwargs):  # the beat gives up on the batch (its own transaction) mid-chunk
        def fail():
            try:
                EnrollmentBatch.objects.filter(pk=batch.pk).update(status=BatchStatus.FAILED)
            finally:
                connections.close_all()

        beat = threading.Thread(target=fail)
        beat.start()
        beat.join(30)
        return real(*args, **kwargs)

    monkeypatch.setattr(enrollment_batches, "checked", beat_fails_it)
    done = enrollment_batch_run(batch_id=batch.id)
    assert done.status == BatchStatus.FAILED
    assert not Execution.objects.filter(campaign=campaign).exists()
    assert not done.items.exclude(outcome="").exists()  # the chunk was rolled back with its executions
