"""Phase 1 — task creation (Celery Beat, every minute).

Campaigns active with start_date ≤ now → platforms pending and not
is_tasks_created → one task per (account × link) → platform running +
is_tasks_created. Each platform is handled in its own transaction with the
platform row locked (``SKIP LOCKED``: an overlapping run skips it), tasks are
inserted with ``ON CONFLICT DO NOTHING`` on the unique (platform, account,
link, action) and the flag is set in the same transaction, so a crash half-way
or two runs at once never create duplicates.
"""

import logging

from django.db import transaction
from django.db.models import F
from django.utils import timezone

from campaigns.choices import CampaignKind, CampaignStatus
from campaigns.errors import InvalidTransition, StaleRevision
from campaigns.events import campaign_status_changed_event
from campaigns.fsm import fsm_apply
from campaigns.models import Campaign

from .. import conf
from ..choices import PlatformStatus, TaskStatus
from ..models import BrowserAccount, BrowserTask, CampaignPlatform, CampaignStatistics

logger = logging.getLogger("workers.creation")


def scheduled_campaigns_activate(*, now=None) -> int:
    """Browser campaigns waiting for their start: activate those whose platforms are due."""
    now = now or timezone.now()
    due = Campaign.objects.filter(
        kind=CampaignKind.BROWSER,
        status=CampaignStatus.SCHEDULED,
        deleted_at__isnull=True,
        browser_platforms__start_date__lte=now,
    ).distinct()
    count = 0
    for campaign in due:

        def record(from_status: str, to_status: str, campaign=campaign) -> None:
            campaign_status_changed_event(campaign=campaign, from_status=from_status, to_status=to_status)

        try:
            fsm_apply(campaign, "activate", on_applied=record)
            count += 1
        except (StaleRevision, InvalidTransition):  # a concurrent run or staff action won the race
            logger.info("campaign %s not activated (changed meanwhile)", campaign.pk)
    return count


def _due_platform_ids(now, limit: int) -> list[int]:
    return list(
        CampaignPlatform.objects.filter(
            status=PlatformStatus.PENDING,
            is_tasks_created=False,
            start_date__lte=now,
            campaign__status=CampaignStatus.ACTIVE,
            campaign__deleted_at__isnull=True,
        )
        .order_by("start_date", "id")
        .values_list("id", flat=True)[:limit]
    )


def platform_tasks_create(*, platform_id: int, now=None) -> int:
    """Create the tasks of one platform; returns how many rows were inserted (0 when already done)."""
    now = now or timezone.now()
    with transaction.atomic():
        platform = (
            CampaignPlatform.objects.select_for_update(skip_locked=True)
            .filter(pk=platform_id, status=PlatformStatus.PENDING, is_tasks_created=False)
            .first()
        )
        if platform is None:
            return 0  # done meanwhile, or another run holds it
        meta = platform.metadata
        pinned = dict(
            BrowserAccount.objects.filter(pk__in=meta["account_ids"], proxy__is_available=True).values_list(
                "id", "proxy_id"
            )
        )
        tasks = [
            BrowserTask(
                workspace_id=platform.workspace_id,
                campaign_id=platform.campaign_id,
                platform=platform,
                account_id=account_id,
                proxy_id=pinned.get(account_id),
                link=link,
                action_type=meta["action_type"],
                server=meta.get("server") or "browser",
                priority=meta.get("priority", 0),
                status=TaskStatus.PENDING,
                start_date=max(platform.start_date, now) if platform.start_date else now,
            )
            for link in meta["target_links"]
            for account_id in meta["account_ids"]
        ]
        created = BrowserTask.objects.bulk_create(tasks, batch_size=1000, ignore_conflicts=True)
        inserted = BrowserTask.objects.filter(platform=platform).count()
        CampaignPlatform.objects.filter(pk=platform.pk, revision=platform.revision).update(
            status=PlatformStatus.RUNNING,
            is_tasks_created=True,
            tasks_created_at=now,
            revision=F("revision") + 1,
            updated_at=now,
        )
        stats, _ = CampaignStatistics.objects.get_or_create(
            campaign_id=platform.campaign_id, defaults={"workspace_id": platform.workspace_id}
        )
        CampaignStatistics.objects.filter(pk=stats.pk).update(
            total=F("total") + inserted, pending=F("pending") + inserted
        )
    logger.info("platform %s: %s tasks created", platform_id, len(created))
    return inserted


def due_platforms_create_tasks(*, now=None, limit: int | None = None) -> int:
    """The periodic job: activate due scheduled campaigns, then create tasks platform by platform."""
    now = now or timezone.now()
    scheduled_campaigns_activate(now=now)
    total = 0
    for platform_id in _due_platform_ids(now, limit or conf.setting("CREATION_BATCH")):
        total += platform_tasks_create(platform_id=platform_id, now=now)
    return total
