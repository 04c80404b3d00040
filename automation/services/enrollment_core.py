"""What every way of enrolling shares: one chunk's set-based check, its insert, the conflict lookup.

Direct enrollment (``enrollment``), reviewed batches (``enrollment_batches``) and the auto-enroll
rule (``auto_enroll``) all build on these; none of them imports another.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.contrib.contenttypes.models import ContentType
from django.db.models import Exists, OuterRef, Q, QuerySet
from django.utils import timezone

from automation.choices import LIVE_STATUSES, EnrollmentClass, ExecutionStatus
from automation.engine.graph import published_graph
from automation.engine.nodes import step_display_name
from automation.engine.registry import ACTIONS
from automation.errors import CampaignClosed, CampaignNotJourney
from automation.models import Execution
from automation.selectors import campaign_journey_version_id
from automation.services.enrollment_writer import executions_insert
from campaigns.choices import CampaignKind, CampaignStatus
from campaigns.models import Campaign, Target, Workspace
from campaigns.platform.bulk import ids_match
from campaigns.platform.tenancy import Actor, get_scoped, scoped

K = EnrollmentClass
# "Live in another campaign", written as "not ended": a condition the planner cannot match to the live
# unique index's predicate, so it probes the (workspace, subject type, subject, status) index per subject
# instead of scanning the live executions of every campaign — whatever its statistics say.
LIVE_ELSEWHERE = ~Q(status__in=[s for s in ExecutionStatus.values if s not in LIVE_STATUSES])
MAX_SUBJECTS = 20000
# A channel's refusals that are a blacklist (the staff's list, or the recipient's own opt-out): the "blacklisted"
# enrollment class, whichever of the two the channel names.
BLACKLIST_PROBLEMS = ("blacklisted", "opt_out")
# Every reason an action's ``subject_problems`` may give for a target it cannot reach.
SUBJECT_PROBLEMS = ("no_valid_mobile", *BLACKLIST_PROBLEMS)
# Why an id was not enrolled as invalid (``EnrollmentReport.invalid``; an enum in the API schema): no target of
# the workspace has it, or a channel's refusal that is not a blacklist.
INVALID_REASONS = ("not_found", *(p for p in SUBJECT_PROBLEMS if p not in BLACKLIST_PROBLEMS))
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


def subject_problems(campaign: Campaign, subjects: QuerySet) -> dict[int, str]:
    """Ask every action of the pinned version which of ``subjects`` it cannot reach (reason per refused id).

    ``subjects`` is a queryset of targets (a whole chunk): a channel answers for the set at once — the SMS
    channel with one query for missing mobiles and blacklisted numbers — and returns only the refused ids.
    """
    problems: dict[int, str] = {}
    graph = published_graph(campaign_journey_version_id(campaign))
    for key in sorted({n.subtype for n in graph.nodes if n.type == "action"}):
        action = ACTIONS.get(key)
        if action is not None and hasattr(action, "subject_problems"):
            for subject_id, reason in action.subject_problems(campaign.workspace, subjects).items():
                problems.setdefault(subject_id, reason)
    return problems


@dataclass
class ChunkCheck:
    """One chunk's facts: every id found among the targets → (live in this campaign, live in another one of
    the workspace), and the channels' refusals of the found ones."""

    found: dict[int, tuple[bool, bool]]
    problems: dict[int, str]

    def here(self, subject_id: int) -> bool:
        return self.found.get(subject_id, (False, False))[0]

    def elsewhere(self, subject_id: int) -> bool:
        return self.found.get(subject_id, (False, False))[1]


def live_flags(
    campaign: Campaign, ref: str, *, among: list[int], here: bool = True, elsewhere: bool = True
) -> dict[str, Exists]:
    """``EXISTS`` on the live executions of the subject ``OuterRef(ref)``: ``here`` (this campaign — the live
    unique index) and ``elsewhere`` (another campaign of the workspace — the workspace/subject index).

    ``among`` (the chunk's subject ids) bounds each subquery by the chunk: where the planner hashes the
    subquery once instead of probing per row, it hashes the chunk's live executions, not every live
    execution of the workspace (which made each chunk's check cost as much as the table)."""
    ct = ContentType.objects.get_for_model(Target)
    live = Execution.objects.filter(ids_match("subject_id", among), subject_type_id=ct.id, subject_id=OuterRef(ref))
    flags = {}
    if here:
        flags["here"] = Exists(live.filter(campaign_id=campaign.id, status__in=LIVE_STATUSES))
    if elsewhere:
        others = live.filter(LIVE_ELSEWHERE, workspace_id=campaign.workspace_id).exclude(campaign_id=campaign.id)
        flags["elsewhere"] = Exists(others)
    return flags


def plain(targets: QuerySet) -> QuerySet:
    """``targets`` without the joins, prefetches and ordering a page adds (a filter to check against)."""
    return targets.select_related(None).prefetch_related(None).order_by()


def chunk_check(campaign: Campaign, ids: list[int], targets: QuerySet, *, elsewhere: bool = True) -> ChunkCheck:
    """One set-based query for the chunk (the targets among ``ids`` with the ``live_flags``), then one query
    per channel for its refusals (``checked``)."""
    flags = live_flags(campaign, "pk", among=ids, elsewhere=elsewhere)
    rows = plain(targets).filter(ids_match("pk", ids)).annotate(**flags).values_list("pk", *flags)
    return checked(campaign, targets, {r[0]: (r[1], bool(elsewhere and r[2])) for r in rows})


def checked(campaign: Campaign, targets: QuerySet, found: dict[int, tuple[bool, bool]]) -> ChunkCheck:
    """A chunk's facts from its found subjects' flags, completed with the channels' refusals of them."""
    problems = subject_problems(campaign, plain(targets).filter(ids_match("pk", list(found)))) if found else {}
    return ChunkCheck(found=found, problems=problems)


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


def _elsewhere(campaign: Campaign, ids: list[int]) -> QuerySet:
    ct = ContentType.objects.get_for_model(Target)
    return (
        Execution.objects.filter(LIVE_ELSEWHERE, ids_match("subject_id", ids), workspace_id=campaign.workspace_id)
        .filter(subject_type=ct)
        .exclude(campaign_id=campaign.id)
    )


def any_conflicts(campaign: Campaign, subject_ids: list[int]) -> bool:
    """Whether any of ``subject_ids`` is live in another campaign of the workspace and not in this one
    (index probes per subject; stops at the first)."""
    if not subject_ids:
        return False
    live_here = Execution.objects.filter(
        campaign_id=campaign.id, subject_type_id=OuterRef("subject_type_id"), subject_id=OuterRef("subject_id")
    ).filter(status__in=LIVE_STATUSES)
    return _elsewhere(campaign, subject_ids).filter(~Exists(live_here)).exists()


def live_elsewhere(campaign: Campaign, subject_ids: Iterable[int]) -> dict[int, list[dict[str, Any]]]:
    """Subject id → the live executions it has in *other* campaigns of the workspace (the conflict details)."""
    ids = list(subject_ids)
    if not ids:
        return {}
    rows = (
        _elsewhere(campaign, ids)
        .values(
            "id",
            "subject_id",
            "campaign_id",
            "campaign__name",
            "campaign__status",
            "workflow_id",
            "workflow__name",
            "current_node__type",
            "current_node__subtype",
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
                "current_step": step_display_name(
                    r["current_node__type"] or "", r["current_node__subtype"] or "", r["current_node__name"] or ""
                )
                if r["current_node__type"]
                else "",
                "next_run_at": r["next_run_at"].isoformat() if r["next_run_at"] else None,
                "status": r["status"],
            }
        )
    return out


def classify(campaign: Campaign, ids: list[int], visible: QuerySet) -> dict[int, Verdict]:
    """Class of each subject id (one chunk): invalid / blacklisted / already_live / conflict / ready.

    ``visible`` is the target queryset the caller may see (owner visibility); others are ``not_found``.
    The conflict details (other campaign, step, next send) are read only for the subjects in conflict.
    """
    check = chunk_check(campaign, ids, visible)
    out: dict[int, Verdict] = {}
    conflicted: list[int] = []
    for tid in ids:
        if tid not in check.found:
            out[tid] = Verdict(K.INVALID, "not_found")
        elif check.problems.get(tid) in BLACKLIST_PROBLEMS:
            out[tid] = Verdict(K.BLACKLISTED, "blacklisted")
        elif tid in check.problems:
            out[tid] = Verdict(K.INVALID, check.problems[tid])
        elif check.here(tid):
            out[tid] = Verdict(K.ALREADY_LIVE)
        elif check.elsewhere(tid):
            conflicted.append(tid)
        else:
            out[tid] = Verdict(K.READY)
    details = live_elsewhere(campaign, conflicted) if conflicted else {}
    for tid in conflicted:  # a journey that ended between the two reads is no conflict any more
        out[tid] = Verdict(K.CONFLICT, "", tuple(details[tid])) if tid in details else Verdict(K.READY)
    return out


def execution_fields(campaign: Campaign, *, now: datetime) -> dict[str, Any]:
    """The fields of a new execution of ``campaign`` at its first step (every field but the subject)."""
    journey = campaign.journey
    first = published_graph(journey.workflow_version_id).first_step()
    status = ExecutionStatus.ACTIVE if campaign.status == CampaignStatus.ACTIVE else ExecutionStatus.PENDING
    return dict(
        workspace_id=campaign.workspace_id,
        campaign_id=campaign.id,
        workflow_id=journey.workflow_id,
        version_id=journey.workflow_version_id,
        subject_type_id=ContentType.objects.get_for_model(Target).id,
        current_node_id=first.id,
        needs_budget=first.consumes_budget,
        status=status,
        eligible_at=now,
        next_run_at=now,
        node_entered_at=now,
        started_at=now if status == ExecutionStatus.ACTIVE else None,
    )


def execution_template(campaign: Campaign, *, now: datetime) -> Execution:
    """A new execution of ``campaign`` at its first step (every field but the subject)."""
    return Execution(**execution_fields(campaign, now=now), subject_id=0)


def enroll_chunk(
    actor: Actor,
    campaign: Campaign,
    ids: list[int],
    report: EnrollmentReport,
    *,
    source: str = "",
    check: ChunkCheck | None = None,
) -> None:
    """Check and add one chunk: the refused ones go to ``report`` by reason, the rest through the one writer.

    ``check`` is the caller's fresh ``chunk_check`` of these ids (in the same transaction), when it has one.
    ``source`` marks the enrolled events ("auto" for the auto-enroll rule).
    """
    if check is None:
        check = chunk_check(campaign, ids, scoped(Target, actor.workspace), elsewhere=False)
    ready = []
    for tid in ids:
        if tid not in check.found:
            report.invalid[tid] = "not_found"
        elif check.problems.get(tid) in BLACKLIST_PROBLEMS:
            report.blacklisted.append(tid)
        elif tid in check.problems:
            report.invalid[tid] = check.problems[tid]
        elif check.here(tid):
            report.already_live.append(tid)
        else:
            ready.append(tid)
    if not ready:
        return
    now = timezone.now()
    data = {"by": actor.user.pk if actor.user is not None else None, **({"source": source} if source else {})}
    result = executions_insert(
        template=execution_template(campaign, now=now),
        subject_ids=ready,
        now=now,
        message="(افزودن خودکار)" if source == "auto" else "",
        data=data,
    )
    report.added.extend(tid for tid in ready if tid in result.added)
    report.added_concurrently.extend(result.concurrently)
