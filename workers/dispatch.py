"""Messaging only: pack a claimed task into a worker payload and publish it (the seed's NATS module).

The payload carries everything a browser worker needs, so workers never touch
the database: the account (decrypted cookies, user agent, viewport), the
proxy (server, username, decrypted password), the URL, the rendered content,
the declarative steps and the logged-in check. Payloads go to the task's
``server`` queue (``browser`` by default) after the claiming transaction
commits; results come back as ``workers.apply_result`` on ``default``.

The payload holds secrets in clear text while it sits in the broker (in the
message body only: ``argsrepr``/``kwargsrepr`` in the headers — which Celery
also logs and sends with events — are replaced by ids): run the broker on a
private network (documented in docs/browser-tasks.md). Each payload carries
the task's ``lease_id``; the result must echo it to be applied.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from datetime import datetime

from celery import current_app
from django.db import transaction

from workers.steps import render

logger = logging.getLogger("workers.dispatch")

# The task module imports this one, so messages are sent by task name.
RUN_TASK = "workers.browser.run_task"
APPLY_RESULT_TASK = "workers.apply_result"

# Tests and the benchmark may swap the transport (a list, a multiprocessing queue).
_publisher: Callable[[list[dict]], None] | None = None


def build_payload(*, task, account, proxy, metadata: dict, lease_expires_at: datetime) -> dict:
    """The message for one claimed task (``task.attempt_count`` is already the new attempt)."""
    values = {"link": task.link, "account": account.label, "action": task.action_type}
    return {
        "task_id": task.pk,
        "attempt": task.attempt_count,
        "lease_id": str(task.lease_id) if task.lease_id else None,
        "verify_first": bool(task.needs_verification),
        "workspace_id": task.workspace_id,
        "campaign_id": task.campaign_id,
        "link": task.link,
        "action_type": task.action_type,
        "action_params": metadata.get("action_params") or {},
        "content": render(metadata.get("content_template") or "", values),
        "steps": metadata.get("steps") or [],
        "login_check": metadata.get("login_check") or {},
        "lease_expires_at": lease_expires_at.isoformat(),
        "server": task.server,
        "account": {
            "id": account.pk,
            "label": account.label,
            "cookies": account.cookies,
            "cookie_domain": account.cookie_domain,  # where the cookies may go (workers.cookies)
            "user_agent": account.user_agent,
            "viewport": {"width": account.viewport_width, "height": account.viewport_height},
        },
        "proxy": (
            {
                "id": proxy.pk,
                "server": proxy.server,
                "username": proxy.username,
                "password": proxy.password,
            }
            if proxy is not None
            else None
        ),
    }


def set_publisher(publisher: Callable[[list[dict]], None] | None) -> None:
    global _publisher
    _publisher = publisher


def _publish_now(payloads: list[dict]) -> None:
    if _publisher is not None:
        _publisher(payloads)
        return
    with current_app.producer_or_acquire() as producer:
        for payload in payloads:
            current_app.signature(RUN_TASK).apply_async(
                args=[payload],
                argsrepr=payload_repr(payload),  # message headers: never cookies or proxy passwords
                kwargsrepr="{}",
                queue=payload["server"],
                expires=datetime.fromisoformat(payload["lease_expires_at"]),
                producer=producer,
            )
    logger.info("published %s browser tasks", len(payloads))


def publish_payloads(payloads: Iterable[dict]) -> None:
    """Publish after the surrounding transaction commits (nothing is sent for a rolled-back claim)."""
    payloads = list(payloads)
    if payloads:
        transaction.on_commit(lambda: _publish_now(payloads))


def payload_repr(message: dict) -> str:
    """What Celery shows of a message (``argsrepr`` header, worker logs, events): ids only, no secrets."""
    keys = ("task_id", "attempt", "status", "error_code")
    return repr([{k: message[k] for k in keys if k in message}])


def publish_result(result: dict) -> None:
    """From the browser worker: hand the result to the results queue (``default``; no database here)."""
    from workers import conf

    current_app.signature(APPLY_RESULT_TASK).apply_async(
        args=[result], argsrepr=payload_repr(result), kwargsrepr="{}", queue=conf.setting("RESULTS_QUEUE")
    )
