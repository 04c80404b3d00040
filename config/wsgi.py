"""WSGI entry point (gunicorn config.wsgi)."""

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
application = get_wsgi_application()

from campaigns.platform.checks import refuse_insecure_start  # noqa: E402  (needs the loaded apps)
from config.embedded import ensure_embedded_folders  # noqa: E402

refuse_insecure_start()
ensure_embedded_folders()
