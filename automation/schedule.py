"""Periodic jobs of this app, merged into config.celery.BEAT_SCHEDULE (plain data, no imports)."""

BEAT_SCHEDULE: dict = {}
