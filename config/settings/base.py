"""Django itself: debug and keys, apps and middleware, templates, the database and the cache, sign-in,
language and time, static files, request sizes, session cookies."""

import os
from pathlib import Path

import dj_database_url

from config.env import BASE_DIR, env_bool, env_list

# SQLite, the filesystem broker and collected static files live here; the folders are created at start
# (manage.py, WSGI/ASGI, the Celery app: config/embedded.py), never when settings are imported.
VAR_DIR = Path(os.environ.get("VAR_DIR", BASE_DIR / "var"))

DEBUG = env_bool("DEBUG", False)
# The development default is deliberately recognisable; `manage.py check --deploy` flags it.
SECRET_KEY = os.environ.get("SECRET_KEY", "django-insecure-dev-only-change-me-in-production-0123456789")
# Comma-separated Fernet keys; the first encrypts, all decrypt (key rotation).
# Unset: a key derived from SECRET_KEY (development only, documented in README).
FIELD_ENCRYPTION_KEY = os.environ.get("FIELD_ENCRYPTION_KEY", "")
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", "localhost,127.0.0.1,[::1],testserver")
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS")

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "django_filters",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "django_celery_beat",
    "campaigns.platform.apps.PlatformConfig",
    "campaigns.apps.CampaignsConfig",
    "campaigns.chains.apps.ChainsConfig",
    "automation.apps.AutomationConfig",
    "sms.apps.SmsConfig",
    "workers.apps.WorkersConfig",
]
# The benchmarks (`manage.py bench_*`, docs/benchmarks.md): an app of their own under tests/, installed in
# development and CI (on with DEBUG) and never in production unless asked for. No product module imports it.
BENCHMARKS = env_bool("BENCHMARKS", DEBUG)
if BENCHMARKS:
    INSTALLED_APPS.append("tests.bench.apps.BenchConfig")
# More apps (comma-separated AppConfig paths) without editing this list: a channel installed for a trial, a
# test's throw-away channel (docs/architecture.md "Adding a channel"). Empty by default.
INSTALLED_APPS += env_list("EXTRA_APPS")

MIDDLEWARE = [
    # 405 for a method nothing serves, before any metric or log sees it (campaigns/platform/methods.py)
    "campaigns.platform.methods.KnownMethodMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    # Persian unless chosen otherwise with the language switch; Accept-Language is ignored
    # (docs/architecture.md "Time and language").
    "campaigns.platform.locale.ChosenLanguageMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "campaigns.platform.login_throttle.LoginThrottleMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "campaigns.platform.tenancy.WorkspaceMiddleware",
]

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"
ASGI_APPLICATION = "config.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "campaigns.context_processors.workspace",
            ],
        },
    },
]

DATABASES = {
    "default": dj_database_url.parse(
        os.environ.get("DATABASE_URL", f"sqlite:///{VAR_DIR / 'db.sqlite3'}"),
        conn_max_age=int(os.environ.get("DB_CONN_MAX_AGE", "0")),
    )
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # Wait for the lock instead of failing when web and worker write at once.
    DATABASES["default"].setdefault("OPTIONS", {})["timeout"] = 20
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

REDIS_URL = os.environ.get("REDIS_URL", "")
if REDIS_URL:
    # Throttle counters and short claims: degraded, never a 500, while Redis is unreachable.
    CACHES = {"default": {"BACKEND": "campaigns.platform.cache.ResilientRedisCache", "LOCATION": REDIS_URL}}
else:
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
]
# The login throttle is checked first, before any password or API key (campaigns/platform/login_throttle.py).
AUTHENTICATION_BACKENDS = [
    "campaigns.platform.login_throttle.LoginThrottleBackend",
    "django.contrib.auth.backends.ModelBackend",
    "campaigns.platform.api.auth.ApiKeyBackend",
]
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "login"

LANGUAGE_CODE = "fa"
LANGUAGES = [("fa", "فارسی"), ("en", "English")]
LOCALE_PATHS = [BASE_DIR / "locale"]
TIME_ZONE = "UTC"  # storage and server time; calendars use the workspace time zone
USE_I18N = True
USE_TZ = True

STATIC_URL = "/static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = VAR_DIR / "staticfiles"
WHITENOISE_USE_FINDERS = True  # serve from app/static dirs without collectstatic in development
MEDIA_ROOT = VAR_DIR / "media"
DATA_UPLOAD_MAX_MEMORY_SIZE = 10 * 1024 * 1024  # a larger API body is a 413 PAYLOAD_TOO_LARGE
DATA_UPLOAD_MAX_NUMBER_FIELDS = 1000  # more form fields is a 400 VALIDATION_ERROR
FILE_UPLOAD_MAX_MEMORY_SIZE = 10 * 1024 * 1024

SESSION_COOKIE_HTTPONLY = True
SESSION_COOKIE_SECURE = env_bool("SECURE_COOKIES", not DEBUG and bool(os.environ.get("SECRET_KEY")))
CSRF_COOKIE_SECURE = SESSION_COOKIE_SECURE

# Prefix of links in notification e-mails (e.g. https://campaigns.example.com); empty: relative links.
SITE_URL = os.environ.get("SITE_URL", "")
