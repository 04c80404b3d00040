"""Phase 1 — task creation (Celery Beat, every minute), in bounded chunks.

Campaigns active with start_date ≤ now → platforms pending and not
is_tasks_created → one task per (account × link) → platform running +
is_tasks_created. The (link × account) pairs are walked in link-major order
and inserted ``CREATION_CHUNK`` at a time, each chunk in its own short
transaction with the platform row locked (``SKIP LOCKED``: an overlapping run
skips it) and the platform's ``creation_cursor`` advanced in the same
transaction; ``ON CONFLICT DO NOTHING`` on the unique (platform, account,
link hash, action) guards the rest. A crash loses at most the chunk in
flight, which the next run redoes. One run inserts at most
``CREATION_ROWS_PER_RUN`` rows, taking due platforms round-robin (least
recently served first), so a large campaign never holds the job or the
shared worker. A platform whose creation fails records its error and backs
off exponentially (``CREATION_BACKOFF_SECONDS`` … ``_MAX_SECONDS``) instead
of being retried first every minute; other platforms and workspaces go on.
"""

import logging
from datetime import timedelta

from celery.exceptions import SoftTimeLimitExceeded
from django.db import transaction
from django.db.models import F, Q, Window
from django.db.models.functions import RowNumber
from django.utils import timezone

from campaigns.choices import CampaignStatus
from campaigns.models import Campaign
from campaigns.platform.errors import InvalidTransition, StaleRevision
from campaigns.services.lifecycle import campaign_status_change
from workers import conf, events
from workers.choices import BROWSER_KIND, PlatformStatus, TaskStatus
from workers.links import link_hash
from workers.models import BrowserAccount, BrowserTask, CampaignPlatform, CampaignStatistics
from workers.services.lifecycle import platform_start

logger = logging.getLogger("workers.creation")


class CreationRefused(Exception):
    """The platform's metadata cannot produce tasks (over the cap, nothing to pair)."""


def scheduled_campaigns_activate(*, now=None) -> int:
    """Browser campaigns waiting for their start: activate those whose platforms are due."""
    now = now or timezone.now()
    due = Campaign.objects.filter(
        kind=BROWSER_KIND,
        status=CampaignStatus.SCHEDULED,
        deleted_at__isnull=True,
        browser_platforms__start_date__lte=now,
    ).distinct()
    count = 0
    for campaign in due:
        try:  # continues the guarded create or the approval that scheduled it
            campaign_status_change(campaign=campaign, transition="activate", guarded=False, now=now)
            count += 1
        except (StaleRevision, InvalidTransition):  # a concurrent run or staff action won the race
            logger.info("campaign %s not activated (changed meanwhile)", campaign.pk)
    return count


def _due_platform_ids(now, limit: int) -> list[int]:
    """Up to ``limit`` due platforms, least recently served first — each workspace's first before any
    workspace's second, so one workspace's many campaigns never take every place of a run."""
    served_order = [F("creation_due_at").asc(nulls_first=True), "start_date", "id"]
    return list(
        CampaignPlatform.objects.filter(
            Q(creation_due_at__isnull=True) | Q(creation_due_at__lte=now),
            status=PlatformStatus.PENDING,
            is_tasks_created=False,
            start_date__lte=now,
            campaign__status=CampaignStatus.ACTIVE,
            campaign__deleted_at__isnull=True,
        )
        .annotate(turn=Window(RowNumber(), partition_by=[F("workspace_id")], order_by=served_order))
        .order_by("turn", *served_order)
        .values_list("id", flat=True)[:limit]
    )


def platform_tasks_create(*, platform_id: int, now=None, max_rows: int | None = None) -> int:
    """Insert the next chunk of one platform's tasks; returns how many rows were inserted.

    When the last chunk is in, the platform becomes running + is_tasks_created in the same
    transaction. Returns 0 when the platform is done meanwhile or another run holds it.
    """
    return _chunk_create(platform_id=platform_id, now=now or timezone.now(), max_rows=max_rows)[0]


def _chunk_create(*, platform_id: int, now, max_rows: int | None) -> tuple[int, bool]:
    """(rows inserted, more chunks to go)."""
    chunk = max(1, min(conf.setting("CREATION_CHUNK"), max_rows or conf.setting("CREATION_CHUNK")))
    with transaction.atomic():
        platform = (
            CampaignPlatform.objects.select_for_update(skip_locked=True)
            .filter(pk=platform_id, status=PlatformStatus.PENDING, is_tasks_created=False)
            .first()
        )
        if platform is None:
            return 0, False
        meta = platform.metadata
        account_ids = list(meta.get("account_ids") or [])
        links = list(meta.get("target_links") or [])
        total = len(account_ids) * len(links)
        cap = conf.setting("MAX_TASKS_PER_PLATFORM")
        if total > cap:
            raise CreationRefused(f"{total} tasks (accounts × links) is over the limit of {cap} per platform")
        if total == 0:
            raise CreationRefused("the platform has no accounts or no links")
        begin = min(platform.creation_cursor, total)
        end = min(begin + chunk, total)
        pinned = dict(
            BrowserAccount.objects.filter(pk__in=account_ids, proxy__is_available=True).values_list("id", "proxy_id")
        )
        start_date = max(platform.start_date, now) if platform.start_date else now
        hashes: dict[str, str] = {}
        tasks = []
        for index in range(begin, end):
            link = links[index // len(account_ids)]
            account_id = account_ids[index % len(account_ids)]
            if link not in hashes:
                hashes[link] = link_hash(link)
            tasks.append(
                BrowserTask(
                    workspace_id=platform.workspace_id,
                    campaign_id=platform.campaign_id,
                    platform=platform,
                    account_id=account_id,
                    proxy_id=pinned.get(account_id),
                    link=link,
                    link_hash=hashes[link],
                    action_type=meta["action_type"],
                    server=conf.setting("QUEUE"),
                    priority=meta.get("priority", 0),
                    status=TaskStatus.PENDING,
                    start_date=start_date,
                )
            )
        existing = BrowserTask.objects.filter(platform=platform).count()
        BrowserTask.objects.bulk_create(tasks, batch_size=1000, ignore_conflicts=True)
        inserted = BrowserTask.objects.filter(platform=platform).count() - existing
        done = end >= total
        progress = {
            "creation_cursor": end,
            "creation_due_at": now,  # round-robin: served now, so others go first next time
            "creation_failures": 0,
            "creation_error": "",
        }
        if done:  # pending → running through the platform's FSM, with its event
            platform_start(
                platform=platform, now=now, values=progress | {"is_tasks_created": True, "tasks_created_at": now}
            )
        else:
            CampaignPlatform.objects.filter(pk=platform.pk, revision=platform.revision).update(
                **progress, revision=F("revision") + 1, updated_at=now
            )
        if inserted:
            stats, _ = CampaignStatistics.objects.get_or_create(
                campaign_id=platform.campaign_id, defaults={"workspace_id": platform.workspace_id}
            )
            CampaignStatistics.objects.filter(pk=stats.pk).update(
                total=F("total") + inserted, pending=F("pending") + inserted
            )
    logger.info("platform %s: %s tasks created (%s/%s)", platform_id, inserted, end, total)
    return inserted, not done


def platform_creation_failed(*, platform_id: int, reason: str, now=None) -> None:
    """Record why a platform's tasks could not be created and back off exponentially."""
    now = now or timezone.now()
    platform = CampaignPlatform.objects.filter(pk=platform_id).only("id", "workspace_id", "campaign_id").first()
    if platform is None:
        return
    failures = (
        CampaignPlatform.objects.filter(pk=platform_id).values_list("creation_failures", flat=True).first() or 0
    ) + 1
    base = conf.setting("CREATION_BACKOFF_SECONDS")
    delay = min(base * 2 ** min(failures - 1, 20), conf.setting("CREATION_BACKOFF_MAX_SECONDS"))
    retry_at = now + timedelta(seconds=delay)
    CampaignPlatform.objects.filter(pk=platform_id).update(
        creation_failures=failures, creation_error=reason[:1000], creation_due_at=retry_at, updated_at=now
    )
    events.creation_failed(
        workspace_id=platform.workspace_id,
        campaign_id=platform.campaign_id,
        platform_id=platform_id,
        reason=reason,
        failures=failures,
        retry_at=retry_at,
    )


def due_platforms_create_tasks(*, now=None, limit: int | None = None) -> int:
    """The periodic job: activate due scheduled campaigns, then create a bounded number of tasks.

    Due platforms are served one chunk each in turn until ``CREATION_ROWS_PER_RUN`` rows were
    inserted or none is left; a platform that fails is recorded and skipped.
    """
    now = now or timezone.now()
    scheduled_campaigns_activate(now=now)
    budget = conf.setting("CREATION_ROWS_PER_RUN")
    total = 0
    queue = _due_platform_ids(now, limit or conf.setting("CREATION_BATCH"))
    while queue and total < budget:
        served = []
        for platform_id in queue:
            if total >= budget:
                break
            try:
                inserted, more = _chunk_create(platform_id=platform_id, now=now, max_rows=budget - total)
            except SoftTimeLimitExceeded:
                raise
            except Exception as exc:  # one platform's failure never stops the others
                logger.warning("platform %s: task creation failed: %s", platform_id, exc, exc_info=True)
                platform_creation_failed(platform_id=platform_id, reason=f"{exc.__class__.__name__}: {exc}", now=now)
                continue
            total += inserted
            if more:
                served.append(platform_id)
        queue = served
    return total
