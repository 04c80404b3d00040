"""Chain pages for one campaign outside a chain: move it to another group, and single-campaign approval
(submit is the tree's «ارسال برای تأیید»; approve / reject here). The same services as the API."""

from __future__ import annotations

from django.contrib import messages
from django.urls import reverse
from django.views.decorators.http import require_POST

from campaigns.chains.services import groups as group_services
from campaigns.chains.views import _back, _error_text, _int
from campaigns.models import Campaign
from campaigns.platform.errors import PlatformError
from campaigns.platform.pages import workspace_page
from campaigns.platform.permissions import Perm
from campaigns.platform.tenancy import get_scoped
from campaigns.services.approval import campaign_single_approve, campaign_single_reject


@require_POST
@workspace_page(Perm.MANAGE_CAMPAIGNS)
def campaign_move(request, actor, group_id: int, campaign_id: int):
    """Move an independent campaign to another group (``POST /campaign-groups/{id}/campaigns/{cid}/move``)."""
    campaign = get_scoped(Campaign, actor.workspace, campaign_id)
    try:
        target = group_services.group_move_campaign(
            actor=actor,
            group_id=group_id,
            campaign_id=campaign.id,
            to_group_id=_int(request.POST.get("to_group_id")) or 0,
            expected_revision=_int(request.POST.get("expected_revision")) or 0,
        )
    except PlatformError as exc:
        messages.error(request, _error_text(exc))
        return _back(request, reverse("chain-group", args=[group_id]))
    messages.success(request, f"کمپین «{campaign.name}» به گروه «{target.name}» منتقل شد.")
    return _back(request, reverse("chain-group", args=[group_id]))


@require_POST
@workspace_page(Perm.APPROVE_CHAINS)
def campaign_decide(request, actor, campaign_id: int, decision: str):
    """Approve or reject one standalone campaign (``POST /campaign/{id}/approve|reject``)."""
    campaign = get_scoped(Campaign, actor.workspace, campaign_id)
    expected = _int(request.POST.get("expected_revision"))
    try:
        if decision == "approve":  # refused while the launch check has blockers (LAUNCH_BLOCKED), as Start
            campaign_single_approve(actor=actor, campaign_id=campaign.id, expected_revision=expected)
            messages.success(request, f"کمپین «{campaign.name}» تأیید شد.")
        else:
            reason = (request.POST.get("reason") or "").strip()
            campaign_single_reject(actor=actor, campaign_id=campaign.id, expected_revision=expected, reason=reason)
            messages.success(request, f"کمپین «{campaign.name}» رد شد.")
    except PlatformError as exc:
        messages.error(request, _error_text(exc))
    return _back(request, reverse("chain-packages"))
