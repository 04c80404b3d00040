"""When the last message of a campaign would go out: the sends spread over the send window's openings at the
account's rate, each workspace day holding at most the daily limits, quiet days skipped (docs/journeys.md "Launch
check")."""

from __future__ import annotations

import math
import zoneinfo
from collections.abc import Callable
from datetime import date, datetime, time, timedelta

from automation.engine.window import DAYS, SendWindow

HORIZON_DAYS = 400
WHOLE_DAY = ((time.min, None),)


def _intervals(window: SendWindow | None, day) -> tuple:
    if window is None:
        return WHOLE_DAY
    return window.days[DAYS[day.weekday()]]


def finish_at(
    *,
    start: datetime,
    messages: int,
    rate_per_minute: int | None,
    window: SendWindow | None,
    daily_limit: int | None,
    tz: str,
    quiet_day: Callable[[date], bool] | None = None,
) -> datetime | None:
    """The estimated time of the last send (``start`` when there is nothing to send); None past ``HORIZON_DAYS``
    or when the window never opens. Waits between steps are not added: this is the sending time alone. A day
    ``quiet_day`` says is quiet (the channel's no-send days of promotional steps) sends nothing."""
    if messages <= 0:
        return start
    if daily_limit == 0:
        return None
    zone = zoneinfo.ZoneInfo(window.tz if window else tz)
    remaining = messages
    local_start = start.astimezone(zone)
    for offset in range(HORIZON_DAYS):
        day = local_start.date() + timedelta(days=offset)
        if quiet_day is not None and quiet_day(day):
            continue
        left_today = daily_limit if daily_limit is not None else math.inf
        for opens, closes in _intervals(window, day):
            begin = datetime.combine(day, opens, tzinfo=zone)
            end = (
                datetime.combine(day, closes, tzinfo=zone)
                if closes
                else datetime.combine(day + timedelta(days=1), time.min, tzinfo=zone)
            )
            begin = max(begin, local_start)
            if begin >= end or left_today <= 0:
                continue
            minutes = (end - begin).total_seconds() / 60
            capacity = math.inf if not rate_per_minute else math.floor(minutes * rate_per_minute)
            can = min(capacity, left_today)
            if remaining <= can:
                spent = 0.0 if not rate_per_minute else remaining / rate_per_minute
                return (begin + timedelta(minutes=spent)).astimezone(start.tzinfo)
            remaining -= can
            left_today -= can
    return None
