"""WSGI entry point (gunicorn config.wsgi)."""

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
application = get_wsgi_application()

from campaigns.platform.checks import refuse_insecure_start  # noqa: E402  (needs the loaded apps)
from campaigns.platform.collector import freeze_loaded  # noqa: E402
from config.embedded import ensure_embedded_folders  # noqa: E402

refuse_insecure_start()
ensure_embedded_folders()
freeze_loaded()  # what the process loaded stays for its life: out of the collector's full passes
