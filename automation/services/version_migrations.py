"""Live edits: move the live executions of an older workflow version to the published one (journeys.md
"Live edits").

``version_migration_commit`` checks the plan (one choice per old node: stay, move to a node of the new version,
exit), writes the ``VersionMigration`` row whose id is derived from the plan — committing the same plan again
returns that row and moves nobody twice —, pins the campaigns of the old version to the new one (new
enrollments enter it) and runs the move inline (≤ ``INLINE_MAX``) or in the background job.

``version_migration_run`` sweeps the old version's live executions in id order, ``CHUNK`` per transaction, each
chunk one statement (``automation.services.version_mover``) that locks the rows it moves (``SKIP LOCKED``),
updates them and appends one event each. An execution a worker holds (queued or processing) is not touched: the
next sweep finds it where its step left it and applies that node's choice, so it moves after its step or — if
it finished or stands at a node the plan keeps — not at all; never twice (a moved row is no longer on the old
version), never lost (every sweep starts from the first id). Sweeps repeat while claimed rows remain, up to the
lease (``AUTOMATION_LEASE_SECONDS``) after the commit; ``version_migrations_resume`` (beat) re-queues a job
whose lease ran out (``automation.services.leases``).
"""

from __future__ import annotations

import hashlib
import json
import uuid
from collections.abc import Callable
from datetime import timedelta
from typing import Any

from celery import current_app
from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import F
from django.utils import timezone

from automation.choices import IN_FLIGHT_STATUSES, MigrationChoice, MigrationKind, MigrationStatus
from automation.engine.graph import graph_of_version
from automation.errors import StaleVersion
from automation.live_edits import in_doubt, live_on_version, migration_preview, workflow_campaign_ids
from automation.models import CampaignJourney, VersionMigration, Workflow, WorkflowVersion
from automation.services.leases import LEASE, leased_jobs_resume
from automation.services.version_mover import MoveStep, PlanEntry, move_chunk
from campaigns.models import Campaign
from campaigns.platform.errors import ValidationFailed
from campaigns.platform.permissions import Perm
from campaigns.platform.tenancy import Actor, get_scoped

VERSION_MIGRATION_TASK = "automation.version_migration_run"
INLINE_MAX = 300
CHUNK = 5000
NAMESPACE = uuid.UUID("6f1c2a59-6a0e-4bd2-9a53-0c1f3f7f4e21")


def _versions(
    actor: Actor, workflow_id: int, from_version_id: int, to_version_id: int
) -> tuple[Workflow, WorkflowVersion, WorkflowVersion]:
    """The workflow and both versions; 409 ``STALE_VERSION`` unless ``to`` is the published version and ``from``
    an older published one."""
    workflow = get_scoped(Workflow, actor.workspace, workflow_id)
    versions = WorkflowVersion.objects.filter(workflow=workflow)
    old = get_scoped(WorkflowVersion, actor.workspace, from_version_id, queryset=versions)
    new = get_scoped(WorkflowVersion, actor.workspace, to_version_id, queryset=versions)
    if workflow.published_version_id != new.id:
        raise StaleVersion(details={"published_version_id": workflow.published_version_id})
    if old.id == new.id or old.version_number > new.version_number or old.published_at is None:
        raise ValidationFailed.field("from_version_id", "نسخهٔ مبدأ باید نسخهٔ منتشرشدهٔ قدیمی‌تری باشد.")
    return workflow, old, new


def _campaign_id(actor: Actor, campaign_id: int | None) -> int | None:
    return None if campaign_id is None else get_scoped(Campaign, actor.workspace, campaign_id).id


def version_migration_preview(
    *, actor: Actor, workflow_id: int, from_version_id: int, to_version_id: int, campaign_id: int | None = None
):
    """The dry run: diff, counts per old node, default choices (nothing written)."""
    actor.require(Perm.MANAGE_WORKFLOWS)
    workflow, old, new = _versions(actor, workflow_id, from_version_id, to_version_id)
    return migration_preview(
        workflow=workflow, from_version=old, to_version=new, campaign_id=_campaign_id(actor, campaign_id)
    )


def _plan(preview, choices: list[dict[str, Any]] | None, text_fix: bool) -> list[dict[str, Any]]:
    """Every old node's choice: the given one, else the default (move to the same key, else stay). A text fix
    moves the executions standing at or before a changed step to the same step of the new version."""
    nodes = {n.node_key: n for n in preview.nodes}
    targets = {t["node_key"] for t in preview.targets}
    if text_fix:
        if not preview.text_only:
            raise ValidationFailed.field("kind", "این نسخه چیزی جز متن پیامک را هم تغییر داده است.")
        return [
            {"node_key": n.node_key, "choice": MigrationChoice.MOVE, "to_node_key": n.node_key}
            for n in preview.nodes
            if n.reaches_text_change
        ]
    given: dict[str, dict[str, Any]] = {}
    for i, item in enumerate(choices or []):
        key = str(item.get("node_key", ""))
        if key not in nodes:
            raise ValidationFailed.field(f"choices[{i}].node_key", "این گام در نسخهٔ قبلی نیست.")
        choice = item.get("choice")
        if choice not in MigrationChoice.values:
            raise ValidationFailed.field(f"choices[{i}].choice", "انتخاب باید stay، move یا exit باشد.")
        to_key = item.get("to_node_key")
        if choice == MigrationChoice.MOVE and to_key not in targets:
            raise ValidationFailed.field(f"choices[{i}].to_node_key", "گام مقصد در نسخهٔ تازه نیست.")
        given[key] = {"node_key": key, "choice": choice, "to_node_key": to_key if choice == "move" else None}
    plan = []
    for node in preview.nodes:
        entry = given.get(node.node_key) or {
            "node_key": node.node_key,
            "choice": node.default_choice,
            "to_node_key": node.default_to,
        }
        if entry["choice"] != MigrationChoice.STAY:
            plan.append(entry)
    return plan


def _plan_id(old: WorkflowVersion, new: WorkflowVersion, campaign_id, plan, recompute: bool, kind: str) -> uuid.UUID:
    canonical = json.dumps(
        {
            "from": old.id,
            "to": new.id,
            "campaign": campaign_id,
            "plan": sorted(plan, key=lambda e: e["node_key"]),
            "recompute": recompute,
            "kind": kind,
        },
        sort_keys=True,
    )
    return uuid.uuid5(NAMESPACE, hashlib.sha256(canonical.encode()).hexdigest())


def version_migration_commit(
    *,
    actor: Actor,
    workflow_id: int,
    from_version_id: int,
    to_version_id: int,
    choices: list[dict[str, Any]] | None = None,
    recompute_waits: bool = False,
    text_fix: bool = False,
    campaign_id: int | None = None,
    enqueue: Callable[[str], None] | None = None,
) -> VersionMigration:
    """Start moving the old version's live executions as planned (idempotent: the same plan → the same row)."""
    actor.require(Perm.MANAGE_WORKFLOWS)
    actor.require(Perm.MANAGE_CAMPAIGNS)
    workflow, old, new = _versions(actor, workflow_id, from_version_id, to_version_id)
    campaign_id = _campaign_id(actor, campaign_id)
    preview = migration_preview(workflow=workflow, from_version=old, to_version=new, campaign_id=campaign_id)
    kind = MigrationKind.TEXT_FIX if text_fix else MigrationKind.PLAN
    plan = _plan(preview, choices, text_fix)
    recompute = bool(recompute_waits) and not text_fix
    pk = _plan_id(old, new, campaign_id, plan, recompute, kind)
    existing = VersionMigration.objects.filter(pk=pk, workspace=actor.workspace).first()
    if existing is not None:
        return existing
    planned = {e["node_key"] for e in plan}
    now = timezone.now()
    try:
        with transaction.atomic():
            migration = VersionMigration.objects.create(
                id=pk,
                workspace=actor.workspace,
                workflow=workflow,
                from_version=old,
                to_version=new,
                campaign_id=campaign_id,
                kind=kind,
                plan=plan,
                recompute_waits=recompute,
                total=sum(n.live - n.held for n in preview.nodes if n.node_key in planned),
                attempts=1,
                lease_until=now + LEASE,
                created_by=actor.user,
            )
            # New enrollments of these campaigns enter the new version.
            pinned = CampaignJourney.objects.filter(workflow=workflow, workflow_version=old)
            if campaign_id is not None:
                pinned = pinned.filter(campaign_id=campaign_id)
            pinned.update(workflow_version=new, updated_at=now)
    except IntegrityError:  # the same plan committed at the same moment
        return VersionMigration.objects.get(pk=pk)
    if migration.total <= INLINE_MAX:
        return version_migration_run(migration_id=str(migration.pk), enqueue=enqueue)
    send = enqueue or _enqueue
    transaction.on_commit(lambda: send(str(migration.pk)))
    return migration


def _enqueue(migration_id: str, countdown: float = 0) -> None:
    current_app.signature(VERSION_MIGRATION_TASK).apply_async(
        args=[migration_id], queue="engine", countdown=countdown or None
    )


def _steps(migration: VersionMigration) -> MoveStep:
    """The plan as node ids of both versions, with what the mover needs to know of each node."""
    old, new = graph_of_version(migration.from_version), graph_of_version(migration.to_version)
    entries = []
    for item in migration.plan:
        source = old.by_key.get(item["node_key"])
        if source is None:
            continue
        target = new.by_key.get(item.get("to_node_key") or "") if item["choice"] == MigrationChoice.MOVE else None
        if item["choice"] == MigrationChoice.MOVE and target is None:
            continue
        entries.append(PlanEntry.of(source, item["choice"], target))
    campaigns = workflow_campaign_ids(migration.workflow, migration.campaign_id)
    return MoveStep(
        migration_id=str(migration.pk),
        from_version=migration.from_version,
        to_version=migration.to_version,
        campaign_ids=campaigns,
        entries=entries,
        recompute_waits=migration.recompute_waits,
        actor_id=migration.created_by_id,
    )


def _remaining(migration: VersionMigration, step: MoveStep) -> tuple[int, int]:
    """Executions still at a planned node of the old version: (not moved yet — claimed by a worker, or locked
    while the sweep passed —, in doubt and staying)."""
    qs = live_on_version(migration.from_version, step.campaign_ids).filter(
        current_node_id__in=[e.old_node for e in step.entries]
    )
    held = qs.exclude(status__in=IN_FLIGHT_STATUSES).filter(in_doubt())
    return qs.count() - held.count(), held.count()


def version_migration_run(*, migration_id: str, enqueue: Callable[..., None] | None = None) -> VersionMigration:
    """One sweep over the old version (resumable, idempotent); then finish, or come back for the claimed ones."""
    migration = VersionMigration.objects.select_related("workflow", "from_version", "to_version").get(pk=migration_id)
    if migration.status != MigrationStatus.RUNNING:
        return migration
    step = _steps(migration)
    cursor = 0
    while step.entries:
        with transaction.atomic():
            done = move_chunk(step, after_id=cursor, limit=CHUNK)
            counts = {k: v for k, v in (("moved", done.moved), ("exited", done.exited)) if v}
            stopped = _add_result(migration.pk, counts, processed=F("processed") + done.moved + done.exited) is None
            if stopped:  # finished (by another job) or failed meanwhile: this chunk is not moved
                transaction.set_rollback(True)
        if stopped:
            migration.refresh_from_db()
            return migration
        if done.last_id is None or done.scanned < CHUNK:
            break
        cursor = done.last_id
    busy, held = _remaining(migration, step)
    now = timezone.now()
    deadline = migration.created_at + timedelta(seconds=settings.AUTOMATION_LEASE_SECONDS)
    remaining = {"busy": busy, "held": held}
    with transaction.atomic():
        if busy and now < deadline:
            if _add_result(migration.pk, {}, remaining) is not None:
                send = enqueue or _enqueue
                transaction.on_commit(lambda: send(str(migration.pk), countdown=5))
        else:
            _add_result(migration.pk, {}, remaining, status=MigrationStatus.DONE, lease_until=None, finished_at=now)
    migration.refresh_from_db()
    return migration


def _add_result(pk, counts: dict[str, int], replace: dict[str, int] | None = None, **fields) -> dict | None:
    """Add ``counts`` to the running migration's ``result`` (and set ``replace``) under its row lock, with
    ``fields`` and a renewed lease: two jobs sweeping the same migration never lose each other's counts. None
    when it no longer runs. Call inside a transaction."""
    running = VersionMigration.objects.select_for_update().filter(pk=pk, status=MigrationStatus.RUNNING)
    current = running.values_list("result", flat=True).first()
    if current is None:
        return None
    result = dict(current or {})
    for key, value in counts.items():
        result[key] = result.get(key, 0) + value
    result |= replace or {}
    now = timezone.now()
    running.update(result=result, **({"lease_until": now + LEASE} | fields), updated_at=now)
    return result


def version_migrations_resume(*, now=None, enqueue: Callable[..., None] | None = None) -> dict[str, int]:
    """Beat: a running migration whose lease ran out is re-queued (its worker died), or failed after the last try."""
    send = enqueue or _enqueue
    return leased_jobs_resume(
        VersionMigration,
        working=MigrationStatus.RUNNING,
        failed={"status": MigrationStatus.FAILED},
        send=lambda pk: send(str(pk)),
        now=now or timezone.now(),
    )
