"""SendWindow: weekday intervals in a time zone (pure value object, DST-safe).

``{"timezone": "Asia/Tehran", "days": {"sat": [["09:00", "18:00"]], …, "fri": null}}``
(a bare day map is accepted too). Several intervals a day, closed days, no
interval across midnight. ``is_open(t)`` and ``next_open_at(t)`` take and
return aware datetimes (UTC in, UTC out).
"""

from __future__ import annotations

import itertools
import zoneinfo
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from typing import Any

DAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")  # datetime.weekday() order
DISPLAY_ORDER = ("sat", "sun", "mon", "tue", "wed", "thu", "fri")


class WindowError(ValueError):
    pass


def _parse_time(text: str) -> time:
    try:
        hours, minutes = str(text).split(":")
        if str(text).strip() == "24:00":
            return time.max
        return time(int(hours), int(minutes))
    except (ValueError, TypeError):
        raise WindowError(f"invalid time {text!r}") from None


@dataclass(frozen=True)
class SendWindow:
    tz: str
    days: dict[str, tuple[tuple[time, time], ...]]

    @classmethod
    def from_config(cls, config: dict[str, Any] | None, default_tz: str = "Asia/Tehran") -> SendWindow | None:
        if not config:
            return None
        if not isinstance(config, dict):
            raise WindowError("window must be an object")
        tz = config.get("timezone") or default_tz
        if not isinstance(tz, str):
            raise WindowError("the time zone is a name such as Asia/Tehran")
        try:
            zoneinfo.ZoneInfo(tz)
        except (zoneinfo.ZoneInfoNotFoundError, ValueError):
            raise WindowError(f"unknown time zone {tz!r}") from None
        raw_days = config.get("days", {k: v for k, v in config.items() if k in DAYS})
        if not isinstance(raw_days, dict):
            raise WindowError("days must be an object of weekdays")
        days: dict[str, tuple[tuple[time, time], ...]] = {}
        for day in DAYS:
            intervals = raw_days.get(day) or []
            if not isinstance(intervals, list | tuple):
                raise WindowError(f"{day}: a list of [start, end] intervals")
            parsed = []
            for interval in intervals:
                if not isinstance(interval, list | tuple) or len(interval) != 2:
                    raise WindowError(f"{day}: an interval is [start, end]")
                start, end = _parse_time(interval[0]), _parse_time(interval[1])
                if end <= start:
                    raise WindowError(f"{day}: intervals may not cross midnight or be empty")
                parsed.append((start, end))
            parsed.sort()
            for (_, a_end), (b_start, _) in itertools.pairwise(parsed):
                if b_start < a_end:
                    raise WindowError(f"{day}: overlapping intervals")
            days[day] = tuple(parsed)
        return cls(tz, days)

    def to_config(self) -> dict[str, Any]:
        return {
            "timezone": self.tz,
            "days": {
                d: ([[s.strftime("%H:%M"), e.strftime("%H:%M")] for s, e in self.days[d]] or None)
                for d in DISPLAY_ORDER
            },
        }

    @property
    def zone(self) -> zoneinfo.ZoneInfo:
        return zoneinfo.ZoneInfo(self.tz)

    def is_open(self, moment: datetime) -> bool:
        local = moment.astimezone(self.zone)
        t = local.time().replace(tzinfo=None)
        return any(start <= t < end for start, end in self.days[DAYS[local.weekday()]])

    def _local_instant(self, day: date, at: time) -> datetime:
        """The first real instant whose local wall time is ≥ ``at`` on ``day`` (a DST gap opens at its end)."""
        naive = datetime.combine(day, at)
        readings = [naive.replace(tzinfo=self.zone, fold=f).astimezone(UTC) for f in (0, 1)]
        exact = [u for u in readings if u.astimezone(self.zone).replace(tzinfo=None) == naive]
        if exact:
            return min(exact)  # a repeated (fall-back) hour opens at its first occurrence
        # ``naive`` falls in a spring-forward gap: binary search the transition between the two readings.
        lo, hi = min(readings), max(readings)
        while hi - lo > timedelta(seconds=1):
            mid = lo + (hi - lo) / 2
            if mid.astimezone(self.zone).replace(tzinfo=None) >= naive:
                hi = mid
            else:
                lo = mid
        return hi.replace(microsecond=0)

    def next_open_at(self, moment: datetime) -> datetime | None:
        """``moment`` itself when open, else the next opening (None when the window never opens)."""
        if self.is_open(moment):
            return moment
        local = moment.astimezone(self.zone)
        for offset in range(0, 8):
            day = local.date() + timedelta(days=offset)
            for start, _end in self.days[DAYS[day.weekday()]]:
                candidate = self._local_instant(day, start)
                if candidate > moment:
                    return candidate
        return None


def local_day(moment: datetime, tz: str) -> date:
    """The calendar day of ``moment`` in ``tz`` (daily limits count workspace days)."""
    return moment.astimezone(zoneinfo.ZoneInfo(tz)).date()


def next_local_midnight(moment: datetime, tz: str) -> datetime:
    zone = zoneinfo.ZoneInfo(tz)
    day = moment.astimezone(zone).date() + timedelta(days=1)
    return datetime.combine(day, time.min).replace(tzinfo=zone).astimezone(UTC)


def window_for_save(config: dict[str, Any] | None, default_tz: str = "Asia/Tehran") -> SendWindow | None:
    """Parse a window someone is saving; a window closed on every day is refused (nothing would ever be sent)."""
    window = SendWindow.from_config(config, default_tz=default_tz)
    if window is not None and not any(window.days.values()):
        raise WindowError("every day is closed; nothing would ever be sent")
    return window
