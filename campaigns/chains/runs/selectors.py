"""Reads of chain runs, frozen audiences and conversion events (always tenant-scoped)."""

from __future__ import annotations

from django.db.models import Q, QuerySet

from campaigns.chains.errors import AudienceNotFrozen
from campaigns.chains.node_models import ChainNode
from campaigns.chains.nodes import node_get
from campaigns.chains.run_models import (
    CampaignRun,
    ConversionEvent,
    RunAudienceMember,
    RunAudienceSnapshot,
    RunExecution,
)
from campaigns.chains.runs.choices import (
    CHAIN_RUN_REFUSED,
    AudienceClass,
    SkipReason,
    SnapshotStatus,
    exclusion_label,
    refusal_label,
)
from campaigns.platform.permissions import Perm
from campaigns.platform.registry import LEFT_OUT_MAX
from campaigns.platform.tenancy import Actor, get_scoped, scoped


def run_queryset(*, actor: Actor) -> QuerySet:
    return (
        scoped(CampaignRun, actor.workspace)
        .select_related("campaign", "source_run__campaign")
        .order_by("-created_at", "-id")
    )


def campaign_runs(*, actor: Actor, campaign_id) -> QuerySet:
    campaign = node_get(actor.workspace, campaign_id)
    return run_queryset(actor=actor).filter(campaign=campaign)


def run_get(*, actor: Actor, run_id, campaign_id=None) -> CampaignRun:
    qs = run_queryset(actor=actor)
    if campaign_id is not None:
        qs = qs.filter(campaign_id=campaign_id)
    return get_scoped(CampaignRun, actor.workspace, run_id, queryset=qs)


def counted(run: CampaignRun | None) -> int | None:
    """A run's audience count once it ran (or was skipped for an empty audience); never a guess before."""
    if run is None:
        return None
    if run.started_at is not None or run.skip_reason == SkipReason.EMPTY_AUDIENCE:
        return run.audience_count
    return None


def refusals_labelled(run: CampaignRun) -> list[tuple[str, str, int]]:
    """The members a run's dispatch left out, by reason (most first): ``(code, Persian label, people)``."""
    reasons = run.refused_reasons or {}
    return [(code, refusal_label(code), n) for code, n in sorted(reasons.items(), key=lambda kv: (-kv[1], kv[0]))]


def exclusions_labelled(run: CampaignRun) -> list[tuple[str, str, int]]:
    """The executions whose send left their person out when it came to send, by reason (most first)."""
    reasons = run.excluded_reasons or {}
    return [(code, exclusion_label(code), n) for code, n in sorted(reasons.items(), key=lambda kv: (-kv[1], kv[0]))]


def target_left_out(*, actor: Actor, target_id: int) -> list[dict]:
    """The chain runs whose dispatch left the target out, with the reason (a timeline row each: the target
    got no execution, so the engine has no event of it). The caller has checked the target is the actor's."""
    links = (
        scoped(RunExecution, actor.workspace)
        .filter(target_id=target_id)
        .exclude(refused_reason="")
        .select_related("run__campaign")
        .order_by("-created_at", "-id")[:LEFT_OUT_MAX]
    )
    return [
        {
            "type": CHAIN_RUN_REFUSED,
            "why_not_sent": link.refused_reason,
            "why_label": refusal_label(link.refused_reason),
            "campaign_id": link.run.campaign_id,
            "campaign_name": link.run.campaign.name,
            "run_id": link.run_id,
            "occurred_at": link.created_at,
        }
        for link in links
    ]


def run_summary(*, actor: Actor, campaign_id) -> dict:
    """A campaign's inheritance line ("inherited from <source> – <class>") and its latest run's count.

    ``latest_run`` is the newest run whatever its state (a new period's run exists before it runs);
    the count is the audience of the newest run that actually ran — null before any ran, never a sum.
    """
    campaign = node_get(actor.workspace, campaign_id)
    runs = run_queryset(actor=actor).filter(campaign=campaign)
    latest = runs.first()
    ran = runs.filter(Q(started_at__isnull=False) | Q(skip_reason=SkipReason.EMPTY_AUDIENCE)).first()
    source = None
    if campaign.parent_id:
        source = scoped(ChainNode, actor.workspace).filter(pk=campaign.parent_id).only("id", "name").first()
    inherit_type = (campaign.inheritance or {}).get("type") if campaign.parent_id else None
    label = None
    if source is not None and inherit_type in AudienceClass.values:
        label = f"ارث‌بری از «{source.name}» – {AudienceClass(inherit_type).label}"
    return {
        "campaign_id": campaign.id,
        "source_campaign_id": source.id if source else None,
        "source_campaign_name": source.name if source else None,
        "inherit_type": inherit_type,
        "inheritance_label": label,
        "latest_run": latest,
        "latest_counted_run_id": ran.id if ran else None,
        "latest_run_count": counted(ran),
    }


def frozen_snapshot(run: CampaignRun) -> RunAudienceSnapshot:
    snapshot = RunAudienceSnapshot.objects.filter(run=run, status=SnapshotStatus.FROZEN).first()
    if snapshot is None:
        raise AudienceNotFrozen()
    return snapshot


def frozen_members(*, actor: Actor, run: CampaignRun) -> tuple[RunAudienceSnapshot, QuerySet]:
    """The published attempt's members only (an operator sees only the targets they own)."""
    snapshot = frozen_snapshot(run)
    members = (
        RunAudienceMember.objects.filter(snapshot=snapshot, build_id=snapshot.build_id)
        .select_related("target")
        .order_by("id")
    )
    if actor.has(Perm.OWN_TARGETS_ONLY):
        members = members.filter(target__owner=actor.user)
    return snapshot, members


def conversion_queryset(*, actor: Actor) -> QuerySet:
    """Conversion events the actor may see (filters: ``campaigns.chains.filters.ConversionEventFilter``)."""
    qs = scoped(ConversionEvent, actor.workspace).order_by("-occurred_at", "-id")
    if actor.has(Perm.OWN_TARGETS_ONLY):
        qs = qs.filter(target__owner=actor.user)
    return qs


def run_lift_get(*, actor: Actor, run_id) -> dict:
    """Treated vs CONTROL conversions of one run (``campaigns.chains.runs.lift``)."""
    from campaigns.chains.runs.lift import run_lift

    return run_lift(run_get(actor=actor, run_id=run_id))


def campaign_lift_get(*, actor: Actor, campaign_id) -> dict:
    """Treated vs CONTROL conversions over every started run of a chain node."""
    from campaigns.chains.runs.lift import campaign_lift

    return campaign_lift(node_get(actor.workspace, campaign_id))
