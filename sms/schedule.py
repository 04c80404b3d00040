"""Periodic jobs of this app, merged into config.celery.BEAT_SCHEDULE (plain data, no imports)."""

BEAT_SCHEDULE: dict = {
    "sms-delivery-poll": {"task": "sms.delivery_poll", "schedule": 60.0, "options": {"queue": "sms", "expires": 55}},
    "sms-unknown-watch": {"task": "sms.unknown_watch", "schedule": 600.0, "options": {"queue": "sms", "expires": 590}},
    "sms-inbox-poll": {"task": "sms.inbox_poll", "schedule": 60.0, "options": {"queue": "sms", "expires": 55}},
    "sms-credit-read": {"task": "sms.credit_read", "schedule": 900.0, "options": {"queue": "sms", "expires": 890}},
    "sms-retention-purge": {"task": "sms.retention_purge", "schedule": 86400.0, "options": {"queue": "sms"}},
}
