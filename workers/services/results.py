"""Phase 3 — results from browser workers (the seed's ``task.completed`` / ``task.failed``).

A result is applied once: the task moves only from DISPATCHED (compare-and-set
on status, and for failures on the attempt number), so a duplicate or a late
message changes nothing. On failure:

- COOKIE_EXPIRED → the account's session expires (FSM), and the task is
  replaced by a task of a spare account of the same campaign (active, not yet
  used for that link); none → recorded as ``no_spare_account``. Like Crawlee,
  a session failure never spends the task's retry budget.
- PROXY_ERROR → the proxy's error score +1 and a short cooldown; at the
  threshold (3 by default) ``is_available=false`` with the reason for an
  admin. The task goes back to PENDING without its proxy (dispatch routes it
  through another one) until its proxy budget (3) is spent.
- other codes → retried with backoff while attempts remain (platform retry
  policy), else FAILED.
"""

import base64
import logging
import uuid
from datetime import datetime, timedelta

from django.db import IntegrityError, transaction
from django.db.models import F, Value
from django.db.models.functions import Greatest
from django.utils import timezone

from campaigns.choices import CampaignStatus
from campaigns.models import Campaign
from campaigns.platform.fsm import fsm_apply
from campaigns.platform.permissions import Perm
from campaigns.platform.tenancy import Actor, get_scoped
from workers import conf, events
from workers.choices import ErrorCode, PlatformStatus, SessionStatus, TaskStatus
from workers.errors import TaskNotRetryable
from workers.models import (
    BrowserAccount,
    BrowserTask,
    BrowserTaskScreenshot,
    CampaignPlatform,
    CampaignStatistics,
    Proxy,
)
from workers.services.campaigns import campaign_follow_platforms

logger = logging.getLogger("workers.results")

RETRYABLE = {
    ErrorCode.TIMEOUT,
    ErrorCode.NAVIGATION_ERROR,
    ErrorCode.ELEMENT_NOT_FOUND,
    ErrorCode.VERIFY_FAILED,
    ErrorCode.UNKNOWN,
}


def _stats(campaign_id: int, **deltas: int) -> None:
    CampaignStatistics.objects.filter(campaign_id=campaign_id).update(
        **{field: F(field) + delta for field, delta in deltas.items() if delta}
    )


def _save_screenshot(task: BrowserTask, message: dict) -> None:
    encoded = message.get("screenshot_b64")
    if not encoded:
        return
    BrowserTaskScreenshot.objects.update_or_create(
        task_id=task.pk,
        defaults={
            "workspace_id": task.workspace_id,
            "png": base64.b64decode(encoded),
            "url": ((message.get("result_data") or {}).get("url") or "")[:2000],
        },
    )


def _finished_at(message: dict, now: datetime) -> datetime:
    try:
        return datetime.fromisoformat(message["finished_at"])
    except (KeyError, TypeError, ValueError):
        return now


def _lease_id(message: dict) -> uuid.UUID | None:
    try:
        return uuid.UUID(str(message.get("lease_id")))
    except (TypeError, ValueError):
        return None


def result_apply(*, message: dict, now=None) -> str:
    """Apply one worker result; returns the outcome (completed, failed, retry, replaced, ignored).

    Only a result for the lease the database holds (status DISPATCHED and the same ``lease_id``)
    changes anything; a late, duplicate or forged message is ignored.
    """
    now = now or timezone.now()
    task_id = message.get("task_id")
    if message.get("status") == "completed":
        return _apply_completed(task_id, message, now)
    return _apply_failed(task_id, message, now)


def _apply_completed(task_id: int, message: dict, now) -> str:
    data = dict(message.get("result_data") or {})
    data.update(finished_at=_finished_at(message, now).isoformat(), worker=message.get("worker", ""))
    with transaction.atomic():
        row = (
            BrowserTask.objects.filter(pk=task_id)
            .values(
                "id", "workspace_id", "campaign_id", "account_id", "proxy_id", "attempt_count", "account__error_score"
            )
            .first()
        )
        if row is None:
            return "ignored"
        # Only the lease the database holds: a stale attempt's success is ignored, and the current attempt
        # (which checks the end state first when an earlier one may have clicked) reports it instead.
        lease_id = _lease_id(message)
        updated = 0
        if lease_id is not None:
            updated = BrowserTask.objects.filter(pk=task_id, status=TaskStatus.DISPATCHED, lease_id=lease_id).update(
                status=TaskStatus.COMPLETED,
                finished_at=now,
                result_data=data,
                error_code="",
                error_reason="",
                needs_verification=False,
                lease_id=None,
                lease_expires_at=None,
                revision=F("revision") + 1,
                updated_at=now,
            )
        if not updated:
            events.result_ignored(
                workspace_id=row["workspace_id"],
                campaign_id=row["campaign_id"],
                task_id=task_id,
                attempt=message.get("attempt"),
                status="completed",
            )
            return "ignored"
        events.task_completed(
            workspace_id=row["workspace_id"],
            task_id=row["id"],
            campaign_id=row["campaign_id"],
            account_id=row["account_id"],
            attempt=row["attempt_count"],
            finished_at=now,
        )
        _stats(row["campaign_id"], completed=1, pending=-1)
        good = conf.setting("PROXY_MARK_GOOD")
        if row["account__error_score"]:
            BrowserAccount.objects.filter(pk=row["account_id"]).update(
                error_score=Greatest(F("error_score") - good, Value(0.0))
            )
        if row["proxy_id"]:
            Proxy.objects.filter(pk=row["proxy_id"]).update(
                success_count=F("success_count") + 1, error_score=Greatest(F("error_score") - good, Value(0.0))
            )
        if message.get("screenshot_b64"):
            _save_screenshot(BrowserTask(pk=task_id, workspace_id=row["workspace_id"]), message)
    return "completed"


def _apply_failed(task_id: int, message: dict, now) -> str:
    code = message.get("error_code") or ErrorCode.UNKNOWN
    if code not in ErrorCode.values:
        code = ErrorCode.UNKNOWN
    reason = (message.get("error_reason") or "")[:1000]
    with transaction.atomic():
        task = BrowserTask.objects.select_for_update(of=("self",)).select_related("platform").filter(pk=task_id).first()
        if task is None:
            return "ignored"
        if (
            task.status != TaskStatus.DISPATCHED
            or task.lease_id is None
            or task.lease_id != _lease_id(message)
            or task.attempt_count != message.get("attempt")
        ):
            events.result_ignored(
                workspace_id=task.workspace_id,
                campaign_id=task.campaign_id,
                task_id=task.pk,
                attempt=message.get("attempt"),
                status="failed",
                error_code=code,
            )
            return "ignored"
        _save_screenshot(task, message)
        result_data = dict(message.get("result_data") or {})
        events.task_failed(task=task, code=code, reason=reason, step=result_data.get("failed_step", ""))
        if code == ErrorCode.COOKIE_EXPIRED:
            return _cookie_expired(task, reason, result_data, now)
        if code == ErrorCode.PROXY_ERROR:
            return _proxy_error(task, reason, result_data, now)
        retry = task.platform.metadata.get("retry") or {}
        spent = task.attempt_count - task.proxy_failures
        # "unverifiable": a page-changing step may have run and no verify step can tell; never repeat it blindly.
        if code in RETRYABLE and spent < retry.get("max_attempts", 1) and not result_data.get("unverifiable"):
            backoff = timedelta(seconds=retry.get("backoff_seconds", 0) * spent)
            _requeue(task, code, reason, result_data, now, start_date=now + backoff)
            events.task_retry_scheduled(task=task, code=code, retry_at=now + backoff)
            return "retry"
        _fail(task, code, reason, result_data, now)
        _stats(task.campaign_id, failed=1, pending=-1)
        return "failed"


def _changed_page(result_data: dict) -> bool:
    """A click/fill step started in that attempt (or the worker could not tell): verify before repeating."""
    return bool(result_data.get("mutated"))


def _end_attempt(task: BrowserTask, status: str, code: str, reason: str, result_data: dict, now, **fields) -> None:
    """An attempt that did not succeed, written on its task: the outcome, the lease given back, and whether the
    page must be checked before a step is repeated."""
    BrowserTask.objects.filter(pk=task.pk).update(
        status=status,
        error_code=code,
        error_reason=reason,
        result_data=result_data,
        needs_verification=task.needs_verification or _changed_page(result_data),
        lease_id=None,
        lease_expires_at=None,
        revision=F("revision") + 1,
        updated_at=now,
        **fields,
    )


def _fail(task: BrowserTask, code: str, reason: str, result_data: dict, now, **extra) -> None:
    _end_attempt(task, TaskStatus.FAILED, code, reason, result_data, now, finished_at=now, **extra)


def _requeue(task: BrowserTask, code: str, reason: str, result_data: dict, now, *, start_date, **extra) -> None:
    _end_attempt(task, TaskStatus.PENDING, code, reason, result_data, now, start_date=start_date, **extra)


def _proxy_error(task: BrowserTask, reason: str, result_data: dict, now) -> str:
    if task.proxy_id:
        proxy_error_record(proxy_id=task.proxy_id, reason=reason, now=now)
    if task.proxy_failures + 1 < conf.setting("PROXY_RETRY_BUDGET"):
        # route elsewhere: dispatch picks another usable proxy (this one cools down or is disabled)
        _requeue(
            task,
            ErrorCode.PROXY_ERROR,
            reason,
            result_data,
            now,
            start_date=now,
            proxy=None,
            proxy_failures=F("proxy_failures") + 1,
        )
        return "retry"
    _fail(task, ErrorCode.PROXY_ERROR, reason, result_data, now, proxy_failures=F("proxy_failures") + 1)
    _stats(task.campaign_id, failed=1, pending=-1)
    return "failed"


def proxy_error_record(*, proxy_id: int, reason: str, now=None) -> bool:
    """Score +1 and a cooldown; disabled with the reason at the threshold. Returns True when disabled now."""
    now = now or timezone.now()
    cooldown = timedelta(seconds=conf.setting("PROXY_COOLDOWN_SECONDS"))
    Proxy.objects.filter(pk=proxy_id).update(
        error_score=F("error_score") + 1,
        failure_count=F("failure_count") + 1,
        last_error=reason[:500],
        last_error_at=now,
        cooldown_until=now + cooldown,
        updated_at=now,
    )
    threshold = conf.setting("PROXY_ERROR_THRESHOLD")
    disabled = Proxy.objects.filter(pk=proxy_id, is_available=True, error_score__gte=threshold).update(
        is_available=False, updated_at=now
    )
    proxy = Proxy.objects.only("id", "workspace_id", "error_score").get(pk=proxy_id)
    events.proxy_error(
        workspace_id=proxy.workspace_id,
        proxy_id=proxy_id,
        reason=reason,
        disabled=bool(disabled),
        data={"error_score": proxy.error_score, "threshold": threshold},
    )
    if disabled:
        logger.warning("proxy %s disabled after error score %.1f: %s", proxy_id, proxy.error_score, reason[:200])
    return bool(disabled)


def _cookie_expired(task: BrowserTask, reason: str, result_data: dict, now) -> str:
    expired = BrowserAccount.objects.filter(pk=task.account_id, session_status=SessionStatus.ACTIVE).update(
        session_status=SessionStatus.EXPIRED,
        error_score=F("error_score") + 1,
        revision=F("revision") + 1,
        updated_at=now,
    )
    if expired:
        events.account_expired(task=task, reason=reason)
    _fail(task, ErrorCode.COOKIE_EXPIRED, reason, result_data, now)
    outcome = "replaced" if _replace(task, now) else "failed"
    # The account's other queued tasks cannot run either: replace them now rather than leave them stuck.
    stuck = (
        BrowserTask.objects.select_for_update(skip_locked=True, of=("self",))
        .select_related("platform")
        .filter(account_id=task.account_id, status=TaskStatus.PENDING)
    )
    for other in stuck:
        _fail(other, ErrorCode.COOKIE_EXPIRED, "account session expired before dispatch", {}, now)
        _replace(other, now)
    return outcome


def _replace(task: BrowserTask, now) -> BrowserTask | None:
    """A replacement task with a spare account of the same campaign; counters follow."""
    meta = task.platform.metadata
    pool = [i for i in meta.get("account_ids", []) + meta.get("spare_account_ids", []) if i != task.account_id]
    used = BrowserTask.objects.filter(
        platform_id=task.platform_id, link_hash=task.link_hash, action_type=task.action_type
    )
    spares = (
        BrowserAccount.objects.filter(
            pk__in=pool,
            workspace_id=task.workspace_id,
            session_status=SessionStatus.ACTIVE,
            deleted_at__isnull=True,
        )
        .exclude(pk__in=used.values("account_id"))
        .select_related("proxy")
        .order_by("error_score", "usage_count", "id")
    )
    for account in spares:
        try:
            with transaction.atomic():
                replacement = BrowserTask.objects.create(
                    workspace_id=task.workspace_id,
                    campaign_id=task.campaign_id,
                    platform_id=task.platform_id,
                    account=account,
                    proxy=account.proxy if account.proxy and account.proxy.is_available else None,
                    link=task.link,
                    link_hash=task.link_hash,
                    action_type=task.action_type,
                    server=task.server,
                    priority=task.priority,
                    start_date=now,
                    replaces=task,
                )
        except IntegrityError:
            continue  # this account got the link meanwhile, or the task was already replaced
        events.task_replaced(task=task, account_id=account.pk, replacement_task_id=replacement.pk)
        return replacement  # counters: the old task leaves "pending", the new one enters it
    events.no_spare_account(task=task)
    BrowserTask.objects.filter(pk=task.pk).update(
        result_data={**(task.result_data or {}), "replacement": "none"}, updated_at=now
    )
    _stats(task.campaign_id, failed=1, pending=-1)
    return None


def task_retry(*, actor: Actor, task_id: int) -> BrowserTask:
    """Staff retry of a FAILED task that was not replaced (a fresh attempt budget)."""
    actor.require(Perm.MANAGE_CAMPAIGNS)
    task = get_scoped(BrowserTask, actor.workspace, task_id)
    now = timezone.now()
    with transaction.atomic():
        if hasattr(task, "replaced_by") or task.status != TaskStatus.FAILED:
            raise TaskNotRetryable(details={"status": task.status})
        if Campaign.objects.filter(pk=task.campaign_id, status=CampaignStatus.CANCELLED).exists():
            raise TaskNotRetryable("این کمپین لغو شده است؛ وظیفه‌های آن دوباره اجرا نمی‌شوند.")
        account = BrowserAccount.objects.get(pk=task.account_id)
        if account.session_status != SessionStatus.ACTIVE:
            raise TaskNotRetryable("حساب این وظیفه فعال نیست؛ ابتدا کوکی‌های تازه ذخیره کنید.")
        updated = BrowserTask.objects.filter(pk=task.pk, status=TaskStatus.FAILED, revision=task.revision).update(
            status=TaskStatus.PENDING,
            attempt_count=0,
            proxy_failures=0,
            error_code="",
            error_reason="",
            start_date=now,
            finished_at=None,
            revision=F("revision") + 1,
            updated_at=now,
        )
        if not updated:
            raise TaskNotRetryable()
        platform = CampaignPlatform.objects.select_for_update().get(pk=task.platform_id)
        if platform.status == PlatformStatus.COMPLETED:
            fsm_apply(platform, "reopen", now=now, on_applied=events.platform_status_recorder(platform, actor.user))
        _stats(task.campaign_id, failed=-1, pending=1)
        events.task_retried(task=task, actor=actor.user)
        campaign_follow_platforms(campaign_id=task.campaign_id, retried=True)  # a finished campaign runs again
    task.refresh_from_db()
    return task


RETRY_FAILED_MAX = 1000  # one click retries at most this many (a request stays short); click again for more


def campaign_retry_failed(*, actor: Actor, campaign_id: int) -> int:
    """Staff retry of the failed tasks of a campaign that can run again; returns how many went back.

    Tasks whose account is no longer active (expired cookies) stay failed: new cookies first.
    """
    actor.require(Perm.MANAGE_CAMPAIGNS)
    campaign = get_scoped(Campaign, actor.workspace, campaign_id)
    retried = 0
    failed = BrowserTask.objects.filter(
        campaign=campaign,
        status=TaskStatus.FAILED,
        replaced_by__isnull=True,
        account__session_status=SessionStatus.ACTIVE,
    ).values_list("id", flat=True)
    for task_id in list(failed[:RETRY_FAILED_MAX]):
        try:
            task_retry(actor=actor, task_id=task_id)
        except TaskNotRetryable:
            continue  # changed meanwhile
        retried += 1
    return retried
