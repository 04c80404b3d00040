"""Settings of the SMS channel (docs/sms.md): providers, unknown outcomes, delivery poll, rate limits, credit,
the inbox poll, the blacklist export. Every value can be overridden from the environment.

The app declares this module (``AppConfig.settings_module``); ``config/settings/apps.py`` gathers its UPPER_CASE
names into Django's settings before any app loads. Code reads the values from ``django.conf.settings``."""

import os

SMS_HTTP_TIMEOUT = float(os.environ.get("SMS_HTTP_TIMEOUT", "10"))
# Kept-alive connections per provider host in each worker process.
SMS_HTTP_POOL_SIZE = int(os.environ.get("SMS_HTTP_POOL_SIZE", "8"))
# How long an account backs off (every worker) after the provider answered "too many requests" or "busy".
SMS_PROVIDER_BACKOFF_SECONDS = float(os.environ.get("SMS_PROVIDER_BACKOFF_SECONDS", "5"))
# The "sending" stamp before each call through a provider that cannot be asked by local id waits for the WAL
# flush (default). "0": it does not — a worker's
# death is still handled, a PostgreSQL crash right after a stamp may resend that step (journeys.md "Benchmark").
SMS_STAMP_DURABLE = os.environ.get("SMS_STAMP_DURABLE", "1") != "0"
SMS_CIRCUIT_PAUSE_MINUTES = int(os.environ.get("SMS_CIRCUIT_PAUSE_MINUTES", "30"))
# An unknown send outcome is settled by asking the provider by local id this long after it (and between
# unanswered questions); after this many unanswered questions the step's on_unknown_outcome decides.
SMS_UNKNOWN_SETTLE_SECONDS = int(os.environ.get("SMS_UNKNOWN_SETTLE_SECONDS", "120"))
SMS_UNKNOWN_SETTLE_TRIES = int(os.environ.get("SMS_UNKNOWN_SETTLE_TRIES", "3"))
# What stays unknown is watched (sms.unknown_watch): asked by local id while the provider answers (Kavenegar: ~12 h
# after a send), alarmed past the alarm age, then looked up by receptor.
SMS_UNKNOWN_LOCAL_ID_WINDOW_HOURS = float(os.environ.get("SMS_UNKNOWN_LOCAL_ID_WINDOW_HOURS", "11"))
SMS_UNKNOWN_ALARM_HOURS = float(os.environ.get("SMS_UNKNOWN_ALARM_HOURS", "6"))
# Delivery poll and per-account rate limits (docs/sms.md).
SMS_DELIVERY_POLL_INTERVAL_SECONDS = int(os.environ.get("SMS_DELIVERY_POLL_INTERVAL_SECONDS", "300"))
SMS_DELIVERY_POLL_MAX_AGE_HOURS = int(os.environ.get("SMS_DELIVERY_POLL_MAX_AGE_HOURS", "72"))
SMS_DELIVERY_POLL_BATCH = int(os.environ.get("SMS_DELIVERY_POLL_BATCH", "5000"))
# The account credit (read every 15 minutes) below which the owners are told (docs/sms.md "Credit"), in the
# account's credit unit: rials, or message parts (Melipayamak).
SMS_LOW_CREDIT_RIALS = int(os.environ.get("SMS_LOW_CREDIT_RIALS", "1000000"))
SMS_LOW_CREDIT_MESSAGES = int(os.environ.get("SMS_LOW_CREDIT_MESSAGES", "500"))
SMS_RATE_LIMIT_MAX_WAIT_SECONDS = float(os.environ.get("SMS_RATE_LIMIT_MAX_WAIT_SECONDS", "1"))
# The inbox poll of replies (docs/sms.md "Replies"): inboxes read per run, and between two reads of one inbox.
SMS_INBOX_POLL_BATCH = int(os.environ.get("SMS_INBOX_POLL_BATCH", "100"))
SMS_INBOX_POLL_INTERVAL_SECONDS = int(os.environ.get("SMS_INBOX_POLL_INTERVAL_SECONDS", "55"))
# The blacklist CSV streams a plain row per number and has no filter to narrow it: a whole year's opt-outs go out.
BLACKLIST_EXPORT_MAX_ROWS = int(os.environ.get("BLACKLIST_EXPORT_MAX_ROWS", "1000000"))
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
