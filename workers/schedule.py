"""Periodic jobs of the browser channel (plain data; merged in config/celery.py)."""

BEAT_SCHEDULE: dict = {
    "browser-create-tasks": {"task": "workers.create_tasks", "schedule": 60.0, "options": {"expires": 55}},
    "browser-dispatch": {"task": "workers.dispatch", "schedule": 30.0, "options": {"expires": 25}},
    "browser-statistics": {"task": "workers.refresh_statistics", "schedule": 300.0, "options": {"expires": 290}},
}
