"""What every way of enrolling shares: a subject's checks, one chunk's insert, the conflict lookup.

Direct enrollment (``enrollment``), reviewed batches (``enrollment_batches``) and the auto-enroll
rule (``auto_enroll``) all build on these; none of them imports another.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from django.contrib.contenttypes.models import ContentType
from django.db import IntegrityError, transaction
from django.utils import timezone

from automation import events
from automation.choices import LIVE_STATUSES, EnrollmentClass, ExecutionStatus
from automation.engine.graph import published_graph
from automation.engine.registry import ACTIONS
from automation.errors import CampaignClosed, CampaignNotJourney
from automation.models import Execution
from automation.selectors import campaign_journey_version_id
from campaigns.choices import CampaignKind, CampaignStatus
from campaigns.models import Campaign, Target, Workspace
from campaigns.platform.tenancy import Actor, get_scoped, scoped

K = EnrollmentClass
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


def subject_problems(campaign: Campaign, targets: list) -> dict[int, str]:
    """Ask every action of the pinned version whether it can reach each subject (reason per refused id)."""
    problems: dict[int, str] = {}
    graph = published_graph(campaign_journey_version_id(campaign))
    for key in sorted({n.subtype for n in graph.nodes if n.type == "action"}):
        action = ACTIONS.get(key)
        if action is not None and hasattr(action, "subject_problems"):
            for subject_id, reason in action.subject_problems(campaign.workspace, targets).items():
                problems.setdefault(subject_id, reason)
    return problems


# --------------------------------------------------------------------------- classification
@dataclass(frozen=True)
class Verdict:
    klass: str
    reason: str = ""
    conflicts: tuple = ()


def journey_campaign(workspace: Workspace, campaign_id: int, *, open_only: bool = True) -> Campaign:
    campaign = get_scoped(Campaign, workspace, campaign_id)
    if campaign.kind != CampaignKind.JOURNEY:
        raise CampaignNotJourney()
    if open_only and campaign.status in (CampaignStatus.COMPLETED, CampaignStatus.CANCELLED):
        raise CampaignClosed()
    return campaign


def live_elsewhere(campaign: Campaign, subject_ids: Iterable[int]) -> dict[int, list[dict[str, Any]]]:
    """Subject id → the live executions it has in *other* campaigns of the workspace (the conflict details)."""
    ids = list(subject_ids)
    if not ids:
        return {}
    ct = ContentType.objects.get_for_model(Target)
    rows = (
        Execution.objects.filter(
            workspace_id=campaign.workspace_id, subject_type=ct, subject_id__in=ids, status__in=LIVE_STATUSES
        )
        .exclude(campaign_id=campaign.id)
        .values(
            "id",
            "subject_id",
            "campaign_id",
            "campaign__name",
            "campaign__status",
            "workflow_id",
            "workflow__name",
            "current_node__node_key",
            "current_node__name",
            "next_run_at",
            "status",
        )
        .order_by("subject_id", "campaign_id")
    )
    out: dict[int, list[dict[str, Any]]] = {}
    for r in rows:
        out.setdefault(r["subject_id"], []).append(
            {
                "execution_id": r["id"],
                "campaign_id": r["campaign_id"],
                "campaign_name": r["campaign__name"],
                "campaign_status": r["campaign__status"],
                "workflow_id": r["workflow_id"],
                "workflow_name": r["workflow__name"],
                "current_step": r["current_node__name"] or r["current_node__node_key"] or "",
                "next_run_at": r["next_run_at"].isoformat() if r["next_run_at"] else None,
                "status": r["status"],
            }
        )
    return out


def classify(campaign: Campaign, ids: list[int], visible) -> dict[int, Verdict]:
    """Class of each subject id (one chunk): invalid / blacklisted / already_live / conflict / ready.

    ``visible`` is the target queryset the caller may see (owner visibility); others are ``not_found``.
    """
    targets = {t.id: t for t in visible.filter(pk__in=ids)}
    problems = subject_problems(campaign, list(targets.values()))
    ct = ContentType.objects.get_for_model(Target)
    here = set(
        Execution.objects.filter(
            campaign_id=campaign.id, subject_type=ct, subject_id__in=list(targets), status__in=LIVE_STATUSES
        ).values_list("subject_id", flat=True)
    )
    elsewhere = live_elsewhere(campaign, [i for i in targets if i not in here])
    out: dict[int, Verdict] = {}
    for tid in ids:
        if tid not in targets:
            out[tid] = Verdict(K.INVALID, "not_found")
        elif problems.get(tid) == "blacklisted":
            out[tid] = Verdict(K.BLACKLISTED, "blacklisted")
        elif tid in problems:
            out[tid] = Verdict(K.INVALID, problems[tid])
        elif tid in here:
            out[tid] = Verdict(K.ALREADY_LIVE)
        elif tid in elsewhere:
            out[tid] = Verdict(K.CONFLICT, "", tuple(elsewhere[tid]))
        else:
            out[tid] = Verdict(K.READY)
    return out


def enroll_chunk(
    actor: Actor, campaign: Campaign, ids: list[int], report: EnrollmentReport, *, source: str = ""
) -> None:
    """``source`` marks the enrolled events ("auto" for the auto-enroll rule)."""
    ct = ContentType.objects.get_for_model(Target)
    targets = {t.id: t for t in scoped(Target, actor.workspace).filter(pk__in=ids)}
    for missing in [i for i in ids if i not in targets]:
        report.invalid[missing] = "not_found"
    problems = subject_problems(campaign, list(targets.values()))
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
