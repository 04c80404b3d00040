"""The example channel's own settings (gathered by config/settings/apps.py like every app's)."""

import os

EXAMPLE_POLL_SECONDS = int(os.environ.get("EXAMPLE_POLL_SECONDS", "30"))
