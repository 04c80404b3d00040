"""Enrollment: subjects → executions (one service; the conflict review flow builds on it later).

Invalid subjects (missing, deleted, refused by a channel — e.g. no valid
mobile), blacklisted ones and ones already live in this campaign are refused
and reported; the live unique index is the final race guard ("added
concurrently").
"""

from __future__ import annotations

from dataclasses import dataclass, field

from django.contrib.contenttypes.models import ContentType
from django.db import IntegrityError, transaction
from django.utils import timezone

from automation import events
from automation.choices import LIVE_STATUSES, ExecutionStatus
from automation.engine.graph import published_graph
from automation.engine.registry import ACTIONS
from automation.errors import CampaignClosed, CampaignNotJourney
from automation.models import Execution
from automation.selectors import campaign_journey_get, campaign_journey_version_id
from campaigns.choices import CampaignStatus
from campaigns.models import Campaign, Target
from campaigns.platform.errors import ValidationFailed
from campaigns.platform.permissions import Perm
from campaigns.platform.tenancy import Actor, get_scoped, scoped

MAX_SUBJECTS = 20000
CHUNK = 500


@dataclass
class EnrollmentReport:
    added: list[int] = field(default_factory=list)
    invalid: dict[int, str] = field(default_factory=dict)
    blacklisted: list[int] = field(default_factory=list)
    already_live: list[int] = field(default_factory=list)
    added_concurrently: list[int] = field(default_factory=list)
    conflict_skipped: list[int] = field(default_factory=list)

    def as_dict(self) -> dict:
        return {
            "added": self.added,
            "invalid": [{"subject_id": k, "reason": v} for k, v in sorted(self.invalid.items())],
            "blacklisted": self.blacklisted,
            "already_live": self.already_live,
            "added_concurrently": self.added_concurrently,
            "conflict_skipped": self.conflict_skipped,
            "counts": {
                "added": len(self.added),
                "invalid": len(self.invalid),
                "blacklisted": len(self.blacklisted),
                "already_live": len(self.already_live),
                "added_concurrently": len(self.added_concurrently),
                "conflict_skipped": len(self.conflict_skipped),
            },
        }


def _subject_problems(campaign: Campaign, targets: list) -> dict[int, str]:
    """Ask every action of the pinned version whether it can reach each subject (reason per refused id)."""
    problems: dict[int, str] = {}
    graph = published_graph(campaign_journey_version_id(campaign))
    for key in sorted({n.subtype for n in graph.nodes if n.type == "action"}):
        action = ACTIONS.get(key)
        if action is not None and hasattr(action, "subject_problems"):
            for subject_id, reason in action.subject_problems(campaign.workspace, targets).items():
                problems.setdefault(subject_id, reason)
    return problems


def enroll_subjects(
    *, actor: Actor, campaign_id: int, target_ids: list[int], on_conflict: str | None = None
) -> EnrollmentReport:
    """Enroll at once. Subjects live in another campaign are added or skipped only as ``on_conflict``
    (``add``/``skip``) says; without it, their presence is a 400 ``CONFLICTS_PRESENT`` naming them."""
    actor.require(Perm.MANAGE_CAMPAIGNS)
    campaign = get_scoped(Campaign, actor.workspace, campaign_id)
    if campaign_journey_get(campaign) is None:
        raise CampaignNotJourney()
    if campaign.status in (CampaignStatus.COMPLETED, CampaignStatus.CANCELLED):
        raise CampaignClosed()
    ids = list(dict.fromkeys(int(i) for i in target_ids))
    if not ids:
        raise ValidationFailed.field("target_ids", "دست‌کم یک مخاطب انتخاب کنید.")
    if len(ids) > MAX_SUBJECTS:
        raise ValidationFailed.field("target_ids", f"حداکثر {MAX_SUBJECTS} مخاطب در هر بار.")
    if on_conflict not in (None, "add", "skip"):
        raise ValidationFailed.field("on_conflict", "add یا skip.")
    report = EnrollmentReport()
    if on_conflict != "add":
        from automation.services.enrollment_batches import live_elsewhere

        elsewhere: dict[int, list] = {}
        for start in range(0, len(ids), CHUNK):
            elsewhere.update(live_elsewhere(campaign, ids[start : start + CHUNK]))
        if elsewhere and on_conflict is None:
            from automation.errors import ConflictsPresent

            raise ConflictsPresent(
                details={
                    "on_conflict": ["add یا skip را صریحاً بفرستید."],
                    "subject_ids": sorted(elsewhere),
                    "conflicts": [{"subject_id": k, "conflicts": v} for k, v in sorted(elsewhere.items())[:200]],
                }
            )
        report.conflict_skipped = sorted(elsewhere)
        ids = [i for i in ids if i not in elsewhere]
    for start in range(0, len(ids), CHUNK):
        _enroll_chunk(actor, campaign, ids[start : start + CHUNK], report)
    return report


def _enroll_chunk(
    actor: Actor, campaign: Campaign, ids: list[int], report: EnrollmentReport, *, source: str = ""
) -> None:
    """``source`` marks the enrolled events ("auto" for the auto-enroll rule)."""
    ct = ContentType.objects.get_for_model(Target)
    targets = {t.id: t for t in scoped(Target, actor.workspace).filter(pk__in=ids)}
    for missing in [i for i in ids if i not in targets]:
        report.invalid[missing] = "not_found"
    problems = _subject_problems(campaign, list(targets.values()))
    live = set(
        Execution.objects.filter(
            campaign=campaign, subject_type=ct, subject_id__in=list(targets), status__in=LIVE_STATUSES
        ).values_list("subject_id", flat=True)
    )
    ready = []
    for tid in [i for i in ids if i in targets]:
        if problems.get(tid) == "blacklisted":
            report.blacklisted.append(tid)
        elif tid in problems:
            report.invalid[tid] = problems[tid]
        elif tid in live:
            report.already_live.append(tid)
        else:
            ready.append(tid)
    if not ready:
        return
    journey = campaign.journey
    graph = published_graph(journey.workflow_version_id)
    first = graph.first_step()
    now = timezone.now()
    status = ExecutionStatus.ACTIVE if campaign.status == CampaignStatus.ACTIVE else ExecutionStatus.PENDING

    def build(tid: int) -> Execution:
        return Execution(
            workspace_id=campaign.workspace_id,
            campaign_id=campaign.id,
            workflow_id=journey.workflow_id,
            version_id=journey.workflow_version_id,
            subject_type=ct,
            subject_id=tid,
            current_node_id=first.id,
            needs_budget=first.consumes_budget,
            status=status,
            eligible_at=now,
            next_run_at=now,
            node_entered_at=now,
            started_at=now if status == ExecutionStatus.ACTIVE else None,
        )

    created: list[Execution] = []
    try:
        with transaction.atomic():
            created = Execution.objects.bulk_create([build(t) for t in ready])
    except IntegrityError:
        # Someone enrolled some of these in the meantime: insert one by one, the index decides.
        created = []
        for tid in ready:
            try:
                with transaction.atomic():
                    created.append(Execution.objects.bulk_create([build(tid)])[0])
            except IntegrityError:
                report.added_concurrently.append(tid)
    rows = [
        {
            "id": e.id,
            "workspace_id": e.workspace_id,
            "campaign_id": e.campaign_id,
            "subject_type_id": ct.id,
            "subject_id": e.subject_id,
            "current_node_id": e.current_node_id,
        }
        for e in created
    ]
    data = {"by": actor.user.pk if actor.user is not None else None, **({"source": source} if source else {})}
    message = "(افزودن خودکار)" if source == "auto" else ""
    events.enrolled_events(rows, status=status, message=message, data=data, now=now)
    report.added.extend(e.subject_id for e in created)
