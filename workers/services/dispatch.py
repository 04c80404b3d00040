"""Phase 2 — dispatch (Celery Beat, every 30 s).

Reclaim expired leases, then claim a bounded batch of PENDING tasks with
start_date ≤ now under ``FOR UPDATE SKIP LOCKED``, shared fairly among the
workspaces with due work (max-min: the next slot goes to the workspace holding
the fewest in-flight tasks; priority, then age, orders a workspace's own
tasks), respecting per-account pacing, a per-platform concurrency cap and proxy
availability; mark them DISPATCHED with a lease in one UPDATE per proxy; the
messaging module publishes the payloads when the transaction commits.
"""

import logging
import uuid
from collections import Counter, defaultdict
from datetime import timedelta

from django.db import transaction
from django.db.models import Case, Count, F, UUIDField, Value, When
from django.utils import timezone

from campaigns.choices import CampaignStatus
from campaigns.platform.fairness import fair_fill, workspaces_with_rows
from workers import conf, dispatch, events
from workers.choices import ErrorCode, PlatformStatus, SessionStatus, TaskStatus
from workers.claims import started_leases
from workers.models import BrowserAccount, BrowserTask, CampaignStatistics, Proxy

logger = logging.getLogger("workers.dispatch")


def _usable_proxy(proxy, now) -> bool:
    return (
        proxy is not None
        and proxy.is_available
        and proxy.deleted_at is None
        and (proxy.cooldown_until is None or proxy.cooldown_until <= now)
    )


def leases_reclaim(*, now=None, limit: int = 1000) -> int:
    """DISPATCHED tasks whose lease ran out: back to PENDING, or FAILED ``WORKER_LOST`` when out of attempts.

    A lease no worker claimed (its payload waited in the broker until the lease was over and was dropped
    unstarted) gives its attempt back and always goes back to PENDING: only a start a worker made and never
    reported spends an attempt. Both are checked on the page first (``needs_verification``)."""
    now = now or timezone.now()
    with transaction.atomic():
        expired = list(
            BrowserTask.objects.select_for_update(skip_locked=True, of=("self",))
            .filter(status=TaskStatus.DISPATCHED, lease_expires_at__lt=now)
            .select_related("platform")
            .only("id", "workspace_id", "campaign_id", "attempt_count", "lease_id", "platform__metadata")[:limit]
        )
        if not expired:
            return 0
        started = started_leases([t.lease_id for t in expired])
        # A payload that waited in the broker past its lease was dropped unstarted: no attempt was made.
        unstarted = {t.pk for t in expired if started is not None and str(t.lease_id) not in started}
        requeue, give_up = [], []
        for task in expired:
            max_attempts = (task.platform.metadata.get("retry") or {}).get("max_attempts", 1)
            given_back = task.pk in unstarted
            (requeue if task.attempt_count < max_attempts or given_back else give_up).append(task)
        common = {"lease_expires_at": None, "lease_id": None, "revision": F("revision") + 1, "updated_at": now}
        if unstarted:
            BrowserTask.objects.filter(
                pk__in=list(unstarted), status=TaskStatus.DISPATCHED, attempt_count__gt=0
            ).update(attempt_count=F("attempt_count") - 1)
        if requeue:
            # The lost worker may have clicked before it vanished: the next attempt checks the end state first.
            BrowserTask.objects.filter(pk__in=[t.pk for t in requeue], status=TaskStatus.DISPATCHED).update(
                status=TaskStatus.PENDING, start_date=now, needs_verification=True, **common
            )
        if give_up:
            BrowserTask.objects.filter(pk__in=[t.pk for t in give_up], status=TaskStatus.DISPATCHED).update(
                status=TaskStatus.FAILED,
                error_code=ErrorCode.WORKER_LOST,
                error_reason="lease expired and no attempts left",
                finished_at=now,
                **common,
            )
            per_campaign = Counter(t.campaign_id for t in give_up)
            for campaign_id, n in per_campaign.items():
                CampaignStatistics.objects.filter(campaign_id=campaign_id).update(
                    failed=F("failed") + n, pending=F("pending") - n
                )
        events.tasks_reclaimed_bulk(tasks=expired, requeued=requeue)
    logger.info("reclaimed %s expired leases (%s requeued)", len(expired), len(requeue))
    return len(expired)


def _due_tasks(now):
    """PENDING tasks that may go now: due, platform running, campaign active, account usable."""
    return BrowserTask.objects.filter(
        status=TaskStatus.PENDING,
        start_date__lte=now,
        platform__status=PlatformStatus.RUNNING,
        campaign__status=CampaignStatus.ACTIVE,
        account__session_status=SessionStatus.ACTIVE,
        account__deleted_at__isnull=True,
    )


def _candidates(due, *, batch_size: int) -> dict[int, list[BrowserTask]]:
    """Per workspace with due work, its first tasks (priority, then age) locked ``FOR UPDATE SKIP LOCKED``.

    One query finds the workspaces (a semi-join that stops at each one's first due task), then one query
    per workspace: priority never reaches across workspaces, and each holds candidates enough for its
    share of the batch plus the ones pacing, caps and proxies skip (4 × the batch in all, at least
    ``min(batch, 20)`` each so a share left by another workspace can still be used).
    """
    workspaces = workspaces_with_rows(due)
    if not workspaces:
        return {}
    per_workspace = max(-(-4 * batch_size // len(workspaces)), min(batch_size, 20))
    found = {}
    for workspace_id in workspaces:
        tasks = list(
            due.filter(workspace_id=workspace_id)
            .select_for_update(skip_locked=True, of=("self",))
            .select_related("account", "account__proxy", "proxy", "platform")
            .order_by("-priority", "start_date", "id")[:per_workspace]
        )
        if tasks:
            found[workspace_id] = tasks
    return found


class _Batch:
    """The rules one task must pass to join this batch (platform cap, account pacing, proxy) and its proxy."""

    def __init__(self, candidates: dict[int, list[BrowserTask]], now) -> None:
        self.now = now
        platform_ids = {t.platform_id for tasks in candidates.values() for t in tasks}
        self.in_flight = Counter(
            dict(
                BrowserTask.objects.filter(platform_id__in=platform_ids, status=TaskStatus.DISPATCHED)
                .values("platform_id")
                .annotate(n=Count("id"))
                .values_list("platform_id", "n")
            )
        )
        self.pools: dict[int, list[Proxy]] = defaultdict(list)
        self.has_proxies: set[int] = set()
        for proxy in Proxy.objects.filter(workspace_id__in=list(candidates), deleted_at__isnull=True).order_by(
            "error_score", "id"
        ):
            self.has_proxies.add(proxy.workspace_id)
            if _usable_proxy(proxy, now):
                self.pools[proxy.workspace_id].append(proxy)
        self.proxy_load: Counter = Counter()
        self.accounts: set[int] = set()
        self.chosen: list[tuple[BrowserTask, Proxy | None]] = []

    def take(self, task: BrowserTask) -> bool:
        """Add ``task`` when it may go now (with its proxy); False leaves it PENDING for a later batch."""
        now, meta = self.now, task.platform.metadata
        cap = meta.get("concurrency_cap") or 0
        if cap and self.in_flight[task.platform_id] >= cap:
            return False
        pacing = meta.get("pacing_seconds") or 0
        account = task.account
        if pacing:
            if task.account_id in self.accounts:
                return False
            if account.last_used_at and account.last_used_at + timedelta(seconds=pacing) > now:
                return False
        pool = self.pools[task.workspace_id]
        if _usable_proxy(task.proxy, now):
            proxy = task.proxy
        elif _usable_proxy(account.proxy, now):
            proxy = account.proxy
        elif account.cookies and not account.use_proxy_pool:
            # The cookies go only where their account says: never through a pool proxy nobody chose for it.
            if task.proxy_id or account.proxy_id:
                return False  # its own proxy is resting: wait for it
            proxy = None
        elif pool:
            proxy = min(pool, key=lambda p: (self.proxy_load[p.pk], p.error_score, p.pk))
        elif task.workspace_id in self.has_proxies:
            return False  # proxies configured but none usable now: wait rather than go out directly
        else:
            proxy = None
        self.chosen.append((task, proxy))
        self.in_flight[task.platform_id] += 1
        self.accounts.add(task.account_id)
        if proxy is not None:
            self.proxy_load[proxy.pk] += 1
        return True


def dispatch_due_tasks(*, now=None, batch_size: int | None = None) -> int:
    """Claim and publish one bounded batch; returns how many tasks were dispatched."""
    now = now or timezone.now()
    batch_size = batch_size or conf.setting("DISPATCH_BATCH")
    lease = timedelta(seconds=conf.setting("LEASE_SECONDS"))
    queue = conf.setting("QUEUE")  # the server picks the browser queue; nothing a tenant typed
    leases_reclaim(now=now)
    held = Counter(
        dict(
            BrowserTask.objects.filter(status=TaskStatus.DISPATCHED)
            .values("workspace_id")
            .annotate(n=Count("id"))
            .values_list("workspace_id", "n")
        )
    )
    # A bound on what waits for the workers (a soft one: two dispatchers at once may pass it by a batch).
    room = conf.setting("MAX_IN_FLIGHT") - sum(held.values())
    if room <= 0:
        return 0
    batch_size = min(batch_size, room)
    with transaction.atomic():
        candidates = _candidates(_due_tasks(now), batch_size=batch_size)
        if not candidates:
            return 0
        batch = _Batch(candidates, now)
        fair_fill(candidates, held, size=batch_size, take=batch.take)
        chosen, account_last_batch = batch.chosen, batch.accounts
        if not chosen:
            return 0
        lease_expires_at = now + lease
        by_proxy: dict[int | None, list[int]] = defaultdict(list)
        for task, proxy in chosen:
            by_proxy[proxy.pk if proxy else None].append(task.pk)
        # One random lease id per claimed task: a result is accepted only with the lease the database holds.
        lease_ids = {task.pk: uuid.uuid4() for task, _ in chosen}
        for proxy_id, ids in by_proxy.items():
            BrowserTask.objects.filter(pk__in=ids, status=TaskStatus.PENDING).update(
                status=TaskStatus.DISPATCHED,
                lease_id=Case(*(When(pk=pk, then=Value(lease_ids[pk])) for pk in ids), output_field=UUIDField()),
                server=queue,
                proxy_id=proxy_id,
                attempt_count=F("attempt_count") + 1,
                dispatched_at=now,
                lease_expires_at=lease_expires_at,
                revision=F("revision") + 1,
                updated_at=now,
            )
        BrowserAccount.objects.filter(pk__in=account_last_batch).update(
            last_used_at=now, usage_count=F("usage_count") + 1
        )
        payloads = []
        for task, proxy in chosen:
            task.attempt_count += 1
            task.status = TaskStatus.DISPATCHED
            task.lease_id = lease_ids[task.pk]
            task.server = queue
            payloads.append(
                dispatch.build_payload(
                    task=task,
                    account=task.account,
                    proxy=proxy,
                    metadata=task.platform.metadata,
                    lease_expires_at=lease_expires_at,
                )
            )
        dispatch.publish_payloads(payloads)
    logger.info("dispatched %s browser tasks", len(payloads))
    return len(payloads)
