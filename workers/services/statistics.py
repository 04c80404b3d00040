"""Statistics (Celery Beat, every 5 minutes): recount per campaign and close finished platforms.

Counts are over the current task of every (account × link) slot: a task that
was replaced by a spare account's task is not counted, so a campaign of 100
slots always shows N/100 ("87/100 likes succeeded"). Results bump the same
counters live; this job is the authoritative recount.
"""

from django.db.models import Q
from django.utils import timezone

from workers.choices import BROWSER_KIND, PlatformStatus, TaskStatus
from workers.models import BrowserTask, CampaignPlatform, CampaignStatistics
from workers.selectors import campaign_counts
from workers.services.campaigns import campaign_follow_platforms
from workers.services.lifecycle import platform_complete

OPEN = (TaskStatus.PENDING, TaskStatus.DISPATCHED)


def statistics_refresh(*, campaign_ids: list[int] | None = None, now=None) -> int:
    """Recount campaigns with running/paused platforms (or the given ones); complete finished platforms
    (``platform_complete``: through the platform's FSM, with its event)."""
    now = now or timezone.now()
    platforms = CampaignPlatform.objects.filter(campaign__kind=BROWSER_KIND)
    if campaign_ids is None:
        platforms = platforms.filter(
            Q(status__in=[PlatformStatus.RUNNING, PlatformStatus.PAUSED])
            | Q(status=PlatformStatus.COMPLETED, updated_at__gte=now - timezone.timedelta(hours=1))
        )
    else:
        platforms = platforms.filter(campaign_id__in=campaign_ids)
    rows = list(platforms.values("id", "campaign_id", "workspace_id", "status", "revision"))
    for campaign_id in {r["campaign_id"] for r in rows}:
        counts = campaign_counts(campaign_id)
        workspace_id = next(r["workspace_id"] for r in rows if r["campaign_id"] == campaign_id)
        CampaignStatistics.objects.update_or_create(
            campaign_id=campaign_id, defaults={"workspace_id": workspace_id, "refreshed_at": now, **counts}
        )
    for row in rows:
        if row["status"] != PlatformStatus.RUNNING:
            continue
        if BrowserTask.objects.filter(platform_id=row["id"], status__in=OPEN).exists():
            continue
        platform_complete(platform_id=row["id"], revision=row["revision"], now=now)
    for campaign_id in {r["campaign_id"] for r in rows}:
        campaign_follow_platforms(campaign_id=campaign_id)  # every platform finished → campaign finished
    return len(rows)
