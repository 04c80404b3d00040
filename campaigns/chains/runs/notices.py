"""What people hear about runs: an empty audience tells the campaign's owner once per run, and an approved
root whose audience emptied after approval shows "needs review" (reason ``AUDIENCE_EMPTY``/``AUDIENCE_MISSING``).
"""

from __future__ import annotations

from django.db import transaction
from django.urls import reverse

from campaigns.chains.audience import audience_problems
from campaigns.chains.run_models import CampaignRun
from campaigns.chains.runs.choices import RunType
from campaigns.models import Campaign
from campaigns.notifications.services import notification_send, workspace_owners
from campaigns.platform.jalali import fa_digits

AUDIENCE_CODES = {"AUDIENCE_MISSING", "AUDIENCE_EMPTY"}


def empty_audience_notify(run: CampaignRun) -> None:
    """After commit: the campaign's creator (else the workspace owners) hears that run #n reached nobody."""
    campaign = Campaign.objects.filter(pk=run.campaign_id).only("id", "name", "created_by_id").first()
    if campaign is None:
        return
    recipients = [campaign.created_by_id] if campaign.created_by_id else workspace_owners(run.workspace_id)
    if run.run_type == RunType.INHERITED:
        body = "در اجرای منبع کسی در دسته ارث‌بری این دنباله نبود؛ در این دوره پیامی فرستاده نشد."
    else:
        body = "فهرست مخاطبان این کمپین با فیلترهایش کسی را در بر نداشت؛ پیامی فرستاده نشد. مخاطبان را بازبینی کنید."
    notification_send(
        workspace=run.workspace_id,
        recipients=recipients,
        kind="chain_run_empty_audience",
        title=f"اجرای #{fa_digits(run.id)} کمپین «{campaign.name}» بی‌مخاطب رد شد",
        body=body,
        link=reverse("chain-campaign-runs", args=[campaign.id]),
        dedupe_key=f"chain-run-empty-audience:{run.id}",
    )


def empty_audience_on_commit(run: CampaignRun) -> None:
    transaction.on_commit(lambda: empty_audience_notify(run))


def root_audience_review(root: Campaign) -> bool:
    """Set or clear the root's audience review reasons from its approved audience now; True if it can reach people."""
    problems = audience_problems(root, use_snapshot=True)
    kept = [r for r in (root.needs_review_reasons or []) if r.get("code") not in AUDIENCE_CODES]
    reasons = kept + problems
    if reasons != (root.needs_review_reasons or []):
        Campaign.objects.filter(pk=root.pk).update(needs_review=bool(reasons), needs_review_reasons=reasons)
        root.needs_review, root.needs_review_reasons = bool(reasons), reasons
    return not problems
