"""``LOG_FORMAT=json``: one JSON object per log line (time, level, logger, message, process, exception).

``WebhookTokenFilter`` (on ``django.request``): the providers' webhooks carry their workspace's or account's
token in the path (``/api/webhooks/sms/<provider>/<token>``, ``…/inbound/<account>/<token>``), and Django logs
the path of every 4xx/5xx answer — a refused push with the right token (rate limit, a bad body, the automation
switched off) printed the token. Long token-like segments of a webhook path are masked in the message."""

from __future__ import annotations

import json
import logging
import re
from datetime import UTC, datetime

WEBHOOK_PATHS = "/api/webhooks/"
# a path segment of 20+ URL-safe characters (the tokens are 43): masked in a webhook path
_TOKEN_SEGMENT = re.compile(r"(?<=/)[A-Za-z0-9_-]{20,}(?=[/?#\s\"']|$)")
MASK = "***"


class WebhookTokenFilter(logging.Filter):
    """Mask the token of a webhook path in a log message (the record is kept, its message rewritten)."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        if WEBHOOK_PATHS in message:
            record.msg, record.args = _TOKEN_SEGMENT.sub(MASK, message), ()
        return True


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        entry = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
            "process": record.processName,
            "pid": record.process,
        }
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        return json.dumps(entry, ensure_ascii=False, default=str)
