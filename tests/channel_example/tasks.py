from celery import shared_task


@shared_task(name="channel_example.poll", ignore_result=True)
def example_poll() -> None:
    return None
