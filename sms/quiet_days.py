"""Quiet days: workspace days (every Friday, listed dates such as official holidays) on which promotional sends —
through an advertising line — do not go out; a step due on one waits for the next allowed day (docs/sms.md
"Quiet days"). Dates are stored ISO (Gregorian) and shown and edited in the Jalali calendar."""

from __future__ import annotations

import zoneinfo
from collections.abc import Callable
from datetime import UTC, date, datetime, time, timedelta

import jdatetime

REASON = "quiet_day"
# Iran's official holidays fixed in the solar calendar (Jalali month, day): Nowruz (1–4 Farvardin), Islamic Republic
# Day (12), Nature Day (13), 14–15 Khordad, 22 Bahman, 29 Esfand. The lunar holidays move every year: staff add them.
SOLAR_HOLIDAYS = ((1, 1), (1, 2), (1, 3), (1, 4), (1, 12), (1, 13), (3, 14), (3, 15), (11, 22), (12, 29))
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


def solar_holidays(jalali_year: int) -> list[date]:
    """The fixed official holidays of one Jalali year, as Gregorian dates."""
    return [jdatetime.date(jalali_year, month, day).togregorian() for month, day in SOLAR_HOLIDAYS]
