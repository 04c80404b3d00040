"""Settings of the workflow engine (docs/journeys.md): leases, ticks, back-pressure. Every value can be
overridden from the environment.

The app declares this module (``AutomationConfig.settings_module``); ``config/settings/apps.py`` gathers its
UPPER_CASE names into Django's settings before any app loads. Code reads the values from ``django.conf.settings``."""

import os

# Lease of a claimed execution; the tick reaps queued/processing rows older than this.
AUTOMATION_LEASE_SECONDS = int(os.environ.get("AUTOMATION_LEASE_SECONDS", "600"))
# How often a running job renews its lease; unset: a quarter of the lease, at most a minute (automation.engine.lease).
AUTOMATION_LEASE_HEARTBEAT_SECONDS = (
    float(os.environ["AUTOMATION_LEASE_HEARTBEAT_SECONDS"])
    if "AUTOMATION_LEASE_HEARTBEAT_SECONDS" in os.environ
    else None
)
AUTOMATION_DISPATCH_BATCH = int(os.environ.get("AUTOMATION_DISPATCH_BATCH", "200"))  # executions per engine task
AUTOMATION_TICK_MAX_CLAIMS = int(os.environ.get("AUTOMATION_TICK_MAX_CLAIMS", "20000"))  # per tick, all campaigns
AUTOMATION_TICK_SECONDS = int(os.environ.get("AUTOMATION_TICK_SECONDS", "50"))
# Claimed executions waiting for an engine worker (``queued``) above which a tick claims nothing more: what the
# workers start within a lease (automation.engine.scheduler.queue_room).
AUTOMATION_MAX_QUEUED = int(os.environ.get("AUTOMATION_MAX_QUEUED", "20000"))
# Non-budget steps (wait/condition/end) claimed per campaign per tick (the spec's 500 made 100,000 waking waits
# take 200 ticks); still bounded by AUTOMATION_TICK_MAX_CLAIMS for the whole tick.
AUTOMATION_NON_BUDGET_PER_TICK = int(os.environ.get("AUTOMATION_NON_BUDGET_PER_TICK", "5000"))
