"""Enrollment review: preview → decisions → commit (journeys.md "Enrollment and conflicts").

The system never decides a duplicate on its own: a subject live in another
campaign ("conflict") is added or skipped only by an explicit decision — the
batch's default or the subject's override. Commit re-checks conflicts: a
conflict that appeared after the preview and has no decision answers 409
``CONFLICTS_UNRESOLVED`` before anything is written. The job then checks every
subject again as it adds it. Blacklisted and invalid subjects are never added;
the live unique index stays the final race guard ("added concurrently").

Up to ``INLINE_MAX`` subjects are added in the request; more run in a
background job that processes chunks of ``CHUNK`` items, renewing a lease
after each one. ``enrollment_batches_resume`` (beat, every minute) re-queues a
batch whose lease ran out, and marks it failed after ``MAX_ATTEMPTS`` (the lease rule of
``automation.services.leases``) — a dead worker never leaves a batch "committing" for ever. Items carry their
outcome, so a resumed job continues where the dead one stopped.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from celery import current_app
from django.core.serializers.json import DjangoJSONEncoder
from django.db import connection, transaction
from django.db.models import Count, Exists, F, OuterRef
from django.utils import timezone

from automation import webhook_events
from automation.choices import BatchStatus, Decision, EnrollmentClass
from automation.errors import BatchNotDraft, ConflictsUnresolved
from automation.models import EnrollmentBatch, EnrollmentItem
from automation.services.enrollment_core import (
    CHUNK,
    MAX_SUBJECTS,
    ChunkCheck,
    EnrollmentReport,
    any_conflicts,
    checked,
    chunk_check,
    classify,
    enroll_chunk,
    journey_campaign,
    live_elsewhere,
    live_flags,
    plain,
)
from automation.services.leases import LEASE, leased_jobs_resume
from campaigns.filters import TargetFilter
from campaigns.models import Campaign, Membership, Target
from campaigns.platform.bulk import id_array, ids_match
from campaigns.platform.database import is_postgresql
from campaigns.platform.errors import ValidationFailed
from campaigns.platform.permissions import Perm
from campaigns.platform.services import model_update
from campaigns.platform.tenancy import Actor, get_scoped, scoped
from campaigns.selectors import target_queryset

K = EnrollmentClass
INLINE_MAX = 300
MAX_LISTED_CONFLICTS = 200
# The job that adds a large batch (``automation.tasks.enrollment_batch_commit_task``), sent by name so the
# service never imports its Celery entry points.
ENROLLMENT_BATCH_COMMIT_TASK = "automation.enrollment_batch_commit"


def _chunks(ids: list[int]):
    for start in range(0, len(ids), CHUNK):
        yield ids[start : start + CHUNK]


def filtered_target_ids(*, actor: Actor, filters: dict[str, Any], limit: int = MAX_SUBJECTS) -> list[int]:
    """Ids of every target matching the targets page's filter, as this actor sees them (≤ ``limit``)."""
    fs = TargetFilter(data=filters or {}, queryset=target_queryset(actor=actor))
    if not fs.is_valid():
        raise ValidationFailed(details={"filters": fs.errors})
    ids = list(fs.qs.order_by().values_list("id", flat=True).distinct()[: limit + 1])
    if len(ids) > limit:
        raise ValidationFailed.field("filters", f"بیش از {limit} مخاطب با این فیلتر؛ فیلتر را محدودتر کنید.")
    return sorted(ids)


# --------------------------------------------------------------------------- preview
def enrollment_batch_preview(
    *,
    actor: Actor,
    campaign_id: int,
    target_ids: list[int] | None = None,
    filters: dict[str, Any] | None = None,
) -> EnrollmentBatch:
    """Classify the manual pick or every target matching ``filters``; writes the batch and its items only."""
    actor.require(Perm.MANAGE_CAMPAIGNS)
    campaign = journey_campaign(actor.workspace, campaign_id)
    if target_ids and filters:
        raise ValidationFailed.field("target_ids", "یا شناسه‌ها یا فیلتر، نه هر دو.")
    if filters is not None and not target_ids:
        source = "filter"
        ids = filtered_target_ids(actor=actor, filters=filters)
    else:
        source = "manual"
        ids = list(dict.fromkeys(int(i) for i in (target_ids or [])))
        if len(ids) > MAX_SUBJECTS:
            raise ValidationFailed.field("target_ids", f"حداکثر {MAX_SUBJECTS} مخاطب در هر بار.")
    if not ids:
        raise ValidationFailed.field("target_ids", "دست‌کم یک مخاطب انتخاب کنید.")
    visible = target_queryset(actor=actor).order_by()
    with transaction.atomic():
        batch = EnrollmentBatch.objects.create(
            workspace=actor.workspace,
            campaign=campaign,
            source=source,
            filters=filters or {},
            created_by=actor.user,
        )
        counts = dict.fromkeys(K.values, 0)
        for chunk in _chunks(ids):
            verdicts = classify(campaign, chunk, visible)
            rows = []
            for tid in chunk:
                v = verdicts[tid]
                counts[v.klass] += 1
                rows.append((tid, v.klass, v.reason, list(v.conflicts)))
            _items_insert(batch, rows)
        batch.counts = counts
        batch.save(update_fields=["counts", "updated_at"])
    return batch


def _items_insert(batch: EnrollmentBatch, rows: list[tuple[int, str, str, list]]) -> None:
    """One item per (subject id, class, reason, conflicts): ``COPY`` on PostgreSQL, ``bulk_create`` elsewhere."""
    if not is_postgresql(connection):
        EnrollmentItem.objects.bulk_create(
            EnrollmentItem(
                workspace_id=batch.workspace_id, batch_id=batch.id, subject_id=sid, klass=k, reason=r, conflicts=c
            )
            for sid, k, r, c in rows
        )
        return
    columns = "workspace_id, batch_id, subject_id, klass, reason, conflicts, decision, outcome"
    sql = f"COPY {EnrollmentItem._meta.db_table} ({columns}) FROM STDIN"
    with connection.cursor() as cursor, cursor.cursor.copy(sql) as copy:
        for sid, klass, reason, conflicts in rows:
            copy.write_row(
                (batch.workspace_id, batch.id, sid, klass, reason, json.dumps(conflicts, cls=DjangoJSONEncoder), "", "")
            )


# --------------------------------------------------------------------------- decisions
def _draft(actor: Actor, batch_id: int, *, lock: bool = False) -> EnrollmentBatch:
    qs = scoped(EnrollmentBatch, actor.workspace)
    if lock:
        qs = qs.select_for_update()
    batch = get_scoped(EnrollmentBatch, actor.workspace, batch_id, queryset=qs)
    if batch.status != BatchStatus.DRAFT:
        raise BatchNotDraft(details={"status": batch.status})
    return batch


def enrollment_batch_decide(
    *,
    actor: Actor,
    batch_id: int,
    default: str | None = None,
    overrides: list[dict[str, Any]] | None = None,
    set_default: bool = False,
) -> EnrollmentBatch:
    """Set the default decision (``add``/``skip``/none when ``set_default``) and per-subject overrides.

    An override's ``decision`` is ``add``, ``skip`` or null (clears it). Subjects outside the batch are refused.
    """
    actor.require(Perm.MANAGE_CAMPAIGNS)
    valid = {"", *Decision.values}
    with transaction.atomic():
        batch = _draft(actor, batch_id, lock=True)
        if set_default:
            value = default or ""
            if value not in valid:
                raise ValidationFailed.field("default", "add یا skip.")
            model_update(instance=batch, fields=["default_decision"], data={"default_decision": value})
        by_decision: dict[str, list[int]] = {}
        for entry in overrides or []:
            value = entry.get("decision") or ""
            if value not in valid:
                raise ValidationFailed.field("overrides", "هر تصمیم add یا skip یا خالی است.")
            by_decision.setdefault(value, []).append(int(entry["subject_id"]))
        all_ids = [i for ids in by_decision.values() for i in ids]
        if all_ids:
            known = set(batch.items.filter(ids_match("subject_id", all_ids)).values_list("subject_id", flat=True))
            unknown = sorted(set(all_ids) - known)
            if unknown:
                raise ValidationFailed.field("overrides", "این مخاطبان در این دسته نیستند.", subject_ids=unknown)
        for value, ids in by_decision.items():
            batch.items.filter(ids_match("subject_id", ids)).update(decision=value)
    return batch


def enrollment_batch_discard(*, actor: Actor, batch_id: int) -> EnrollmentBatch:
    actor.require(Perm.MANAGE_CAMPAIGNS)
    batch = _draft(actor, batch_id)
    if not EnrollmentBatch.objects.filter(pk=batch.pk, status=BatchStatus.DRAFT).update(
        status=BatchStatus.DISCARDED, finished_at=timezone.now()
    ):
        raise BatchNotDraft()
    batch.refresh_from_db()
    return batch


# --------------------------------------------------------------------------- commit
def _recheck(batch: EnrollmentBatch, campaign: Campaign, visible) -> list[dict[str, Any]]:
    """Classify every item again (chunks), store changes, return the undecided conflicts."""
    unresolved: list[dict[str, Any]] = []
    counts = dict.fromkeys(K.values, 0)
    stored = list(
        batch.items.order_by("subject_id").values_list("id", "subject_id", "klass", "reason", "conflicts", "decision")
    )
    for start in range(0, len(stored), CHUNK):
        rows = stored[start : start + CHUNK]
        verdicts = classify(campaign, [r[1] for r in rows], visible)
        changed = []
        for item_id, subject_id, klass, reason, conflicts, decision in rows:
            v = verdicts[subject_id]
            counts[v.klass] += 1
            if (klass, reason, conflicts) != (v.klass, v.reason, list(v.conflicts)):
                changed.append(EnrollmentItem(id=item_id, klass=v.klass, reason=v.reason, conflicts=list(v.conflicts)))
            if v.klass == K.CONFLICT and not (decision or batch.default_decision):
                unresolved.append({"subject_id": subject_id, "conflicts": list(v.conflicts)})
        if changed:
            EnrollmentItem.objects.bulk_update(changed, ["klass", "reason", "conflicts"])
    batch.counts = counts
    return unresolved


def _undecided_conflicts(batch: EnrollmentBatch, campaign: Campaign, visible) -> list[dict[str, Any]]:
    """The 409 rule: subjects with no decision (and no default) that are live in another campaign now (and
    not in this one).

    One probe over the undecided subjects; only when it finds one is every item classified again (and the
    new classes stored, so the review page shows what changed) to tell the undecided conflicts exactly."""
    if batch.default_decision:
        return []
    undecided = list(batch.items.filter(decision="").values_list("subject_id", flat=True))
    if not any_conflicts(campaign, undecided):
        return []
    with transaction.atomic():
        unresolved = _recheck(batch, campaign, visible)
        EnrollmentBatch.objects.filter(pk=batch.pk).update(counts=batch.counts)
    return unresolved


def enrollment_batch_commit(
    *, actor: Actor, batch_id: int, enqueue: Callable[[int], None] | None = None
) -> EnrollmentBatch:
    """Refuse undecided conflicts (409), then add inline (≤ 300) or in a background job; the job checks every
    subject again as it adds it (``_commit_chunk``)."""
    actor.require(Perm.MANAGE_CAMPAIGNS)
    batch = _draft(actor, batch_id)
    campaign = journey_campaign(actor.workspace, batch.campaign_id)
    unresolved = _undecided_conflicts(batch, campaign, target_queryset(actor=actor).order_by())
    if unresolved:
        raise ConflictsUnresolved(
            details={
                "count": len(unresolved),
                "subject_ids": [u["subject_id"] for u in unresolved],
                "conflicts": unresolved[:MAX_LISTED_CONFLICTS],
            }
        )
    now = timezone.now()
    with transaction.atomic():
        # Subjects the person decided to skip get their outcome now; every other one is the job's work.
        items = batch.items.all()
        items.filter(decision=Decision.SKIP).update(outcome="skipped")
        total = items.filter(outcome="").count()
        if not EnrollmentBatch.objects.filter(pk=batch.pk, status=BatchStatus.DRAFT).update(
            status=BatchStatus.COMMITTING,
            total=total,
            processed=0,
            attempts=1,
            committed_at=now,
            lease_until=now + LEASE,
        ):
            raise BatchNotDraft()
    if total <= INLINE_MAX:
        enrollment_batch_run(batch_id=batch.id)
    else:
        send = enqueue or _enqueue
        transaction.on_commit(lambda: send(batch.id))
    batch.refresh_from_db()
    return batch


def _enqueue(batch_id: int) -> None:
    current_app.signature(ENROLLMENT_BATCH_COMMIT_TASK).apply_async(args=[batch_id], queue="engine")


def _actor_for(batch: EnrollmentBatch, campaign: Campaign) -> Actor:
    """The batch's author acting in its workspace (the job runs without a request)."""
    membership = Membership.objects.filter(workspace_id=batch.workspace_id, user_id=batch.created_by_id).first()
    return Actor(user=batch.created_by, workspace=campaign.workspace, membership=membership)


class _BatchLeft(Exception):
    """The batch stopped being ``committing`` under this job (the beat failed it): the chunk is rolled back."""


def enrollment_batch_run(*, batch_id: int) -> EnrollmentBatch:
    """Add the batch's remaining items, one chunk per transaction, renewing the lease (idempotent; resumable).

    A chunk's transaction locks its items (``SKIP LOCKED``: a second job on the same batch takes other
    items), checks them, inserts the executions and events, stores each item's outcome and — conditionally,
    only while the batch is still ``committing`` — advances ``processed`` and the lease. A crash loses at
    most the open chunk, whose items still have no outcome; the resumed job redoes them and the live unique
    index keeps anybody from being added twice.
    """
    batch = EnrollmentBatch.objects.select_related("campaign__workspace", "created_by").get(pk=batch_id)
    if batch.status != BatchStatus.COMMITTING:
        return batch
    campaign = batch.campaign
    actor = _actor_for(batch, campaign)
    pending = list(
        EnrollmentItem.objects.filter(batch_id=batch.id, outcome="").order_by("id").values_list("id", "subject_id")
    )
    targets = scoped(Target, actor.workspace)
    for start in range(0, len(pending), CHUNK):
        item_ids, subject_ids = map(list, zip(*pending[start : start + CHUNK], strict=True))
        # Every subquery is bounded by the chunk's subjects (see ``live_flags``).
        flags = {
            "found": Exists(plain(targets).filter(pk=OuterRef("subject_id"))),
            **live_flags(campaign, "subject_id", among=subject_ids),
        }
        try:
            with transaction.atomic():
                # Lock the chunk's open items and check their subjects in one query.
                rows = list(
                    EnrollmentItem.objects.select_for_update(skip_locked=True)
                    .filter(ids_match("id", item_ids), outcome="")
                    .annotate(**flags)
                    .order_by("id")
                    .values_list("id", "subject_id", "decision", "klass", *flags)
                )
                if not rows:
                    continue  # another job holds them
                found = {r[1]: (r[5], r[6]) for r in rows if r[4]}
                chunk = [_Item(*r[:4]) for r in rows]
                if not _commit_chunk(batch, campaign, actor, chunk, check=checked(campaign, targets, found)):
                    raise _BatchLeft()
        except _BatchLeft:
            batch.refresh_from_db()
            return batch
    return _finish(batch)


@dataclass(frozen=True)
class _Item:
    id: int
    subject_id: int
    decision: str
    klass: str


def _commit_chunk(
    batch: EnrollmentBatch, campaign: Campaign, actor: Actor, chunk: list, *, check: ChunkCheck | None = None
) -> bool:
    """Check the chunk again (one set-based query, in this transaction): a conflict that appeared after the
    commit's check and has no decision is skipped (nobody is there to ask), one decided "skip" is skipped;
    the rest goes through the one enrollment path (its refusals + the live index). Stores each item's
    outcome and the batch's progress; False (the caller rolls back) when the batch is no longer committing."""
    if check is None:
        check = chunk_check(campaign, [item.subject_id for item in chunk], scoped(Target, actor.workspace))
    outcome: dict[int, str] = {}
    add: list[int] = []
    for item in chunk:
        sid = item.subject_id
        refused = sid not in check.found or sid in check.problems or check.here(sid)
        decision = item.decision or batch.default_decision
        if refused or not check.elsewhere(sid):
            add.append(sid)  # the enrollment path reports the refused ones by reason
        elif not decision:
            outcome[sid] = "conflict_skipped"
        elif decision == Decision.SKIP:
            outcome[sid] = "skipped"
        else:
            add.append(sid)
    report = EnrollmentReport()
    if add:
        enroll_chunk(actor, campaign, add, report, check=check)
    for tid in report.added:
        outcome[tid] = "added"
    for tid in report.added_concurrently:
        outcome[tid] = "added_concurrently"
    # Live here at this check: already live when the preview saw it so, otherwise someone added it since.
    preview_live = {item.subject_id for item in chunk if item.klass == K.ALREADY_LIVE}
    for tid in report.already_live:
        outcome[tid] = K.ALREADY_LIVE if tid in preview_live else "added_concurrently"
    for tid in report.blacklisted:
        outcome[tid] = K.BLACKLISTED
    for tid in report.invalid:
        outcome[tid] = K.INVALID
    skipped = [item for item in chunk if outcome.get(item.subject_id) == "conflict_skipped"]
    if skipped:  # keep what it conflicted with (shown on the review page)
        details = live_elsewhere(campaign, [item.subject_id for item in skipped])
        for item in skipped:
            EnrollmentItem.objects.filter(id=item.id).update(conflicts=details.get(item.subject_id, []))
    return _outcomes_store(batch, {item.id: outcome.get(item.subject_id, "not_added") for item in chunk})


def _outcomes_store(batch: EnrollmentBatch, outcomes: dict[int, str]) -> bool:
    """Each item's outcome, then the batch's progress and a renewed lease — only while it is still
    ``committing`` (False otherwise). PostgreSQL: one statement; elsewhere one UPDATE per outcome."""
    now = timezone.now()
    by_outcome: dict[str, list[int]] = {}
    for item_id, value in outcomes.items():
        by_outcome.setdefault(value, []).append(item_id)
    if not is_postgresql(connection):
        for value, item_ids in by_outcome.items():
            EnrollmentItem.objects.filter(id__in=item_ids).update(outcome=value)
        return bool(
            EnrollmentBatch.objects.filter(pk=batch.id, status=BatchStatus.COMMITTING).update(
                processed=F("processed") + len(outcomes), lease_until=now + LEASE, updated_at=now
            )
        )
    # One UPDATE per outcome (``id = ANY(array)``: index probes, not a scan of the batch) and the progress;
    # table names come from the models, every value is a parameter.
    items, batches = EnrollmentItem._meta.db_table, EnrollmentBatch._meta.db_table
    ctes, params = [], []
    for n, (value, item_ids) in enumerate(by_outcome.items()):
        ctes.append(f"u{n} AS (UPDATE {items} SET outcome = %s WHERE id = ANY(%s::bigint[]) RETURNING 1)")  # noqa: S608
        params += [value, id_array(item_ids)]
    counted = " + ".join(f"(SELECT count(*) FROM u{n})" for n in range(len(ctes)))  # noqa: S608
    sql = (
        f"WITH {', '.join(ctes)} UPDATE {batches} SET processed = processed + {counted}, lease_until = %s, "  # noqa: S608
        "updated_at = %s WHERE id = %s AND status = %s"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, [*params, now + LEASE, now, batch.id, BatchStatus.COMMITTING])
        return cursor.rowcount == 1


def _finish(batch: EnrollmentBatch) -> EnrollmentBatch:
    outcomes = dict(
        EnrollmentItem.objects.filter(batch_id=batch.id)
        .values_list("outcome")
        .annotate(n=Count("id"))
        .values_list("outcome", "n")
    )
    now = timezone.now()
    with transaction.atomic():  # the batch's end and its webhook event commit together, once
        if EnrollmentBatch.objects.filter(pk=batch.id, status=BatchStatus.COMMITTING).update(
            status=BatchStatus.COMMITTED,
            result=outcomes,
            processed=batch.total if batch.total else 0,
            lease_until=None,
            finished_at=now,
        ):
            webhook_events.enrollment_committed(batch=batch, result=outcomes, finished_at=now)
    batch.refresh_from_db()
    return batch


def enrollment_batches_resume(*, now=None, enqueue: Callable[[int], None] | None = None) -> dict[str, int]:
    """Beat: a committing batch whose lease ran out is re-queued (its worker died), or failed after the last try."""
    return leased_jobs_resume(
        EnrollmentBatch,
        working=BatchStatus.COMMITTING,
        failed={
            "status": BatchStatus.FAILED,
            "error": "کار افزودن چند بار بی‌پاسخ ماند؛ بخشی از مخاطبان افزوده شده‌اند (نتیجه هر مورد را ببینید).",
        },
        send=enqueue or _enqueue,
        now=now or timezone.now(),
    )
