"""Django settings, read from the environment.

With no environment variables set the platform runs on an embedded default:
a SQLite file and kombu's filesystem broker under ``var/``. Production sets
``DATABASE_URL`` (PostgreSQL), ``CELERY_BROKER_URL`` (Redis), ``REDIS_URL``
(cache and throttling), ``SECRET_KEY``, ``FIELD_ENCRYPTION_KEY``,
``ALLOWED_HOSTS`` and ``DEBUG=0``. See README "Configuration".
"""

import os
from pathlib import Path

import dj_database_url
from kombu import Exchange, Queue

from workers import chromium

BASE_DIR = Path(__file__).resolve().parent.parent
# SQLite, the filesystem broker and collected static files live here; the folders are created at start
# (manage.py, WSGI/ASGI, the Celery app: config/embedded.py), never when settings are imported.
VAR_DIR = Path(os.environ.get("VAR_DIR", BASE_DIR / "var"))


def env_bool(name: str, default: bool = False) -> bool:
    value = os.environ.get(name)
    if value is None:
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


def env_list(name: str, default: str = "") -> list[str]:
    return [item.strip() for item in os.environ.get(name, default).split(",") if item.strip()]


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
    "automation.apps.AutomationConfig",
    "sms.apps.SmsConfig",
    "workers.apps.WorkersConfig",
]
# The benchmarks (`manage.py bench_*`, docs/benchmarks.md): an app of their own under tests/, installed in
# development and CI (on with DEBUG) and never in production unless asked for. No product module imports it.
BENCHMARKS = env_bool("BENCHMARKS", DEBUG)
if BENCHMARKS:
    INSTALLED_APPS.append("tests.bench.apps.BenchConfig")

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
API_JSON_MAX_DEPTH = int(os.environ.get("API_JSON_MAX_DEPTH", "64"))
# Entries of any one array or object of a JSON body (the largest list field of the API holds 20,000).
API_JSON_MAX_ITEMS = int(os.environ.get("API_JSON_MAX_ITEMS", "20000"))
FILE_UPLOAD_MAX_MEMORY_SIZE = 10 * 1024 * 1024

SESSION_COOKIE_HTTPONLY = True
SESSION_COOKIE_SECURE = env_bool("SECURE_COOKIES", not DEBUG and bool(os.environ.get("SECRET_KEY")))
CSRF_COOKIE_SECURE = SESSION_COOKIE_SECURE

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        # Token first: its WWW-Authenticate header makes unauthenticated requests a proper 401.
        "campaigns.platform.api.auth.HashedTokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_PAGINATION_CLASS": "campaigns.platform.api.pagination.PageSizePagination",
    "DEFAULT_FILTER_BACKENDS": ["django_filters.rest_framework.DjangoFilterBackend"],
    "DEFAULT_SCHEMA_CLASS": "campaigns.platform.api.schema.AreaAutoSchema",
    "EXCEPTION_HANDLER": "campaigns.platform.api.envelope.exception_handler",
    # JSON deeper than API_JSON_MAX_DEPTH, or any body carrying a control character, is a 400; OPTIONS
    # never builds a serializer.
    "DEFAULT_PARSER_CLASSES": [
        "campaigns.platform.api.parsers.SafeJSONParser",
        "campaigns.platform.api.parsers.SafeFormParser",
        "campaigns.platform.api.parsers.SafeMultiPartParser",
    ],
    "DEFAULT_METADATA_CLASS": "campaigns.platform.api.parsers.PlainMetadata",
    "DEFAULT_THROTTLE_CLASSES": [
        "rest_framework.throttling.AnonRateThrottle",
        "rest_framework.throttling.UserRateThrottle",
    ],
    "DEFAULT_THROTTLE_RATES": {
        "anon": os.environ.get("THROTTLE_ANON", "60/min"),
        "user": os.environ.get("THROTTLE_USER", "2000/min"),
    },
    "UNAUTHENTICATED_USER": "django.contrib.auth.models.AnonymousUser",
}

SPECTACULAR_SETTINGS = {
    "TITLE": "Campaign platform API",
    "DESCRIPTION": (
        "Workspace-scoped API. Send `X-Workspace: <slug>` to choose a workspace; "
        "errors always use the envelope `{success: false, error: {code, message, details}}`."
    ),
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "COMPONENT_SPLIT_REQUEST": True,
    # Swagger UI groups operations by area: campaigns.platform.api.schema.AreaAutoSchema tags each one
    # from its path (or its app), in this order, with one line in Persian and English.
    "TAGS": [
        {"name": "Targets", "description": "مخاطبان، فهرست‌ها، ورود و خروجی اکسل — targets, lists, Excel import/export"},
        {
            "name": "Workflows and journeys",
            "description": "گردش‌کارها، سفرها، ثبت‌نام و اجراها — workflows, journeys, enrollments, executions",
        },
        {
            "name": "SMS",
            "description": "قالب‌ها، فهرست سیاه، تنظیمات و پیش‌نمایش پیامک — SMS templates, blacklist, settings",
        },
        {
            "name": "Browser",
            "description": "حساب‌ها، پراکسی‌ها، پلتفرم‌ها و کارهای مرورگر — browser accounts, proxies, tasks",
        },
        {
            "name": "Campaigns, groups and chains",
            "description": "کمپین‌ها، گروه‌ها و زنجیره‌های پیگیری — campaigns, groups, follow-up chains",
        },
        {
            "name": "Approvals",
            "description": "ارسال برای تأیید، تأیید و رد — submit, approve, reject (single and chain)",
        },
        {"name": "Runs", "description": "اجراهای کمپین، مخاطبان ثابت و رویدادهای تبدیل — campaign runs, conversions"},
        {"name": "Platform", "description": "کاربر جاری و فضای کاری — the signed-in user and their workspaces"},
    ],
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "campaigns.platform.api.schema.add_workspace_header",
        "campaigns.platform.api.schema.add_generic_errors",
    ],
    "ENUM_NAME_OVERRIDES": {
        "TargetStatusEnum": "campaigns.choices.TargetStatus",
        "CampaignStatusEnum": "campaigns.choices.CampaignStatus",
        "ImportStatusEnum": "campaigns.choices.ImportStatus",
        "CampaignKindEnum": "campaigns.choices.CampaignKind",
    },
}

# --- Celery -----------------------------------------------------------------
CELERY_BROKER_URL = os.environ.get("CELERY_BROKER_URL", "filesystem://")
BROKER_DIR = VAR_DIR / "broker"
if CELERY_BROKER_URL.startswith("filesystem://"):
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "data_folder_in": str(BROKER_DIR / "queue"),
        "data_folder_out": str(BROKER_DIR / "queue"),
        "processed_folder": str(BROKER_DIR / "processed"),
        "store_processed": False,
        "control_folder": str(BROKER_DIR / "control"),
    }
else:
    # Redis redelivers an unacknowledged message after visibility_timeout.
    # Due times live in database rows polled by beat, so no task ever carries
    # an ETA/countdown longer than this; every task's time limit is far below it.
    CELERY_BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": 3600}
CELERY_TASK_IGNORE_RESULT = True
CELERY_RESULT_BACKEND = None
CELERY_TASK_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_TIMEZONE = "UTC"
CELERY_ENABLE_UTC = True
CELERY_TASK_DEFAULT_QUEUE = "default"
QUEUE_NAMES = ("default", "engine", "sms", "browser")
# One direct exchange per queue with its own routing key, so a message lands in exactly one queue.
CELERY_TASK_QUEUES = [Queue(name, Exchange(name, type="direct"), routing_key=name) for name in QUEUE_NAMES]
CELERY_TASK_DEFAULT_EXCHANGE = "default"
CELERY_TASK_DEFAULT_ROUTING_KEY = "default"
CELERY_TASK_ROUTES = {
    "automation.*": {"queue": "engine"},
    "sms.*": {"queue": "sms"},
    "workers.browser.*": {"queue": "browser"},
}
CELERY_TASK_SOFT_TIME_LIMIT = 300
CELERY_TASK_TIME_LIMIT = 360
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_BEAT_SCHEDULER = "django_celery_beat.schedulers:DatabaseScheduler"
# Periodic jobs live in code (config/celery.py, BEAT_SCHEDULE) and are copied
# into django-celery-beat's tables at beat start, where staff can see and edit them.

LOG_FORMAT = os.environ.get("LOG_FORMAT", "plain")  # "json": one JSON object per line (campaigns/platform/logs.py)
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {
        "plain": {"format": "%(asctime)s %(levelname)s %(name)s %(message)s"},
        "json": {"()": "campaigns.platform.logs.JsonFormatter"},
    },
    "handlers": {
        "console": {"class": "logging.StreamHandler", "formatter": "json" if LOG_FORMAT == "json" else "plain"}
    },
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "INFO")},
    "loggers": {"django.db.backends": {"level": "WARNING"}},
}

# --- metrics (campaigns/platform/metrics.py): off unless METRICS_TOKEN is set ---
METRICS_TOKEN = os.environ.get("METRICS_TOKEN", "")
if METRICS_TOKEN:
    INSTALLED_APPS.append("django_prometheus")
    MIDDLEWARE = [
        MIDDLEWARE[0],  # unknown methods are answered before the metrics label anything with them
        "django_prometheus.middleware.PrometheusBeforeMiddleware",
        *MIDDLEWARE[1:],
        "django_prometheus.middleware.PrometheusAfterMiddleware",
    ]
    if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
        DATABASES["default"]["ENGINE"] = "django_prometheus.db.backends.postgresql"

# --- journeys: engine and SMS channel ---
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
SMS_HTTP_TIMEOUT = float(os.environ.get("SMS_HTTP_TIMEOUT", "10"))
# The "sending" stamp before each call through a provider that cannot be asked by local id waits for the WAL
# flush (default). "0": it does not — a worker's
# death is still handled, a PostgreSQL crash right after a stamp may resend that step (journeys.md "Benchmark").
SMS_STAMP_DURABLE = os.environ.get("SMS_STAMP_DURABLE", "1") != "0"
SMS_CIRCUIT_PAUSE_MINUTES = int(os.environ.get("SMS_CIRCUIT_PAUSE_MINUTES", "30"))
# An unknown send outcome is settled by asking the provider by local id this long after it (and between
# unanswered questions); after this many unanswered questions the step's on_unknown_outcome decides.
SMS_UNKNOWN_SETTLE_SECONDS = int(os.environ.get("SMS_UNKNOWN_SETTLE_SECONDS", "120"))
SMS_UNKNOWN_SETTLE_TRIES = int(os.environ.get("SMS_UNKNOWN_SETTLE_TRIES", "3"))
# Delivery poll and per-account rate limits (docs/sms.md).
SMS_DELIVERY_POLL_INTERVAL_SECONDS = int(os.environ.get("SMS_DELIVERY_POLL_INTERVAL_SECONDS", "300"))
SMS_DELIVERY_POLL_MAX_AGE_HOURS = int(os.environ.get("SMS_DELIVERY_POLL_MAX_AGE_HOURS", "72"))
SMS_DELIVERY_POLL_BATCH = int(os.environ.get("SMS_DELIVERY_POLL_BATCH", "200"))
SMS_RATE_LIMIT_MAX_WAIT_SECONDS = float(os.environ.get("SMS_RATE_LIMIT_MAX_WAIT_SECONDS", "1"))
# Provider base URL overrides by provider kind (tests point them at a local fake server; never the internet
# in tests). A provider without an entry uses its own ``default_url`` (sms/providers/).
SMS_PROVIDER_BASE_URLS = {
    kind: url
    for kind, url in (
        ("kavenegar", os.environ.get("SMS_KAVENEGAR_URL", "")),
        ("melipayamak", os.environ.get("SMS_MELIPAYAMAK_URL", "")),
    )
    if url
}

# --- browser channel ---
# Browser-task campaigns (docs/browser-tasks.md). Every value can be overridden from the environment.
# The environment's path, else the one `make` chose and recorded (workers/chromium.py), else the system one.
PLAYWRIGHT_CHROMIUM_PATH = os.environ.get("PLAYWRIGHT_CHROMIUM_PATH") or chromium.recorded() or "/usr/bin/chromium"
# Flags that work in a closed network (no sandbox inside containers, no background calls home).
PLAYWRIGHT_CHROMIUM_ARGS = env_list(
    "PLAYWRIGHT_CHROMIUM_ARGS",
    "--headless,--no-sandbox,--disable-gpu,--disable-quic,--no-first-run,--disable-background-networking,"
    "--disable-component-update,--disable-sync",
)
BROWSER_TASKS = {
    "DISPATCH_BATCH": int(os.environ.get("BROWSER_DISPATCH_BATCH", "50")),
    "CREATION_BATCH": int(os.environ.get("BROWSER_CREATION_BATCH", "20")),
    "LEASE_SECONDS": int(os.environ.get("BROWSER_LEASE_SECONDS", "600")),
    # At most this many tasks dispatched and not finished, all platforms together: payloads beyond what the
    # workers can start within a lease would only wait in the broker, expire and be dispatched again.
    "MAX_IN_FLIGHT": int(os.environ.get("BROWSER_MAX_IN_FLIGHT", "500")),
    "DEFAULT_CONCURRENCY_CAP": int(os.environ.get("BROWSER_CONCURRENCY_CAP", "50")),
    "DEFAULT_PACING_SECONDS": int(os.environ.get("BROWSER_PACING_SECONDS", "0")),
    "DEFAULT_MAX_ATTEMPTS": int(os.environ.get("BROWSER_MAX_ATTEMPTS", "3")),
    "DEFAULT_BACKOFF_SECONDS": int(os.environ.get("BROWSER_BACKOFF_SECONDS", "60")),
    "PROXY_ERROR_THRESHOLD": float(os.environ.get("BROWSER_PROXY_ERROR_THRESHOLD", "3")),
    "PROXY_MARK_GOOD": float(os.environ.get("BROWSER_PROXY_MARK_GOOD", "0.5")),
    "PROXY_COOLDOWN_SECONDS": int(os.environ.get("BROWSER_PROXY_COOLDOWN_SECONDS", "60")),
    "PROXY_RETRY_BUDGET": int(os.environ.get("BROWSER_PROXY_RETRY_BUDGET", "3")),
    "STEP_TIMEOUT_MS": int(os.environ.get("BROWSER_STEP_TIMEOUT_MS", "10000")),
    "NAVIGATION_TIMEOUT_MS": int(os.environ.get("BROWSER_NAVIGATION_TIMEOUT_MS", "20000")),
    "CONTEXT_POOL_SIZE": int(os.environ.get("BROWSER_CONTEXT_POOL_SIZE", "16")),
    "TASK_SOFT_TIME_LIMIT": int(os.environ.get("BROWSER_TASK_SOFT_TIME_LIMIT", "120")),
    "RESULTS_QUEUE": os.environ.get("BROWSER_RESULTS_QUEUE", "default"),  # where workers send results
    "QUEUE": os.environ.get("BROWSER_QUEUE", "browser"),  # where payloads go (chosen here, never by a tenant)
    "MAX_TASKS_PER_PLATFORM": int(os.environ.get("BROWSER_MAX_TASKS_PER_PLATFORM", "50000")),
    "CREATION_CHUNK": int(os.environ.get("BROWSER_CREATION_CHUNK", "2000")),
    "CREATION_ROWS_PER_RUN": int(os.environ.get("BROWSER_CREATION_ROWS_PER_RUN", "20000")),
    "CREATION_BACKOFF_SECONDS": int(os.environ.get("BROWSER_CREATION_BACKOFF_SECONDS", "60")),
    "CREATION_BACKOFF_MAX_SECONDS": int(os.environ.get("BROWSER_CREATION_BACKOFF_MAX_SECONDS", "3600")),
    "DEADLINE_MARGIN_SECONDS": int(os.environ.get("BROWSER_DEADLINE_MARGIN_SECONDS", "15")),
}
# "host:port" entries a browser worker may reach although they resolve to a loopback/private address
# (workers.netguard). Empty by default; the embedded default (no DATABASE_URL) adds the demo site.
BROWSER_ALLOWED_PRIVATE_HOSTS = env_list("BROWSER_ALLOWED_PRIVATE_HOSTS")
if "DATABASE_URL" not in os.environ:
    BROWSER_ALLOWED_PRIVATE_HOSTS.append("127.0.0.1:8766")  # `make run`'s demo site (workers demo_site)
SPECTACULAR_SETTINGS["ENUM_NAME_OVERRIDES"].update(
    {
        "BrowserCampaignKindEnum": ["browser"],
        "BrowserActionTypeEnum": "workers.choices.ActionType",
        "BrowserTaskStatusEnum": "workers.choices.TaskStatus",
        "BrowserPlatformStatusEnum": "workers.choices.PlatformStatus",
        "BrowserSessionStatusEnum": "workers.choices.SessionStatus",
        "ProxyProtocolEnum": "workers.choices.ProxyProtocol",
    }
)
# Journey enrollment review (automation): batch status and the add/skip decision.
SPECTACULAR_SETTINGS["ENUM_NAME_OVERRIDES"].update(
    {
        "EnrollmentBatchStatusEnum": "automation.choices.BatchStatus",
        "EnrollmentDecisionEnum": "automation.choices.Decision",
        "ExecutionStatusEnum": "automation.choices.ExecutionStatus",
    }
)


# --- health and notifications ---
# /healthz: the beat heartbeat may be this old before the check fails; requests per client address per minute.
HEALTHZ_BEAT_MAX_AGE_SECONDS = int(os.environ.get("HEALTHZ_BEAT_MAX_AGE_SECONDS", "300"))
HEALTHZ_RATE_PER_MINUTE = int(os.environ.get("HEALTHZ_RATE_PER_MINUTE", "60"))
# Prefix of links in notification e-mails (e.g. https://campaigns.example.com); empty: relative links.
SITE_URL = os.environ.get("SITE_URL", "")

# --- groups, chains and approval (campaigns.chains) ---
# Add ≤ N campaigns per request; largest approval snapshot in bytes; hours after which a run still open
# is flagged COMPLETION_OVERDUE; dispatch attempts of a run before it ends FAILED (docs/chains.md, Runs).
CHAINS_MAX_ADD_IDS = int(os.environ.get("CHAINS_MAX_ADD_IDS", "100"))
CHAINS_PACKAGE_MAX_BYTES = int(os.environ.get("CHAINS_PACKAGE_MAX_BYTES", str(2 * 1024 * 1024)))
CHAIN_RUN_COMPLETION_DEADLINE_HOURS = int(os.environ.get("CHAIN_RUN_COMPLETION_DEADLINE_HOURS", "72"))
CHAIN_RUN_DISPATCH_MAX_ATTEMPTS = int(os.environ.get("CHAIN_RUN_DISPATCH_MAX_ATTEMPTS", "5"))
# A FAILED_DELIVERY follow-up waits (DELIVERY_DATA_PENDING) for its source run's delivery reports at most this
# long after the source run completed; then it freezes with what is known (a send still unreported counts as sent).
CHAIN_DELIVERY_REPORT_WINDOW_HOURS = int(os.environ.get("CHAIN_DELIVERY_REPORT_WINDOW_HOURS", "24"))


# --- security settings (production start, proxies, login, tokens, imports, exports) ---
# `manage.py check --deploy` fails, and the WSGI/ASGI app refuses to load, when DEBUG=0 runs on the
# development SECRET_KEY or a FIELD_ENCRYPTION_KEY derived from it (campaigns/checks.py).
SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", False)
SECURE_HSTS_SECONDS = int(os.environ.get("SECURE_HSTS_SECONDS", "0"))
SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", False)
SECURE_HSTS_PRELOAD = env_bool("SECURE_HSTS_PRELOAD", False)
# Reverse proxies in front of the app that append to X-Forwarded-For (0: use the socket address).
TRUSTED_PROXY_COUNT = int(os.environ.get("TRUSTED_PROXY_COUNT", "0"))
# Trust X-Forwarded-Proto only behind a proxy that sets it itself (default: on when a proxy is trusted).
if env_bool("SECURE_PROXY_SSL_HEADER", TRUSTED_PROXY_COUNT > 0):
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
REST_FRAMEWORK["NUM_PROXIES"] = TRUSTED_PROXY_COUNT
# Login throttle: failures per username (from any address) and per client address, then an
# exponential back-off (base seconds, doubled per failure over the limit, capped) instead of a lock-out.
LOGIN_FAILURES_PER_USERNAME = int(os.environ.get("LOGIN_FAILURES_PER_USERNAME", "5"))
LOGIN_FAILURES_PER_IP = int(os.environ.get("LOGIN_FAILURES_PER_IP", "30"))
LOGIN_BACKOFF_SECONDS = int(os.environ.get("LOGIN_BACKOFF_SECONDS", "2"))
LOGIN_BACKOFF_MAX_SECONDS = int(os.environ.get("LOGIN_BACKOFF_MAX_SECONDS", "900"))
API_TOKEN_TTL_DAYS = int(os.environ.get("API_TOKEN_TTL_DAYS", "90"))
# Imports: upload size, rows, columns, declared unzipped size of an .xlsx, runs without progress.
IMPORT_MAX_BYTES = int(os.environ.get("IMPORT_MAX_BYTES", str(10 * 1024 * 1024)))
IMPORT_MAX_ROWS = int(os.environ.get("IMPORT_MAX_ROWS", "100000"))
IMPORT_MAX_COLUMNS = int(os.environ.get("IMPORT_MAX_COLUMNS", "50"))
IMPORT_MAX_UNZIPPED_BYTES = int(os.environ.get("IMPORT_MAX_UNZIPPED_BYTES", str(100 * 1024 * 1024)))
# What the import task holds of an .xlsx: shared strings (count, UTF-8 bytes together) and cells read.
IMPORT_MAX_STRINGS = int(os.environ.get("IMPORT_MAX_STRINGS", "1000000"))
IMPORT_MAX_STRING_BYTES = int(os.environ.get("IMPORT_MAX_STRING_BYTES", str(32 * 1024 * 1024)))
IMPORT_MAX_CELLS = int(os.environ.get("IMPORT_MAX_CELLS", "2000000"))
# XML elements of all the parts one .xlsx read parses (its time; memory is bounded by the element depth, 20).
IMPORT_MAX_XML_ELEMENTS = int(os.environ.get("IMPORT_MAX_XML_ELEMENTS", "5000000"))
IMPORT_MAX_ATTEMPTS = int(os.environ.get("IMPORT_MAX_ATTEMPTS", "3"))
# Stops parsing an upload body once a file passes IMPORT_MAX_BYTES (campaigns/uploads.py).
FILE_UPLOAD_HANDLERS = [
    "campaigns.platform.uploads.SizeLimitedUploadHandler",
    "django.core.files.uploadhandler.MemoryFileUploadHandler",
    "django.core.files.uploadhandler.TemporaryFileUploadHandler",
]
# Largest synchronous .xlsx export; above it the request asks for a narrower filter.
TARGETS_EXPORT_MAX_ROWS = int(os.environ.get("TARGETS_EXPORT_MAX_ROWS", "20000"))
# The blacklist CSV streams a plain row per number and has no filter to narrow it: a whole year's opt-outs go out.
BLACKLIST_EXPORT_MAX_ROWS = int(os.environ.get("BLACKLIST_EXPORT_MAX_ROWS", "1000000"))
# History tables by month on PostgreSQL (campaigns.platform.partitions): the months created ahead by the daily
# job, and the months of history kept (older months are dropped whole; 0 = keep forever).
HISTORY_PARTITIONS_AHEAD = int(os.environ.get("HISTORY_PARTITIONS_AHEAD", "3"))
HISTORY_RETENTION_MONTHS = int(os.environ.get("HISTORY_RETENTION_MONTHS", "0"))
