"""The chaos run's calendar clock: the workspace's days pass in minutes, shared by every process of the run.

The platform reads the time through ``django.utils.timezone.now``. In every process of the run (this one,
gunicorn, the workers; not beat, which paces the periodic jobs in real seconds — stack.py) that function
is replaced (``install``, from ``sitecustomize`` on the processes' path) by the same piecewise clock,
described once in the environment (``CHAOS_CLOCK``): the run is a list of *stretches*, each lived at the
real pace around one moment of the workspace's day — a send window's opening at 09:00 (when the chain's
runs are due too) and its closing at 12:00 — with a jump from one stretch to the next, so a workspace day
takes two stretches of real time and the run crosses several days. Leases, retries, waits and settle
delays stay real seconds inside a stretch; a jump is a clock step forward of hours, which every lease held
across it sees as expired (the platform's lease and unknown-outcome rules apply, as after a paused
worker). After the last stretch the clock runs on at the real pace (the settle phase). The checks map the
provider's real timestamps onto this clock (``fast``) and the platform's back onto real time (``real``)
where a delay in real seconds is what counts.
"""

from __future__ import annotations

import json
import os
import time
import zoneinfo
from bisect import bisect_right
from datetime import UTC, date, datetime, timedelta

ENV = "CHAOS_CLOCK"
TIME_ZONE = "Asia/Tehran"
OPENS, CLOSES = "09:00", "12:00"  # the window journeys' window; the chain's runs are due at the opening
ROOT_WEEKDAYS = ("MON", "THU")  # the chain root's periods: Monday → Thursday → Monday


def first_day(real: float, tz: str = TIME_ZONE) -> date:
    """The run's first workspace day: the first Monday at least a day after real time ``real``."""
    day = (datetime.fromtimestamp(real, zoneinfo.ZoneInfo(tz)) + timedelta(days=1)).date()
    return day + timedelta(days=(7 - day.weekday()) % 7)


def plan(*, start: float, minutes: float, lead: float = 0.0, tz: str = TIME_ZONE) -> dict:
    """Stretches for a run of ``minutes`` from real time ``start``: each ``segment`` real seconds centred on
    09:00 or 12:00 local, from the first Monday at least a day ahead (the clock never goes back); the first
    one starts ``lead`` seconds earlier (the processes starting)."""
    zone = zoneinfo.ZoneInfo(tz)
    segment = max(30.0, minutes * 60 / 12)  # 30 min → 12 stretches of 150 s: six workspace days
    day = first_day(start, tz)
    stretches, real = [], start + lead
    for n in range(max(2, int(minutes * 60 // segment) + 1)):
        at = OPENS if n % 2 == 0 else CLOSES
        local = datetime.combine(day + timedelta(days=n // 2), datetime.strptime(at, "%H:%M").time(), zone)
        stretches.append((real, local.timestamp() - segment / 2))
        real += segment
    stretches[0] = (start, stretches[0][1] - lead)
    return {"tz": tz, "segment": segment, "stretches": stretches}


class Clock:
    def __init__(self, spec: dict) -> None:
        self.tz = spec["tz"]
        self.segment = float(spec["segment"])
        self.stretches = [(float(r), float(f)) for r, f in spec["stretches"]]
        self.starts = [r for r, _ in self.stretches]

    def fast(self, real: float) -> float:
        """The workspace's clock at real time ``real`` (epoch seconds)."""
        i = max(0, bisect_right(self.starts, real) - 1)
        r, f = self.stretches[i]
        return f + (real - r)

    def real(self, fast: float) -> float:
        """The real time the clock showed ``fast``; a moment jumped over maps to the jump (the stretch's start)."""
        for i in range(len(self.stretches) - 1, -1, -1):
            r, f = self.stretches[i]
            if fast >= f:
                last = i == len(self.stretches) - 1
                return r + (fast - f) if last else min(r + (fast - f), self.stretches[i + 1][0])
        return self.stretches[0][0] + fast - self.stretches[0][1]

    def now(self) -> datetime:
        return datetime.fromtimestamp(self.fast(time.time()), UTC)

    def at(self, real: float) -> datetime:
        return datetime.fromtimestamp(self.fast(real), UTC)

    def describe(self) -> str:
        """The workspace days the run crossed, e.g. ``Mon 2026-12-07 → Sun 2026-12-13 (13 × 150 s)``."""
        zone = zoneinfo.ZoneInfo(self.tz)
        first = datetime.fromtimestamp(self.stretches[0][1], zone)
        last = datetime.fromtimestamp(self.stretches[-1][1] + self.segment, zone)
        return f"{first:%a %Y-%m-%d %H:%M} → {last:%a %Y-%m-%d %H:%M} ({len(self.stretches)} × {self.segment:g} s)"

    def to_env(self) -> str:
        return json.dumps({"tz": self.tz, "segment": self.segment, "stretches": self.stretches})


def current() -> Clock | None:
    raw = os.environ.get(ENV)
    return Clock(json.loads(raw)) if raw else None


def install() -> Clock | None:
    """Replace ``django.utils.timezone.now`` by the run's clock (before Django loads any model)."""
    clock = current()
    if clock is None:
        return None
    from django.utils import timezone

    timezone.now = clock.now
    return clock
