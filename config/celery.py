"""The Celery app: queues ``default``, ``engine``, ``sms`` and ``browser``.

Periodic jobs are declared here in code; django-celery-beat's
DatabaseScheduler copies them into its tables when beat starts, so staff can
see (and pause) them in the admin. Run exactly one beat.
"""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("config")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()

BEAT_SCHEDULE = {
    "platform-heartbeat": {
        "task": "campaigns.heartbeat",
        "schedule": 60.0,
        "options": {"expires": 55},
    },
    "target-imports-resume": {
        "task": "campaigns.target_imports_resume",
        "schedule": 300.0,
        "options": {"expires": 290},
    },
}
app.conf.beat_schedule = BEAT_SCHEDULE
