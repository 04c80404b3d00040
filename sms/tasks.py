"""Celery entry points of the SMS channel (queue ``sms``): take ids, call one service."""

from celery import shared_task


@shared_task(name="sms.delivery_poll", ignore_result=True, max_retries=0)
def delivery_poll() -> dict:
    """Beat, every minute: ask the providers about accepted attempts still without a final status."""
    from sms.delivery import delivery_poll as poll

    return poll()


@shared_task(name="sms.inbox_poll", ignore_result=True, max_retries=0)
def inbox_poll() -> dict:
    """Beat, every minute: read the replies of every account that can receive (fair, bounded per run)."""
    from sms.inbound.poll import inbox_poll as poll

    return poll()


@shared_task(name="sms.retention_purge", ignore_result=True, max_retries=0)
def retention_purge() -> dict:
    """Beat, daily: erase texts and numbers of attempts older than each workspace's retention period."""
    from sms.retention import sms_retention_purge_all

    return {str(k): v for k, v in sms_retention_purge_all().items()}


@shared_task(name="sms.unknown_watch", ignore_result=True, max_retries=0)
def unknown_watch() -> dict:
    """Beat, every 10 minutes: settle unknown outcomes the providers can vouch for; alarm about old ones."""
    from sms.unknown_watch import unknown_watch as watch

    return watch()


@shared_task(name="sms.credit_read", ignore_result=True, max_retries=0)
def credit_read() -> dict:
    """Beat, every 15 minutes: read each account's credit from its provider; owners told of a low one."""
    from sms.credit import credit_read as read

    return read()
