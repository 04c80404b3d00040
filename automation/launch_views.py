"""The people behind a count of a chain package's launch check (``?reason=``): the root's audience as submitted
kept from one member's message for that reason, the same filter the count uses (docs/journeys.md "Launch
check"). A journey's counts link to its targets page instead (``?excluded=``)."""

from __future__ import annotations

from django.http import Http404
from django.shortcuts import render

from automation.choices import LaunchReason
from automation.launch_check import package_excluded_subject_ids
from campaigns.models import Campaign
from campaigns.platform.pages import workspace_page
from campaigns.platform.pagination import CappedPaginator
from campaigns.platform.permissions import Perm
from campaigns.platform.tenancy import get_scoped
from campaigns.selectors import target_queryset

PAGE_SIZE = 50


@workspace_page(Perm.VIEW)
def package_excluded(request, actor, package_id: int, campaign_id: int):
    reason = request.GET.get("reason", "")
    if reason not in LaunchReason.values:
        raise Http404
    # An audience larger than the check's sample: its people are looked for among the sample's rows (bounded).
    ids, looked_at = package_excluded_subject_ids(
        actor=actor, package_id=package_id, campaign_id=campaign_id, reason=reason
    )
    if ids is None:
        raise Http404
    people = target_queryset(actor=actor).filter(pk__in=ids).order_by("id")
    context = {
        "package_id": package_id,
        "campaign": get_scoped(Campaign, actor.workspace, campaign_id),
        "reason_label": LaunchReason(reason).label,
        "looked_at": looked_at,
        "page": CappedPaginator(people, PAGE_SIZE).get_page(request.GET.get("page")),
        "querystring": f"reason={reason}",
    }
    return render(request, "automation/package_excluded.html", context)
