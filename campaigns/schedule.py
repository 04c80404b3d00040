"""Periodic jobs of the campaigns app (plain data; merged in config/celery.py)."""

# name: (task, every so many seconds, a run not started by then expires after so many seconds)
_JOBS = {
    "platform-heartbeat": ("campaigns.heartbeat", 60, 55),
    "target-imports-resume": ("campaigns.target_imports_resume", 300, 290),
    "chain-runs-tick": ("campaigns.chain_runs_tick", 60, 55),
    "idempotency-keys-purge": ("campaigns.idempotency_keys_purge", 3600, 3500),
    "webhook-deliveries-sweep": ("campaigns.webhook_deliveries_sweep", 60, 55),
    "history-partitions": ("campaigns.history_partitions", 86400, 3600),
    "chain-run-conversions": ("campaigns.chain_run_conversions", 600, 590),
}

BEAT_SCHEDULE: dict = {
    name: {"task": task, "schedule": float(every), "options": {"expires": expires}}
    for name, (task, every, expires) in _JOBS.items()
}
