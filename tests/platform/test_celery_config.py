"""Queues, routes, beat schedule in the database, broker options."""

import importlib
import sys

import pytest

from config.celery import BEAT_SCHEDULE, app


def test_queues_and_routes():
    assert {q.name for q in app.conf.task_queues} == {"default", "engine", "sms", "browser"}
    router = app.amqp.router
    assert router.route({}, "campaigns.target_import_process")["queue"].name == "default"
    assert router.route({}, "automation.anything")["queue"].name == "engine"
    assert router.route({}, "sms.send")["queue"].name == "sms"
    assert router.route({}, "workers.browser.run")["queue"].name == "browser"


def test_every_periodic_job_names_a_registered_task():
    app.loader.import_default_modules()
    for name, entry in BEAT_SCHEDULE.items():
        assert entry["task"] in app.tasks, name


@pytest.mark.django_db(transaction=True)  # the scheduler closes the DB connection
def test_beat_schedule_is_loaded_into_the_database_scheduler():
    from django_celery_beat.models import PeriodicTask
    from django_celery_beat.schedulers import DatabaseScheduler

    DatabaseScheduler(app=app)  # what `celery beat` does at start
    names = set(PeriodicTask.objects.values_list("name", flat=True))
    assert set(BEAT_SCHEDULE) <= names


def reload_settings():
    """``config.settings`` read again from the environment: each concern module in the order the package
    imported them, then the package that gathers them."""
    import config.settings as package

    for name in [name for name in sys.modules if name.startswith("config.settings.")]:
        importlib.reload(sys.modules[name])
    return importlib.reload(package)


def test_redis_broker_gets_a_visibility_timeout(monkeypatch):
    monkeypatch.setenv("CELERY_BROKER_URL", "redis://127.0.0.1:6379/0")
    reloaded = reload_settings()
    try:
        assert reloaded.CELERY_BROKER_TRANSPORT_OPTIONS["visibility_timeout"] >= reloaded.CELERY_TASK_TIME_LIMIT * 2
    finally:
        monkeypatch.delenv("CELERY_BROKER_URL")
        reload_settings()


def test_embedded_default_uses_the_filesystem_broker(monkeypatch):
    monkeypatch.delenv("CELERY_BROKER_URL", raising=False)
    monkeypatch.delenv("DATABASE_URL", raising=False)
    reloaded = reload_settings()
    try:
        assert reloaded.CELERY_BROKER_URL == "filesystem://"
        assert reloaded.CELERY_BROKER_TRANSPORT_OPTIONS["data_folder_in"].startswith(str(reloaded.VAR_DIR))
        assert reloaded.DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3"
    finally:
        reload_settings()


def test_each_queue_has_its_own_routing_key():
    for queue in app.conf.task_queues:
        assert queue.routing_key == queue.name
        assert queue.exchange.name == queue.name


def test_a_routed_message_lands_in_exactly_one_queue():
    """On the real broker: a task for `engine` is not copied into the other queues."""
    if not app.conf.broker_url.startswith("redis://"):
        pytest.skip("checks Redis list lengths; CI runs it with CELERY_BROKER_URL=redis://…")
    names = ["default", "engine", "sms", "browser"]
    with app.connection_for_write() as conn:
        client = conn.default_channel.client
        before = {n: client.llen(n) for n in names}
        app.send_task("automation.routing_probe", args=[], connection=conn)
        after = {n: client.llen(n) for n in names}
        delta = {n: after[n] - before[n] for n in names}
        client.lrem("engine", 1, client.lindex("engine", 0))  # remove our probe again
    assert delta == {"default": 0, "engine": 1, "sms": 0, "browser": 0}
