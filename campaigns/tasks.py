"""Celery entry points: take ids, call one service."""

from celery import shared_task
from django.utils import timezone

from campaigns.models import PlatformHeartbeat
from campaigns.platform import idempotency, partitions, webhooks
from campaigns.services import imports


@shared_task(
    name=imports.IMPORT_TASK,
    acks_late=True,
    reject_on_worker_lost=True,
    soft_time_limit=1800,
    time_limit=1900,
)
def target_import_process(import_id: int) -> None:
    imports.target_import_process(import_id=import_id)


@shared_task(name="campaigns.target_imports_resume")
def target_imports_resume() -> None:
    imports.target_imports_resume()


@shared_task(name="campaigns.heartbeat")
def heartbeat() -> None:
    PlatformHeartbeat.objects.update_or_create(name="beat", defaults={"beat_at": timezone.now()})


@shared_task(name="campaigns.idempotency_keys_purge")
def idempotency_keys_purge() -> int:
    """Hourly: the Idempotency-Key answers older than 24 hours deleted."""
    return idempotency.idempotency_keys_purge()


@shared_task(name=webhooks.DELIVER_TASK, acks_late=True, soft_time_limit=60, time_limit=90)
def webhook_deliver(delivery_id: int) -> str | None:
    return webhooks.webhook_delivery_attempt(delivery_id=delivery_id)


@shared_task(name=webhooks.DELIVER_MANY_TASK, acks_late=True, soft_time_limit=300, time_limit=330)
def webhook_deliver_many(delivery_ids: list[int]) -> list[str | None]:
    """A batch's deliveries (up to ``DELIVER_CHUNK``), one request each; a row left undone is swept again."""
    return webhooks.webhook_deliveries_attempt(delivery_ids=delivery_ids)


@shared_task(name="campaigns.webhook_deliveries_sweep")
def webhook_deliveries_sweep() -> int:
    """Every minute: due webhook deliveries whose task was lost, queued again."""
    return len(webhooks.webhook_deliveries_sweep())


@shared_task(name="campaigns.history_partitions")
def history_partitions() -> dict:
    """Daily: the history months ahead created, the months past ``HISTORY_RETENTION_MONTHS`` dropped."""
    return {"created": partitions.partitions_ensure(), "dropped": partitions.partitions_retain()}
