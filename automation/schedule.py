"""Periodic jobs of this app, merged into config.celery.BEAT_SCHEDULE (plain data, no imports)."""

# name: (task, every so many seconds, a run not started by then expires after so many seconds); queue "engine"
_JOBS = {
    "automation-tick": ("automation.tick", 60, 55),
    "automation-enrollment-batches-resume": ("automation.enrollment_batches_resume", 60, 55),
    "automation-version-migrations-resume": ("automation.version_migrations_resume", 60, 55),
    "automation-journey-counts-fold": ("automation.journey_counts_fold", 60, 55),
    "automation-auto-enroll": ("automation.auto_enroll_check", 300, 290),
}

BEAT_SCHEDULE: dict = {
    name: {"task": task, "schedule": float(every), "options": {"queue": "engine", "expires": expires}}
    for name, (task, every, expires) in _JOBS.items()
}
