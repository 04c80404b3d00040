"""Persian pages of the browser channel (thin: a selector, then render)."""

from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.shortcuts import render

from campaigns.platform.errors import NotFound
from workers import selectors
from workers.choices import TaskStatus


@login_required
def browser_campaigns(request):
    """Browser campaigns with their counters ("87/100")."""
    actor = getattr(request, "actor", None)
    if actor is None:
        return render(request, "campaigns/no_workspace.html")
    page = Paginator(selectors.browser_campaign_rows(actor=actor), 25).get_page(request.GET.get("page"))
    return render(request, "workers/campaign_list.html", {"page": page, "querystring": ""})


@login_required
def browser_campaign_detail(request, campaign_id: int):
    """One campaign: platform, counters, tasks (filter by status)."""
    actor = getattr(request, "actor", None)
    if actor is None:
        return render(request, "campaigns/no_workspace.html")
    try:
        campaign = selectors.browser_campaign_get(actor=actor, campaign_id=campaign_id)
    except NotFound:
        return render(request, "404.html", status=404)
    status = request.GET.get("status") or ""
    tasks = selectors.task_queryset(actor=actor).filter(campaign=campaign)
    if status in TaskStatus.values:
        tasks = tasks.filter(status=status)
    page = Paginator(tasks, 50).get_page(request.GET.get("page"))
    context = {
        "campaign": campaign,
        "platforms": selectors.platform_queryset(actor=actor).filter(campaign=campaign),
        "stats": selectors.campaign_statistics(actor=actor, campaign_id=campaign.pk),
        "page": page,
        "status": status,
        "statuses": TaskStatus.choices,
        "querystring": f"status={status}" if status else "",
    }
    return render(request, "workers/campaign_detail.html", context)
