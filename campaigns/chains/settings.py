"""Settings of groups, follow-up chains and approval (docs/chains.md): request bounds and the runs' deadlines.
Every value can be overridden from the environment.

The app declares this module (``ChainsConfig.settings_module``); ``config/settings/apps.py`` gathers its
UPPER_CASE names into Django's settings before any app loads. Code reads the values from ``django.conf.settings``."""

import os

# Add ≤ N campaigns per request; largest approval snapshot in bytes; hours after which a run still open
# is flagged COMPLETION_OVERDUE; dispatch attempts of a run before it ends FAILED (docs/chains.md, Runs).
CHAINS_MAX_ADD_IDS = int(os.environ.get("CHAINS_MAX_ADD_IDS", "100"))
CHAINS_PACKAGE_MAX_BYTES = int(os.environ.get("CHAINS_PACKAGE_MAX_BYTES", str(2 * 1024 * 1024)))
CHAIN_RUN_COMPLETION_DEADLINE_HOURS = int(os.environ.get("CHAIN_RUN_COMPLETION_DEADLINE_HOURS", "72"))
CHAIN_RUN_DISPATCH_MAX_ATTEMPTS = int(os.environ.get("CHAIN_RUN_DISPATCH_MAX_ATTEMPTS", "5"))
# A FAILED_DELIVERY follow-up waits (DELIVERY_DATA_PENDING) for its source run's delivery reports at most this
# long after the source run completed; then it freezes with what is known (a send still unreported counts as sent).
CHAIN_DELIVERY_REPORT_WINDOW_HOURS = int(os.environ.get("CHAIN_DELIVERY_REPORT_WINDOW_HOURS", "30"))
