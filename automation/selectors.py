"""Engine reads; every query starts from ``campaigns.platform.tenancy.scoped``."""

from django.contrib.contenttypes.models import ContentType
from django.db.models import Count, Q

from automation import journey_counts
from automation.choices import HELD_UNKNOWN, ExecutionStatus
from automation.models import AutoEnrollRule, CampaignJourney, Execution, ExecutionEvent, Workflow, WorkflowVersion
from campaigns.models import Campaign, Target, Workspace
from campaigns.platform.permissions import Perm
from campaigns.platform.tenancy import Actor, get_scoped, scoped
from campaigns.selectors import target_queryset


def workflow_count(*, workspace: Workspace) -> int:
    return scoped(Workflow, workspace).count()


def auto_enroll_list_campaign_ids(*, workspace: Workspace, list_id: int) -> list[int]:
    """Campaigns whose auto-enroll rule filters on the list (the registry's target-list users)."""
    on_list = Q(filters__list=list_id) | Q(filters__list=str(list_id))  # the filter keeps what the client sent
    return list(scoped(AutoEnrollRule, workspace).filter(on_list).values_list("campaign_id", flat=True))


def campaign_journey_get(campaign: Campaign) -> CampaignJourney | None:
    """The campaign's journey row (workflow + pinned version), or None for a campaign without one.

    Uses the row already loaded with ``select_related("journey")`` when there is one.
    """
    try:
        return campaign.journey
    except CampaignJourney.DoesNotExist:
        return None


def campaign_journey_version_id(campaign: Campaign) -> int | None:
    journey = campaign_journey_get(campaign)
    return journey.workflow_version_id if journey else None


def campaign_journey_version(campaign: Campaign) -> WorkflowVersion | None:
    journey = campaign_journey_get(campaign)
    return journey.workflow_version if journey else None


def campaign_journey_ref(campaign: Campaign) -> dict | None:
    """``{"workflow_id", "version_id"}`` of the campaign's journey (the registry's journey lookup)."""
    journey = campaign_journey_get(campaign)
    if journey is None:
        return None
    return {"workflow_id": journey.workflow_id, "version_id": journey.workflow_version_id}


def journey_campaigns():
    """Campaigns with a pinned workflow version, journey and version loaded."""
    return Campaign.objects.filter(journey__isnull=False).select_related("workspace", "journey__workflow_version")


def workflow_queryset(*, actor: Actor):
    return scoped(Workflow, actor.workspace).prefetch_related("versions")


def workflow_get(*, actor: Actor, workflow_id: int) -> Workflow:
    return get_scoped(Workflow, actor.workspace, workflow_id, queryset=workflow_queryset(actor=actor))


def execution_queryset(*, actor: Actor, campaign_id: int | None = None):
    """Executions of the workspace; roles limited to their own targets see only those targets' executions."""
    qs = scoped(Execution, actor.workspace).select_related("current_node")
    if actor.has(Perm.OWN_TARGETS_ONLY):
        own = target_queryset(actor=actor).values("id")  # the one owner rule
        qs = qs.filter(subject_type=ContentType.objects.get_for_model(Target), subject_id__in=own)
    if campaign_id is not None:
        qs = qs.filter(campaign_id=campaign_id)
    return qs.order_by("id")


def execution_status_counts(*, actor: Actor, campaign_ids) -> dict[int, dict[str, int]]:
    """campaign id → {status: executions this actor may see}. Roles that see every target read the counts kept
    with the writes (``automation.journey_counts``); roles limited to their own targets count those."""
    ids = list(campaign_ids)
    if not actor.has(Perm.OWN_TARGETS_ONLY):
        return journey_counts.status_counts(ids)
    counts: dict[int, dict[str, int]] = {i: {} for i in ids}
    grouped = (
        execution_queryset(actor=actor)
        .filter(campaign_id__in=ids)
        .order_by()
        .values_list("campaign_id", "status")
        .annotate(n=Count("id"))
    )
    for campaign_id, status, n in grouped:
        counts[campaign_id][status] = n
    return counts


def held_after_unknown(queryset):
    """The executions of ``queryset`` paused by a send step's ``on_unknown_outcome: hold``: each waits for a
    person to resume it with "skip" or "resend"."""
    return queryset.filter(status=ExecutionStatus.PAUSED, metadata__has_key=HELD_UNKNOWN)


def is_held_after_unknown(execution: Execution) -> bool:
    return (
        execution.status == ExecutionStatus.PAUSED
        and (execution.metadata or {}).get(HELD_UNKNOWN) == execution.current_node_id
    )


def execution_get(*, actor: Actor, execution_id: int) -> Execution:
    return get_scoped(Execution, actor.workspace, execution_id, queryset=execution_queryset(actor=actor))


def execution_events(*, actor: Actor, execution_id: int):
    execution = execution_get(actor=actor, execution_id=execution_id)
    return scoped(ExecutionEvent, actor.workspace).filter(execution=execution).order_by("occurred_at", "id")


def enrollment_batch_get(*, actor: Actor, batch_id: int):
    from automation.models import EnrollmentBatch

    return get_scoped(EnrollmentBatch, actor.workspace, batch_id)


def enrollment_batch_items(*, actor: Actor, batch_id: int, klass: str | None = None, outcome: str | None = None):
    """One batch's items (a class or an outcome at a time for the review page's tabs), by subject id."""
    batch = enrollment_batch_get(actor=actor, batch_id=batch_id)
    qs = batch.items.all()
    if klass:
        qs = qs.filter(klass=klass)
    if outcome:
        qs = qs.filter(outcome=outcome)
    return qs.order_by("subject_id")
