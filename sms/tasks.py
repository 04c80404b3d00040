"""Celery entry points of the SMS channel (queue ``sms``): take ids, call one service."""

from celery import shared_task


@shared_task(name="sms.delivery_poll", ignore_result=True, max_retries=0)
def delivery_poll() -> dict:
    """Beat, every minute: ask the providers about accepted attempts still without a final status."""
    from sms.delivery import delivery_poll as poll

    return poll()
