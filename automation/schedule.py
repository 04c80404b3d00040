"""Periodic jobs of this app, merged into config.celery.BEAT_SCHEDULE (plain data, no imports)."""

BEAT_SCHEDULE: dict = {
    "automation-tick": {"task": "automation.tick", "schedule": 60.0, "options": {"queue": "engine", "expires": 55}},
    "automation-enrollment-batches-resume": {
        "task": "automation.enrollment_batches_resume",
        "schedule": 60.0,
        "options": {"queue": "engine", "expires": 55},
    },
    "automation-version-migrations-resume": {
        "task": "automation.version_migrations_resume",
        "schedule": 60.0,
        "options": {"queue": "engine", "expires": 55},
    },
    "automation-journey-counts-fold": {
        "task": "automation.journey_counts_fold",
        "schedule": 60.0,
        "options": {"queue": "engine", "expires": 55},
    },
    "automation-auto-enroll": {
        "task": "automation.auto_enroll_check",
        "schedule": 300.0,
        "options": {"queue": "engine", "expires": 290},
    },
}
