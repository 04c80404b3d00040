"""LOG_FORMAT=json: every log line is one JSON object ops can ship and filter (level, logger, exception)."""

import json
import logging
import sys

from campaigns.platform.logs import JsonFormatter


def test_a_log_record_is_one_json_line_with_its_exception():
    try:
        raise RuntimeError("boom")
    except RuntimeError:
        info = sys.exc_info()
    record = logging.getLogger("sms.action").makeRecord(
        "sms.action", logging.ERROR, __file__, 1, "send %s failed", ("۱۲۳",), info
    )
    line = JsonFormatter().format(record)
    assert "\n" not in line
    entry = json.loads(line)
    assert (entry["level"], entry["logger"], entry["message"]) == ("ERROR", "sms.action", "send ۱۲۳ failed")
    assert "RuntimeError: boom" in entry["exception"]
