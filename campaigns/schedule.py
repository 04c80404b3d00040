"""Periodic jobs of the campaigns app (plain data; merged in config/celery.py)."""

BEAT_SCHEDULE: dict = {
    "platform-heartbeat": {"task": "campaigns.heartbeat", "schedule": 60.0, "options": {"expires": 55}},
    "target-imports-resume": {
        "task": "campaigns.target_imports_resume",
        "schedule": 300.0,
        "options": {"expires": 290},
    },
    "chain-runs-tick": {"task": "campaigns.chain_runs_tick", "schedule": 60.0, "options": {"expires": 55}},
    "idempotency-keys-purge": {
        "task": "campaigns.idempotency_keys_purge",
        "schedule": 3600.0,
        "options": {"expires": 3500},
    },
    "webhook-deliveries-sweep": {
        "task": "campaigns.webhook_deliveries_sweep",
        "schedule": 60.0,
        "options": {"expires": 55},
    },
    "history-partitions": {"task": "campaigns.history_partitions", "schedule": 86400.0, "options": {"expires": 3600}},
    "chain-run-conversions": {
        "task": "campaigns.chain_run_conversions",
        "schedule": 600.0,
        "options": {"expires": 590},
    },
}
