"""Celery: the broker, the queues and their routes (the core's, then each installed channel's), time limits,
beat's scheduler."""

import os

from kombu import Exchange, Queue

from campaigns.platform.channels import channels_in
from config.settings.base import INSTALLED_APPS, VAR_DIR

CELERY_BROKER_URL = os.environ.get("CELERY_BROKER_URL", "filesystem://")
BROKER_DIR = VAR_DIR / "broker"
if CELERY_BROKER_URL.startswith("filesystem://"):
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "data_folder_in": str(BROKER_DIR / "queue"),
        "data_folder_out": str(BROKER_DIR / "queue"),
        "processed_folder": str(BROKER_DIR / "processed"),
        "store_processed": False,
        "control_folder": str(BROKER_DIR / "control"),
    }
else:
    # Redis redelivers an unacknowledged message after visibility_timeout.
    # Due times live in database rows polled by beat, so no task ever carries
    # an ETA/countdown longer than this; every task's time limit is far below it.
    CELERY_BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": 3600}
CELERY_TASK_IGNORE_RESULT = True
CELERY_RESULT_BACKEND = None
CELERY_TASK_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_TIMEZONE = "UTC"
CELERY_ENABLE_UTC = True
CELERY_TASK_DEFAULT_QUEUE = "default"
# The core's queues, then the ones each channel declares (campaigns/platform/channels.py).
_channels = channels_in(INSTALLED_APPS)
QUEUE_NAMES = ("default", "engine", *(queue for channel in _channels for queue in channel.queues))
# One direct exchange per queue with its own routing key, so a message lands in exactly one queue.
CELERY_TASK_QUEUES = [Queue(name, Exchange(name, type="direct"), routing_key=name) for name in QUEUE_NAMES]
CELERY_TASK_DEFAULT_EXCHANGE = "default"
CELERY_TASK_DEFAULT_ROUTING_KEY = "default"
CELERY_TASK_ROUTES = {
    "automation.*": {"queue": "engine"},
    **{glob: {"queue": queue} for channel in _channels for glob, queue in channel.routes.items()},
}
CELERY_TASK_SOFT_TIME_LIMIT = 300
CELERY_TASK_TIME_LIMIT = 360
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_BEAT_SCHEDULER = "django_celery_beat.schedulers:DatabaseScheduler"
# Periodic jobs live in code (config/celery.py, BEAT_SCHEDULE) and are copied
# into django-celery-beat's tables at beat start, where staff can see and edit them.
