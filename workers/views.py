"""Persian pages of the browser channel: campaign list, campaign page (progress, failures, control)."""

import zoneinfo

from django.contrib import messages
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from campaigns.approval_selectors import workspace_needs_approval
from campaigns.choices import CampaignStatus
from campaigns.platform.jalali import fa_digits
from campaigns.platform.pages import refusal_shown, workspace_page
from campaigns.platform.pagination import CappedPaginator
from campaigns.platform.permissions import Perm
from campaigns.services.approval import campaign_single_approve, campaign_single_submit
from campaigns.services.campaigns import campaign_transition
from workers import page_selectors, selectors
from workers.choices import TaskStatus
from workers.services.results import campaign_retry_failed

RUNNING = {CampaignStatus.ACTIVE, CampaignStatus.SCHEDULED}
CONTROLS = {"pause": "توقف", "resume": "ادامه", "cancel": "لغو"}


def perms(actor) -> dict:
    return {
        "can_manage": actor.has(Perm.MANAGE_CAMPAIGNS),
        "can_approve": actor.has(Perm.APPROVE_CHAINS),
        "can_manage_browser": actor.has(Perm.MANAGE_BROWSER),
        "can_see_details": actor.has(Perm.VIEW_BROWSER_DETAILS),
    }


@workspace_page(Perm.VIEW)
def browser_campaigns(request, actor):
    """Browser campaigns with their counters ("87/100")."""
    page = CappedPaginator(selectors.browser_campaign_rows(actor=actor), 25).get_page(request.GET.get("page"))
    context = {"page": page, "querystring": "", "section": "campaigns", **perms(actor)}
    return render(request, "workers/campaign_list.html", context)


def _progress(actor, campaign) -> dict:
    tz = zoneinfo.ZoneInfo(actor.workspace.time_zone)
    return {
        "campaign": campaign,
        "stats": selectors.campaign_statistics(actor=actor, campaign_id=campaign.pk, live=True),
        "chart": page_selectors.progress_chart(actor=actor, campaign=campaign, tz=tz),
        "failures": page_selectors.failure_groups(actor=actor, campaign=campaign),
        "platforms": selectors.platform_queryset(actor=actor).filter(campaign=campaign),
        "polling": campaign.status in RUNNING,
        "needs_approval": workspace_needs_approval(actor.workspace),
        **perms(actor),
    }


@workspace_page(Perm.VIEW)
def browser_campaign_detail(request, actor, campaign_id: int):
    """One campaign: counters, chart, failures by error code, control, tasks (filter by status)."""
    campaign = selectors.browser_campaign_get(actor=actor, campaign_id=campaign_id)
    status = request.GET.get("status") or ""
    tasks = selectors.task_queryset(actor=actor).filter(campaign=campaign)
    if status in TaskStatus.values:
        tasks = tasks.filter(status=status)
    page = CappedPaginator(tasks, 50).get_page(request.GET.get("page"))
    context = _progress(actor, campaign) | {
        "page": page,
        "status": status,
        "statuses": TaskStatus.choices,
        "querystring": f"status={status}" if status else "",
        "section": "campaigns",
    }
    if request.GET.get("part") == "tasks":  # the task table refreshes itself while the campaign runs
        return render(request, "workers/_tasks.html", context)
    return render(request, "workers/campaign_detail.html", context)


@workspace_page(Perm.VIEW)
def browser_campaign_progress(request, actor, campaign_id: int):
    """The self-refreshing part of the campaign page (htmx polls it while the campaign runs)."""
    campaign = selectors.browser_campaign_get(actor=actor, campaign_id=campaign_id)
    return render(request, "workers/_progress.html", _progress(actor, campaign))


@require_POST
@workspace_page(Perm.MANAGE_CAMPAIGNS)
def browser_campaign_control(request, actor, campaign_id: int):
    """pause / resume / cancel / retry failed / submit for approval / approve — each one service call."""
    campaign = selectors.browser_campaign_get(actor=actor, campaign_id=campaign_id)
    action = request.POST.get("action", "")
    with refusal_shown(request):
        if action in CONTROLS:
            campaign_transition(actor=actor, campaign_id=campaign.pk, transition=action)
            messages.success(request, f"کمپین: {CONTROLS[action]} انجام شد.")
        elif action == "retry_failed":
            n = campaign_retry_failed(actor=actor, campaign_id=campaign.pk)
            messages.success(request, f"{fa_digits(n)} کار ناموفق دوباره در صف رفت.")
        elif action == "submit":
            campaign_single_submit(actor=actor, campaign=campaign)
            messages.success(request, "کمپین برای تأیید ارسال شد.")
        elif action == "approve":
            campaign_single_approve(actor=actor, campaign_id=campaign.pk)
            messages.success(request, "کمپین تأیید شد و در زمان شروع اجرا می‌شود.")
        else:
            messages.error(request, "کار ناشناخته است.")
    return redirect("browser-campaign", campaign_id=campaign.pk)


@workspace_page(Perm.VIEW_BROWSER_DETAILS)
def browser_task_screenshot(request, actor, task_id: int):
    """The page as the worker saw it when the task failed (PNG); not for viewers and operators."""
    screenshot = selectors.task_screenshot(actor=actor, task_id=task_id)
    return HttpResponse(bytes(screenshot.png), content_type="image/png")
