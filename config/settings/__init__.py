"""Django settings, read from the environment, split by concern (after HackSoft's Django styleguide).

With no environment variables set the platform runs on an embedded default:
a SQLite file and kombu's filesystem broker under ``var/``. Production sets
``DATABASE_URL`` (PostgreSQL), ``CELERY_BROKER_URL`` (Redis), ``REDIS_URL``
(cache and throttling), ``SECRET_KEY``, ``FIELD_ENCRYPTION_KEY``,
``ALLOWED_HOSTS`` and ``DEBUG=0``. See README "Configuration".

``DJANGO_SETTINGS_MODULE`` stays ``config.settings``: this module gathers the concerns in order (a later one
may extend what an earlier one declared: metrics add their app and middleware, security sets the API's
proxy count). ``config/env.py`` holds the helpers that read the environment. A new setting goes to the
module of its concern; a new concern is a module here and one line below. A setting only one app reads lives
in that app's own settings module (``automation/settings.py``, ``sms/settings.py`` …), which ``apps`` gathers.
"""

# ruff: noqa: F403, I001 - the concerns, in the order they build on each other
from config.settings.base import *
from config.settings.api import *
from config.settings.celery import *
from config.settings.monitoring import *
from config.settings.security import *
from config.settings.limits import *
from config.settings.apps import *
