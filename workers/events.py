"""Append-only history rows of the browser channel: one helper per ``BrowserEventType`` (the only writer).

Services call the helper named after what happened; the bulk variants write many rows in one
INSERT. Every row carries the workspace and, where known, the campaign, task, account and proxy.
"""

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from campaigns.platform.events import event_build, events_write_bulk
from campaigns.platform.webhook_payloads import webhook_data
from campaigns.platform.webhooks import webhook_event_emit
from workers.choices import BrowserEventType
from workers.models import BrowserEvent, BrowserTask


def _event(
    *,
    workspace_id: int,
    type: str,
    message: str = "",
    campaign_id: int | None = None,
    task_id: int | None = None,
    account_id: int | None = None,
    proxy_id: int | None = None,
    actor=None,
    data: dict[str, Any] | None = None,
) -> BrowserEvent:
    return event_build(
        BrowserEvent,
        workspace_id=workspace_id,
        type=type,
        actor=actor,
        data=data,
        message=message[:1000],
        campaign_id=campaign_id,
        task_id=task_id,
        account_id=account_id,
        proxy_id=proxy_id,
    )


def _task_event(task: BrowserTask, type: str, **fields) -> BrowserEvent:
    return _event(workspace_id=task.workspace_id, type=type, campaign_id=task.campaign_id, task_id=task.pk, **fields)


def _save(event: BrowserEvent) -> BrowserEvent:
    event.save(force_insert=True)
    return event


# --- webhook payloads (registered in ``WorkersConfig.ready()``) -------------------------------------
TASK_FAILED_EVENT, TASK_COMPLETED_EVENT = "browser.task_failed", "browser.task_completed"


@dataclass(frozen=True)
class BrowserTaskFailedData:
    """An attempt of a browser task failed (`error_code`; another attempt may follow)."""

    task_id: int
    campaign_id: int
    error_code: str
    attempt: int


@dataclass(frozen=True)
class BrowserTaskCompletedData:
    """A browser task was done by a worker (the result of the lease the platform holds; a late or repeated
    result fires nothing)."""

    task_id: int
    campaign_id: int
    account_id: int | None
    attempt: int
    finished_at: datetime


# --- tasks ----------------------------------------------------------------------------------------
def task_completed(*, workspace_id: int, task_id: int, campaign_id: int, account_id, attempt: int, finished_at):
    """The task's DISPATCHED → COMPLETED update just changed a row (in its transaction): only the webhook event,
    the task row itself is the history."""
    data = BrowserTaskCompletedData(
        task_id=task_id, campaign_id=campaign_id, account_id=account_id, attempt=attempt, finished_at=finished_at
    )
    webhook_event_emit(workspace_id=workspace_id, type=TASK_COMPLETED_EVENT, data=webhook_data(data))


def task_failed(*, task: BrowserTask, code: str, reason: str, step: str = "") -> BrowserEvent:
    event = _save(
        _task_event(
            task,
            BrowserEventType.TASK_FAILED,
            account_id=task.account_id,
            proxy_id=task.proxy_id,
            message=reason,
            data={"error_code": code, "attempt": task.attempt_count, "step": step},
        )
    )
    data = BrowserTaskFailedData(
        task_id=task.pk, campaign_id=task.campaign_id, error_code=code, attempt=task.attempt_count
    )
    webhook_event_emit(workspace_id=task.workspace_id, type=TASK_FAILED_EVENT, data=webhook_data(data))
    return event


def task_retry_scheduled(*, task: BrowserTask, code: str, retry_at) -> BrowserEvent:
    return _save(
        _task_event(
            task,
            BrowserEventType.TASK_RETRY_SCHEDULED,
            data={"error_code": code, "attempt": task.attempt_count, "retry_at": retry_at.isoformat()},
        )
    )


def tasks_reclaimed_bulk(*, tasks: Iterable[BrowserTask], requeued: Iterable[BrowserTask]) -> list[BrowserEvent]:
    """Expired leases: each task was put back in the queue (``requeued``) or failed."""
    requeued_ids = {t.pk for t in requeued}
    return events_write_bulk(
        BrowserEvent,
        [
            _task_event(
                t,
                BrowserEventType.TASK_RECLAIMED,
                message="lease expired: " + ("requeued" if t.pk in requeued_ids else "failed"),
                data={"attempt": t.attempt_count},
            )
            for t in tasks
        ],
    )


def task_replaced(*, task: BrowserTask, account_id: int, replacement_task_id: int) -> BrowserEvent:
    return _save(
        _task_event(
            task,
            BrowserEventType.TASK_REPLACED,
            account_id=account_id,
            data={"replacement_task_id": replacement_task_id},
        )
    )


def no_spare_account(*, task: BrowserTask) -> BrowserEvent:
    return _save(_task_event(task, BrowserEventType.NO_SPARE_ACCOUNT, message="no spare account left for this link"))


def task_retried(*, task: BrowserTask, actor) -> BrowserEvent:
    """Staff sent a failed task again."""
    return _save(_task_event(task, BrowserEventType.TASK_RETRIED, actor=actor))


def result_ignored(
    *, workspace_id: int, campaign_id: int, task_id: int, attempt: Any, status: str, error_code: str | None = None
) -> BrowserEvent:
    """A late or duplicate worker result (the task had moved on)."""
    data: dict[str, Any] = {"attempt": attempt, "status": status}
    if error_code is not None:
        data["error_code"] = error_code
    return _save(
        _event(
            workspace_id=workspace_id,
            type=BrowserEventType.RESULT_IGNORED,
            campaign_id=campaign_id,
            task_id=task_id,
            data=data,
        )
    )


# --- accounts and proxies -------------------------------------------------------------------------
def account_expired(*, task: BrowserTask, reason: str) -> BrowserEvent:
    return _save(_task_event(task, BrowserEventType.ACCOUNT_EXPIRED, account_id=task.account_id, message=reason))


def proxy_error(
    *, workspace_id: int, proxy_id: int, reason: str, disabled: bool = False, data: dict | None = None
) -> BrowserEvent:
    """A proxy failed (``disabled``: it reached the threshold and left the rotation)."""
    return _save(
        _event(
            workspace_id=workspace_id,
            type=BrowserEventType.PROXY_DISABLED if disabled else BrowserEventType.PROXY_ERROR,
            proxy_id=proxy_id,
            message=reason,
            data=data,
        )
    )


def proxy_reset(*, workspace_id: int, proxy_id: int) -> BrowserEvent:
    return _save(
        _event(
            workspace_id=workspace_id, type=BrowserEventType.PROXY_ERROR, proxy_id=proxy_id, message="reset by staff"
        )
    )


# --- platforms ------------------------------------------------------------------------------------
def platform_status(
    *, workspace_id: int, campaign_id: int, platform_id: int, from_status: str, to_status: str, actor=None
) -> BrowserEvent:
    """A platform of a campaign changed status (``actor``: the person who asked; empty for the system)."""
    return _save(
        _event(
            workspace_id=workspace_id,
            type=BrowserEventType.PLATFORM_STATUS,
            campaign_id=campaign_id,
            message=f"{from_status} → {to_status}",
            actor=actor,
            data={"platform_id": platform_id},
        )
    )


def platform_status_recorder(platform, actor=None):
    """The ``on_applied`` of a platform's FSM transition: its ``platform_status`` event."""

    def record(from_status: str, to_status: str) -> None:
        platform_status(
            workspace_id=platform.workspace_id,
            campaign_id=platform.campaign_id,
            platform_id=platform.pk,
            from_status=from_status,
            to_status=to_status,
            actor=actor,
        )

    return record


def creation_failed(
    *, workspace_id: int, campaign_id: int, platform_id: int, reason: str, failures: int, retry_at
) -> BrowserEvent:
    return _save(
        _event(
            workspace_id=workspace_id,
            type=BrowserEventType.CREATION_FAILED,
            campaign_id=campaign_id,
            message=reason,
            data={"platform_id": platform_id, "failures": failures, "retry_at": retry_at.isoformat()},
        )
    )
