"""Quiet days: workspace days (every Friday, listed dates such as official holidays) on which promotional sends —
through an advertising line — do not go out; a step due on one waits for the next allowed day (docs/sms.md
"Quiet days"). Dates are stored ISO (Gregorian) and shown and edited in the Jalali calendar."""

from __future__ import annotations

import zoneinfo
from collections.abc import Callable
from datetime import UTC, date, datetime, time, timedelta

REASON = "quiet_day"
FRIDAY = 4  # date.weekday()
MAX_DAYS = 366  # listed dates kept per workspace
HORIZON = 400  # days looked ahead for an allowed day


def listed(settings) -> set[date]:
    days = set()
    for value in getattr(settings, "quiet_days", None) or []:
        try:
            days.add(date.fromisoformat(str(value)))
        except ValueError:
            continue
    return days


def quiet_test(settings) -> Callable[[date], bool]:
    """``day → is it quiet?`` for the workspace's settings (read once)."""
    days, fridays = listed(settings), bool(getattr(settings, "quiet_fridays", False))
    return lambda day: day in days or (fridays and day.weekday() == FRIDAY)


def next_allowed_start(settings, moment: datetime, tz: str) -> datetime | None:
    """The start (local midnight, as UTC) of the first day after ``moment``'s local day that is not quiet."""
    quiet = quiet_test(settings)
    zone = zoneinfo.ZoneInfo(tz)
    day = moment.astimezone(zone).date()
    for _ in range(HORIZON):
        day += timedelta(days=1)
        if not quiet(day):
            return datetime.combine(day, time.min).replace(tzinfo=zone).astimezone(UTC)
    return None
