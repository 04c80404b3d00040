"""ASGI entry point."""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
application = get_asgi_application()

from campaigns.platform.checks import refuse_insecure_start  # noqa: E402  (needs the loaded apps)
from config.embedded import ensure_embedded_folders  # noqa: E402

refuse_insecure_start()
ensure_embedded_folders()
