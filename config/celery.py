"""The Celery app: queues ``default`` and ``engine``, then each installed channel's (``sms``, ``browser``).

Periodic jobs are declared here in code; django-celery-beat's
DatabaseScheduler copies them into its tables when beat starts, so staff can
see (and pause) them in the admin. Run exactly one beat.
"""

import os

from celery import Celery
from celery.signals import beat_init, celeryd_init, task_postrun, worker_process_init

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("config")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@app.on_after_configure.connect
def _embedded_folders(sender, **kwargs) -> None:
    """The filesystem broker's folders exist before the first message is sent or read."""
    from config.embedded import ensure_embedded_folders

    ensure_embedded_folders()


@worker_process_init.connect  # every pool process of `celery worker`, once its apps are loaded
def _freeze_loaded_objects(sender=None, **kwargs) -> None:
    from campaigns.platform.collector import freeze_loaded

    freeze_loaded()


@task_postrun.connect
def _count_task(sender=None, state=None, **kwargs) -> None:
    """``platform_tasks_total`` (campaigns/platform/metrics.py)."""
    from campaigns.platform.metrics import count_task

    count_task(task=getattr(sender, "name", "?"), state=state or "?")


@celeryd_init.connect  # the `celery worker` command (not in-process test workers)
@beat_init.connect
def _refuse_development_secrets(sender=None, **kwargs) -> None:
    """A production (DEBUG=0) worker or beat needs real secrets, like the web process.

    Celery logs and swallows exceptions raised by signal handlers, so the refusal exits.
    """
    from django.core.exceptions import ImproperlyConfigured

    from campaigns.platform.checks import refuse_insecure_start

    try:
        refuse_insecure_start()
    except ImproperlyConfigured as exc:
        raise SystemExit(str(exc)) from exc


from automation.schedule import BEAT_SCHEDULE as AUTOMATION  # noqa: E402
from campaigns.schedule import BEAT_SCHEDULE as CAMPAIGNS  # noqa: E402


def channel_beat_schedules(channels) -> dict:
    """The periodic jobs each channel declares (``channel.beat_schedule``, a dotted path to its dict)."""
    from django.utils.module_loading import import_string

    out: dict = {}
    for channel in channels:
        if channel.beat_schedule:
            out.update(import_string(channel.beat_schedule))
    return out


def _settings_channels():
    from django.conf import settings

    from campaigns.platform.channels import channels_in

    return channels_in(settings.INSTALLED_APPS)


BEAT_SCHEDULE = {**CAMPAIGNS, **AUTOMATION, **channel_beat_schedules(_settings_channels())}


def scaled(schedule: dict, scale: float) -> dict:
    """Every periodic job ``scale`` times as often apart (its expiry too): 0.05 turns a minute into 3 s."""
    if scale == 1:
        return schedule
    out = {}
    for name, job in schedule.items():
        options = dict(job.get("options", {}))
        if "expires" in options:
            options["expires"] = max(1.0, options["expires"] * scale)
        out[name] = {**job, "schedule": max(1.0, job["schedule"] * scale), "options": options}
    return out


# BEAT_SCHEDULE_SCALE (default 1): the chaos run's fast clock for periodic jobs; never set in production.
app.conf.beat_schedule = scaled(BEAT_SCHEDULE, float(os.environ.get("BEAT_SCHEDULE_SCALE", "1")))
