"""Building a run's audience: one attempt per build id, heartbeat while inserting, publish FROZEN once.

Members are written with the attempt's build id; membership is always read
through the published (FROZEN) attempt's build id, so rows of an abandoned
attempt never count. Publishing re-checks, under the run's row lock, that
the run is still BUILDING with this build id as its lease — an attempt that
lost its lease is never published (the reclaim made a new attempt).
"""

from __future__ import annotations

import uuid
from datetime import datetime

from django.db import transaction
from django.utils import timezone

from campaigns.chains.audience import definition_of
from campaigns.chains.node_models import ChainNode
from campaigns.chains.run_models import CampaignRun, RunAudienceMember, RunAudienceSnapshot
from campaigns.chains.runs.audience import (
    conversions_from_target_status,
    delivery_reports_pending,
    inherited_audience,
    is_control,
    root_audience,
)
from campaigns.chains.runs.choices import AudienceClass, RunStatus, RunType, SkipReason, SnapshotStatus
from campaigns.chains.runs.notices import root_audience_review
from campaigns.chains.runs.skips import run_skip
from campaigns.chains.runs.transitions import LEASE, duration_ms, log_run, run_apply, run_task_send

CHUNK = 1000


class LeaseLost(Exception):
    """Another attempt owns the build now."""


def _heartbeat(snapshot: RunAudienceSnapshot, now: datetime) -> None:
    alive = RunAudienceSnapshot.objects.filter(pk=snapshot.pk, status=SnapshotStatus.BUILDING).update(
        heartbeat_at=now, lease_expires_at=now + LEASE
    )
    moved = CampaignRun.objects.filter(
        pk=snapshot.run_id, status=RunStatus.BUILDING, lease_token=snapshot.build_id
    ).update(lease_expires_at=now + LEASE, next_check_at=now + LEASE)
    if not (alive and moved):
        raise LeaseLost()


def _selection(run: CampaignRun, now: datetime) -> tuple[list[int], dict]:
    if run.run_type == RunType.RERUN:  # the earlier run's frozen audience, the same people again
        earlier = run.source_run
        members = RunAudienceMember.objects.filter(build_id=earlier.target_snapshot.build_id).order_by("id")
        return list(members.values_list("target_id", flat=True)), {
            "source": "RERUN",
            "rerunOfRunId": earlier.id,
            "sourceTargetSnapshotId": earlier.target_snapshot_id,
            "dataAsOf": now.isoformat(),
        }
    if run.run_type != RunType.INHERITED:
        campaign = run.campaign
        list_id, filters = definition_of(campaign)
        return root_audience(campaign), {
            "source": "TARGET_LIST",
            "targetListId": list_id,
            "targetFilters": filters,
            "dataAsOf": now.isoformat(),
        }
    source = run.source_run
    as_of = now
    if run.inherit_type in (AudienceClass.CONVERTED, AudienceClass.NOT_CONVERTED):
        conversions_from_target_status(source, now=now)  # status-goal conversions true up to now
    rule = {
        "sourceRunId": source.id,
        "sourceTargetSnapshotId": source.target_snapshot_id,
        "inheritType": run.inherit_type,
        "deliveryCutoffAt": now.isoformat(),
        "conversionDataAsOf": as_of.isoformat(),
    }
    if run.inherit_type == AudienceClass.FAILED_DELIVERY:
        # Reports still missing when the report window ended: those sends count as sent (not failed).
        rule["deliveryReportsPending"] = delivery_reports_pending(source)
    return inherited_audience(run, cutoff=now), rule


def run_audience_build(*, run_id: int, build_id: str, now: datetime | None = None, send=None) -> str:
    """Build attempt ``build_id`` of a run; returns what happened (for logs and tests)."""
    now = now or timezone.now()
    build_uuid = uuid.UUID(str(build_id))
    snapshot = RunAudienceSnapshot.objects.filter(build_id=build_uuid).first()
    run = CampaignRun.objects.select_related("campaign", "source_run__campaign").filter(pk=run_id).first()
    if snapshot is None or run is None or snapshot.status != SnapshotStatus.BUILDING:
        return "gone"
    if run.status != RunStatus.BUILDING or run.lease_token != build_uuid:
        return "lease_lost"
    started = timezone.now()
    try:
        target_ids, rule = _selection(run, now)
        campaign: ChainNode = run.campaign
        controls = 0
        for start in range(0, len(target_ids), CHUNK):
            _heartbeat(snapshot, now)
            chunk = target_ids[start : start + CHUNK]
            rows = []
            for tid in chunk:
                control = is_control(campaign, tid)
                controls += int(control)
                rows.append(
                    RunAudienceMember(snapshot=snapshot, build_id=build_uuid, target_id=tid, is_control=control)
                )
            RunAudienceMember.objects.bulk_create(rows, ignore_conflicts=True)
    except LeaseLost:
        return "lease_lost"
    return _publish(run, snapshot, len(target_ids), controls, rule, now, started, send)


def _publish(run, snapshot, count: int, controls: int, rule: dict, now: datetime, started: datetime, send) -> str:
    with transaction.atomic():
        locked = CampaignRun.objects.select_for_update().get(pk=run.pk)
        snap = RunAudienceSnapshot.objects.select_for_update().get(pk=snapshot.pk)
        if (
            locked.status != RunStatus.BUILDING
            or locked.lease_token != snapshot.build_id
            or snap.status != SnapshotStatus.BUILDING
        ):
            return "lease_lost"  # never publish an attempt that is no longer the owner
        RunAudienceSnapshot.objects.filter(pk=snap.pk).update(
            status=SnapshotStatus.FROZEN,
            frozen_at=now,
            member_count=count,
            control_count=controls,
            selection_rule_snapshot=rule,
        )
        common = {
            "target_snapshot_id": snap.pk,
            "audience_count": count,
            "control_count": controls,
            "selection_rule_snapshot": rule,
        }
        if count == 0:
            CampaignRun.objects.filter(pk=locked.pk).update(**common)
            run_skip(locked, SkipReason.EMPTY_AUDIENCE, now=now)
            log_run("run skipped: empty audience", locked, attempt_no=snap.attempt_no)
            if locked.run_type != RunType.INHERITED:  # the approved audience emptied since: the chain needs review
                root_audience_review(run.campaign)
            return "empty"
        # The first dispatch attempt is handed out now; the tick counts every attempt it hands out again.
        run_apply(
            locked,
            "freeze",
            now=now,
            lease_token=None,
            lease_expires_at=None,
            next_check_at=now + LEASE,
            dispatch_attempts=1,
            **common,
        )
        log_run(
            "audience frozen",
            locked,
            attempt_no=snap.attempt_no,
            count=count,
            control=controls,
            duration_ms=duration_ms(started, timezone.now()),
        )
        send = send or run_task_send
        transaction.on_commit(lambda: send("dispatch", locked.id))
    return "frozen"
