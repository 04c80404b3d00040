"""Append-only history rows of the browser channel (one writer)."""

from typing import Any

from workers.models import BrowserEvent


def browser_event(
    *,
    workspace_id: int,
    type: str,
    message: str = "",
    campaign_id: int | None = None,
    task_id: int | None = None,
    account_id: int | None = None,
    proxy_id: int | None = None,
    data: dict[str, Any] | None = None,
) -> BrowserEvent:
    return BrowserEvent.objects.create(
        workspace_id=workspace_id,
        type=type,
        message=message[:1000],
        campaign_id=campaign_id,
        task_id=task_id,
        account_id=account_id,
        proxy_id=proxy_id,
        data=data or {},
    )
