"""Production start refuses development secrets and a per-process cache.

``manage.py check --deploy`` reports them as errors (the command fails), and the WSGI/ASGI
application and the Celery worker and beat refuse to start with ``DEBUG=0`` while they are in use.
Without ``REDIS_URL`` the cache is each process's local memory: the login throttle and the rate
limits count per process (a second web worker starts from zero) and a local-memory cache culls a
third of its entries at 300, so anonymous requests could flush the throttle's counters.
"""

from django.conf import settings
from django.core import checks
from django.core.exceptions import ImproperlyConfigured

DEV_SECRET_KEY = "django-insecure-dev-only-change-me-in-production-0123456789"


def insecure_settings() -> list[tuple[str, str]]:
    """(id, message) for each development-only secret still in use."""
    problems = []
    if settings.SECRET_KEY == DEV_SECRET_KEY or settings.SECRET_KEY.startswith("django-insecure"):
        problems.append(("platform.E001", "SECRET_KEY is the development key; set SECRET_KEY."))
    if not settings.FIELD_ENCRYPTION_KEY.strip():
        problems.append(
            (
                "platform.E002",
                "FIELD_ENCRYPTION_KEY is unset, so the field-encryption key is derived from SECRET_KEY; "
                "set FIELD_ENCRYPTION_KEY (Fernet keys, see README).",
            )
        )
    if not settings.REDIS_URL.strip():
        problems.append(
            (
                "platform.E003",
                "REDIS_URL is unset, so the cache holding the login throttle and the rate limits is each "
                "process's local memory; set REDIS_URL.",
            )
        )
    return problems


@checks.register(checks.Tags.security, deploy=True)
def check_production_secrets(app_configs=None, **kwargs) -> list[checks.CheckMessage]:
    return [checks.Error(message, id=check_id) for check_id, message in insecure_settings()]


def refuse_insecure_start() -> None:
    """Called by the WSGI/ASGI entry points and the Celery worker and beat: DEBUG=0 needs real secrets."""
    if settings.DEBUG:
        return
    problems = insecure_settings()
    if problems:
        raise ImproperlyConfigured("Refusing to start with DEBUG=0: " + " ".join(message for _, message in problems))
