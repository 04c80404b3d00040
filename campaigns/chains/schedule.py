"""Schedule maths for chains: pure functions, no database, no server clock.

Two kinds of schedule:

* the **root schedule** (``when``) of a chain root / independent campaign:
  ``DAILY``, ``WEEKLY`` (on weekdays) or ``MONTHLY`` (on a day 1..31 or
  ``LAST``) at a local ``time``, optionally bounded by ``start_date`` /
  ``end_date``. ``ONCE`` and ``EVENT`` can be stored (one-off or
  event-triggered campaigns) but cannot feed a chain.
* the **child schedule** (``inheritance.schedule``) of a chain child:
  ``AFTER_INTERVAL`` (``offset_days`` ≥ 1 after the source's run, at
  ``run_time``) or ``FIXED_DAY_IN_PERIOD`` (``fixed_day`` =
  ``DAY_OF_MONTH`` 1..31/LAST or ``WEEKDAY`` week 1..4/LAST + MON..SUN, at
  ``run_time``; under a weekly root only a weekday, without a week).

Every root occurrence opens a **period** that lasts until the next
occurrence. A child runs at most once per period, strictly after its source's
planned run and strictly before the next root occurrence.

All calendars are computed in the workspace time zone passed in (``tz``),
never the host's. Month lengths: a day-of-month larger than the month
(31 in April, 30/31 in February) means the last day of that month — the same
date ``LAST`` gives — so "day 31" runs every month, on the 28th/29th in
February.

Storage form (JSON in the database): numbers are ints, ``LAST`` is ``-1``.
Request/response form: day/week are the strings ``"1".."31"`` / ``"1".."4"``
or ``"LAST"`` (never mixed types in one field); ``parse_*`` converts requests,
``api_*`` renders storage back.
"""

from __future__ import annotations

import calendar
import zoneinfo
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta

import jdatetime

from campaigns.calendar import CALENDAR_SETTING, GREGORIAN, JALALI, workspace_calendar
from campaigns.platform.text import typed_int

LAST = -1
WEEKDAYS = ("MON", "TUE", "WED", "THU", "FRI", "SAT", "SUN")
ROOT_TYPES = ("DAILY", "WEEKLY", "MONTHLY", "ONCE", "EVENT")
RECURRING_ROOT_TYPES = ("DAILY", "WEEKLY", "MONTHLY")
CHILD_TYPES = ("AFTER_INTERVAL", "FIXED_DAY_IN_PERIOD")
FIXED_MODES = ("DAY_OF_MONTH", "WEEKDAY")
MAX_OFFSET_DAYS = 366
# How far ahead validation looks for the shortest period (covers every month length once).
HORIZON_DAYS = 400
JALALI_HORIZON_DAYS = 800
MAX_PERIODS = 400


class ScheduleErrors(Exception):
    """Field errors: ``{"field.path": ["message", …]}`` plus optional structured ``reasons``."""

    def __init__(self, errors: dict[str, list[str]], reasons: list[dict] | None = None) -> None:
        self.errors = errors
        self.reasons = reasons or []
        super().__init__(str(errors))


# --------------------------------------------------------------------------- parsing


def _time(value, field_name: str, errors: dict) -> time | None:
    if isinstance(value, time):
        return value
    try:
        hours, minutes = str(value).strip().split(":")
        return time(int(hours), int(minutes))
    except (ValueError, AttributeError):
        errors.setdefault(field_name, []).append("زمان باید به شکل HH:MM باشد.")
        return None


def _date(value, field_name: str, errors: dict) -> date | None:
    if value in (None, ""):
        return None
    if isinstance(value, date):
        return value
    try:
        return date.fromisoformat(str(value))
    except ValueError:
        errors.setdefault(field_name, []).append("تاریخ باید به شکل YYYY-MM-DD باشد.")
        return None


def _day_or_last(value, field_name: str, low: int, high: int, errors: dict) -> int | None:
    """Request strings "1".."high" or "LAST" → int (LAST = -1). Stored ints are accepted too."""
    if isinstance(value, bool):
        value = None
    if isinstance(value, int):
        if value == LAST or low <= value <= high:
            return value
    elif isinstance(value, str):
        text = value.strip().upper()
        if text == "LAST":
            return LAST
        number = typed_int(text)
        if number is not None and low <= number <= high:
            return number
    errors.setdefault(field_name, []).append(f'مقدار باید رشته‌ای از "{low}" تا "{high}" یا "LAST" باشد.')
    return None


def _weekday(value, field_name: str, errors: dict) -> int | None:
    text = str(value or "").strip().upper()
    if text in WEEKDAYS:
        return WEEKDAYS.index(text)
    errors.setdefault(field_name, []).append("روز هفته باید یکی از MON..SUN باشد.")
    return None


@dataclass(frozen=True)
class RootSchedule:
    type: str
    time: time | None = None
    weekdays: tuple[int, ...] = ()
    day: int | None = None  # MONTHLY: 1..31 or LAST
    start_date: date | None = None
    end_date: date | None = None
    at: datetime | None = None  # ONCE (aware)

    @property
    def recurring(self) -> bool:
        return self.type in RECURRING_ROOT_TYPES


@dataclass(frozen=True)
class FixedDay:
    mode: str
    day: int | None = None  # DAY_OF_MONTH: 1..31 or LAST
    week: int | None = None  # WEEKDAY: 1..4 or LAST; None = "this weekday" (weekly roots)
    weekday: int | None = None  # 0 = MON


@dataclass(frozen=True)
class ChildSchedule:
    type: str
    run_time: time
    offset_days: int | None = None
    fixed_day: FixedDay | None = None


def parse_root_schedule(data, prefix: str = "when") -> RootSchedule:
    if not isinstance(data, dict):
        raise ScheduleErrors({prefix: ["زمان‌بندی باید یک شیء باشد."]})
    errors: dict[str, list[str]] = {}
    kind = str(data.get("type") or "").upper()
    if kind not in ROOT_TYPES:
        raise ScheduleErrors({f"{prefix}.type": [f"نوع زمان‌بندی باید یکی از {', '.join(ROOT_TYPES)} باشد."]})
    if kind == "EVENT":
        return RootSchedule(type="EVENT")
    if kind == "ONCE":
        try:
            at = datetime.fromisoformat(str(data.get("at")))
        except ValueError:
            raise ScheduleErrors({f"{prefix}.at": ["زمان اجرا باید تاریخ‌وزمان ISO باشد."]}) from None
        return RootSchedule(type="ONCE", at=at)
    run_at = _time(data.get("time"), f"{prefix}.time", errors)
    weekdays: tuple[int, ...] = ()
    day = None
    if kind == "WEEKLY":
        raw = data.get("weekdays")
        if not isinstance(raw, list | tuple) or not raw:
            errors.setdefault(f"{prefix}.weekdays", []).append("دست‌کم یک روز هفته لازم است.")
        else:
            parsed = [_weekday(w, f"{prefix}.weekdays", errors) for w in raw]
            weekdays = tuple(sorted({w for w in parsed if w is not None}))
    if kind == "MONTHLY":
        day = _day_or_last(data.get("day"), f"{prefix}.day", 1, 31, errors)
    start = _date(data.get("start_date"), f"{prefix}.start_date", errors)
    end = _date(data.get("end_date"), f"{prefix}.end_date", errors)
    if start and end and end < start:
        errors.setdefault(f"{prefix}.end_date", []).append("تاریخ پایان پیش از تاریخ شروع است.")
    if errors:
        raise ScheduleErrors(errors)
    return RootSchedule(type=kind, time=run_at, weekdays=weekdays, day=day, start_date=start, end_date=end)


def parse_child_schedule(data, prefix: str = "inheritance.schedule") -> ChildSchedule:
    if not isinstance(data, dict):
        raise ScheduleErrors({prefix: ["زمان‌بندی دنباله لازم است."]})
    errors: dict[str, list[str]] = {}
    kind = str(data.get("type") or "").upper()
    if kind not in CHILD_TYPES:
        raise ScheduleErrors({f"{prefix}.type": [f"نوع زمان‌بندی باید یکی از {', '.join(CHILD_TYPES)} باشد."]})
    run_time = _time(data.get("run_time"), f"{prefix}.run_time", errors)
    if kind == "AFTER_INTERVAL":
        offset = data.get("offset_days")
        if isinstance(offset, bool) or not isinstance(offset, int) or not 1 <= offset <= MAX_OFFSET_DAYS:
            errors.setdefault(f"{prefix}.offset_days", []).append(
                f"فاصله باید عددی صحیح از ۱ تا {MAX_OFFSET_DAYS} روز باشد."
            )
            offset = None
        if errors:
            raise ScheduleErrors(errors)
        return ChildSchedule(type=kind, run_time=run_time, offset_days=offset)
    raw = data.get("fixed_day")
    fp = f"{prefix}.fixed_day"
    if not isinstance(raw, dict):
        errors.setdefault(fp, []).append("روز ثابت لازم است.")
        raise ScheduleErrors(errors)
    mode = str(raw.get("mode") or "").upper()
    fixed = None
    if mode == "DAY_OF_MONTH":
        day = _day_or_last(raw.get("day"), f"{fp}.day", 1, 31, errors)
        fixed = FixedDay(mode=mode, day=day)
    elif mode == "WEEKDAY":
        week = None
        if raw.get("week") not in (None, ""):
            week = _day_or_last(raw.get("week"), f"{fp}.week", 1, 4, errors)
        weekday = _weekday(raw.get("weekday"), f"{fp}.weekday", errors)
        fixed = FixedDay(mode=mode, week=week, weekday=weekday)
    else:
        errors.setdefault(f"{fp}.mode", []).append("حالت باید DAY_OF_MONTH یا WEEKDAY باشد.")
    if errors:
        raise ScheduleErrors(errors)
    return ChildSchedule(type=kind, run_time=run_time, fixed_day=fixed)


# --------------------------------------------------------------------------- storage / API forms


def _hhmm(value: time | None) -> str | None:
    return value.strftime("%H:%M") if value else None


def _num_out(value: int | None) -> str | None:
    if value is None:
        return None
    return "LAST" if value == LAST else str(value)


def dump_root_schedule(rs: RootSchedule) -> dict:
    """Storage form (ints, LAST = -1)."""
    if rs.type == "EVENT":
        return {"type": "EVENT"}
    if rs.type == "ONCE":
        return {"type": "ONCE", "at": rs.at.isoformat()}
    out: dict = {"type": rs.type, "time": _hhmm(rs.time)}
    if rs.type == "WEEKLY":
        out["weekdays"] = [WEEKDAYS[w] for w in rs.weekdays]
    if rs.type == "MONTHLY":
        out["day"] = rs.day
    if rs.start_date:
        out["start_date"] = rs.start_date.isoformat()
    if rs.end_date:
        out["end_date"] = rs.end_date.isoformat()
    return out


def dump_child_schedule(cs: ChildSchedule) -> dict:
    out: dict = {"type": cs.type, "run_time": _hhmm(cs.run_time)}
    if cs.type == "AFTER_INTERVAL":
        out["offset_days"] = cs.offset_days
    else:
        fd = cs.fixed_day
        if fd.mode == "DAY_OF_MONTH":
            out["fixed_day"] = {"mode": fd.mode, "day": fd.day}
        else:
            out["fixed_day"] = {"mode": fd.mode, "week": fd.week, "weekday": WEEKDAYS[fd.weekday]}
    return out


def api_root_schedule(stored: dict | None) -> dict | None:
    """Storage → response form (day as a string)."""
    if not stored:
        return None
    out = dict(stored)
    if "day" in out:
        out["day"] = _num_out(out["day"])
    return out


def api_child_schedule(stored: dict | None) -> dict | None:
    if not stored:
        return None
    out = dict(stored)
    if isinstance(out.get("fixed_day"), dict):
        fd = dict(out["fixed_day"])
        for key in ("day", "week"):
            if key in fd:
                fd[key] = _num_out(fd[key])
        out["fixed_day"] = fd
    return out


# --------------------------------------------------------------------------- calendar helpers


class JalaliZone(zoneinfo.ZoneInfo):
    """A workspace time zone whose months are Jalali: the month maths read ``calendar`` from ``tz``."""

    calendar = JALALI


def calendar_of(tz) -> str:
    return getattr(tz, "calendar", GREGORIAN)


def month_of(day: date, cal: str = GREGORIAN) -> tuple[int, int]:
    """(year, month) of a Gregorian date in the calendar."""
    if cal == JALALI:
        j = jdatetime.date.fromgregorian(date=day)
        return j.year, j.month
    return day.year, day.month


def days_in_month(year: int, month: int, cal: str = GREGORIAN) -> int:
    if cal == JALALI:  # 6 × 31, 5 × 30, Esfand 29 or 30 (leap years)
        if month <= 6:
            return 31
        if month <= 11:
            return 30
        return 30 if jdatetime.date(year, 1, 1).isleap() else 29
    return calendar.monthrange(year, month)[1]


def _gregorian(year: int, month: int, day: int, cal: str) -> date:
    return jdatetime.date(year, month, day).togregorian() if cal == JALALI else date(year, month, day)


def month_day(year: int, month: int, day: int, cal: str = GREGORIAN) -> date:
    """Day ``day`` (or LAST) of a month of the calendar, as a Gregorian date; past the month's end = its last day."""
    last = days_in_month(year, month, cal)
    return _gregorian(year, month, last if day == LAST or day > last else day, cal)


def nth_weekday(year: int, month: int, week: int, weekday: int, cal: str = GREGORIAN) -> date:
    """The 1st..4th (or LAST) given weekday of a month of the calendar (weeks 1..4 always exist)."""
    if week == LAST:
        last = month_day(year, month, LAST, cal)
        return last - timedelta(days=(last.weekday() - weekday) % 7)
    first = _gregorian(year, month, 1, cal)
    return first + timedelta(days=(weekday - first.weekday()) % 7 + 7 * (week - 1))


def _add_months(year: int, month: int, n: int) -> tuple[int, int]:
    index = year * 12 + (month - 1) + n
    return index // 12, index % 12 + 1


def local(dt: date, at: time, tz: zoneinfo.ZoneInfo) -> datetime:
    return datetime.combine(dt, at, tzinfo=tz)


# --------------------------------------------------------------------------- occurrences and periods


def _matches(rs: RootSchedule, day: date, cal: str = GREGORIAN) -> bool:
    if rs.start_date and day < rs.start_date:
        return False
    if rs.end_date and day > rs.end_date:
        return False
    if rs.type == "DAILY":
        return True
    if rs.type == "WEEKLY":
        return day.weekday() in rs.weekdays
    if rs.type == "MONTHLY":
        return day == month_day(*month_of(day, cal), rs.day, cal)
    return False


def root_occurrences(rs: RootSchedule, tz: zoneinfo.ZoneInfo, after: datetime) -> Iterator[datetime]:
    """Root run times at or after ``after`` (aware), in order. Stops at ``end_date``."""
    if rs.type == "ONCE":
        if rs.at and rs.at >= after:
            yield rs.at
        return
    if not rs.recurring:
        return
    day = after.astimezone(tz).date()
    cal = calendar_of(tz)
    if rs.start_date and day < rs.start_date:
        day = rs.start_date
    if rs.type == "MONTHLY":  # one day a month: month by month, not a calendar conversion per day
        year, month = month_of(day, cal)
        while True:
            candidate = month_day(year, month, rs.day, cal)
            if rs.end_date and candidate > rs.end_date:
                return
            if candidate >= day:
                at = local(candidate, rs.time, tz)
                if at >= after:
                    yield at
            year, month = _add_months(year, month, 1)
    while True:
        if rs.end_date and day > rs.end_date:
            return
        if _matches(rs, day, cal):
            at = local(day, rs.time, tz)
            if at >= after:
                yield at
        day += timedelta(days=1)


@dataclass(frozen=True)
class Period:
    start: datetime
    next_start: datetime | None  # None: the last occurrence (the schedule ends after it)

    @property
    def length(self) -> timedelta | None:
        return None if self.next_start is None else self.next_start - self.start


def root_periods(rs: RootSchedule, tz: zoneinfo.ZoneInfo, after: datetime, count: int) -> list[Period]:
    occurrences = root_occurrences(rs, tz, after)
    result: list[Period] = []
    current = next(occurrences, None)
    while current is not None and len(result) < count:
        following = next(occurrences, None)
        result.append(Period(current, following))
        current = following
    return result


def periods_within(rs: RootSchedule, tz: zoneinfo.ZoneInfo, after: datetime, days: int = HORIZON_DAYS) -> list[Period]:
    """Periods starting within ``days`` of ``after`` (at most MAX_PERIODS)."""
    horizon = after + timedelta(days=days)
    return [p for p in root_periods(rs, tz, after, MAX_PERIODS) if p.start < horizon]


# --------------------------------------------------------------------------- child planning


def _fits(candidate: datetime, source_at: datetime, next_root_at: datetime | None) -> bool:
    return candidate > source_at and (next_root_at is None or candidate < next_root_at)


def plan_child(
    cs: ChildSchedule, *, source_at: datetime, next_root_at: datetime | None, tz: zoneinfo.ZoneInfo
) -> datetime | None:
    """When a child runs in one period, or None when no time fits in the period."""
    source_day = source_at.astimezone(tz).date()
    if cs.type == "AFTER_INTERVAL":
        candidate = local(source_day + timedelta(days=cs.offset_days), cs.run_time, tz)
        return candidate if _fits(candidate, source_at, next_root_at) else None
    fd = cs.fixed_day
    if fd.mode == "WEEKDAY" and fd.week is None:
        for delta in range(0, 8):
            day = source_day + timedelta(days=delta)
            if day.weekday() == fd.weekday:
                candidate = local(day, cs.run_time, tz)
                if _fits(candidate, source_at, next_root_at):
                    return candidate
        return None
    # Calendar-month based: the first matching date after the source run, before the next root run.
    cal = calendar_of(tz)
    last_day = next_root_at.astimezone(tz).date() if next_root_at else source_day + timedelta(days=62)
    (first_year, first_month), (last_year, last_month) = month_of(source_day, cal), month_of(last_day, cal)
    months = (last_year - first_year) * 12 + last_month - first_month
    for n in range(0, months + 1):
        year, month = _add_months(first_year, first_month, n)
        if fd.mode == "DAY_OF_MONTH":
            day = month_day(year, month, fd.day, cal)
        else:
            day = nth_weekday(year, month, fd.week, fd.weekday, cal)
        candidate = local(day, cs.run_time, tz)
        if _fits(candidate, source_at, next_root_at):
            return candidate
    return None


def compatibility_errors(cs: ChildSchedule, rs: RootSchedule, prefix: str = "inheritance.schedule") -> dict:
    """Structural rules between a child schedule and its chain root's schedule."""
    if rs.type == "EVENT":
        return {"parent_campaign_id": ["منبع باید کمپینی با مخاطبان دوره‌ای باشد، نه رویدادمحور."]}
    if not rs.recurring:
        return {"parent_campaign_id": ["نوع زمان‌بندی ریشه برای زنجیره پشتیبانی نمی‌شود."]}
    if cs.type != "FIXED_DAY_IN_PERIOD":
        return {}
    fd = cs.fixed_day
    if rs.type == "DAILY":
        return {f"{prefix}.type": ["زیر ریشه روزانه فقط «پس از فاصله» ممکن است."]}
    if rs.type == "WEEKLY":
        if fd.mode == "DAY_OF_MONTH":
            return {f"{prefix}.fixed_day.mode": ["زیر ریشه هفتگی فقط روز هفته قابل انتخاب است."]}
        if fd.week is not None:
            return {f"{prefix}.fixed_day.week": ["زیر ریشه هفتگی شماره هفته انتخاب نمی‌شود؛ فقط روز هفته."]}
    if rs.type == "MONTHLY" and fd.mode == "WEEKDAY" and fd.week is None:
        return {f"{prefix}.fixed_day.week": ["زیر ریشه ماهانه شماره هفته (1..4 یا LAST) لازم است."]}
    return {}


@dataclass
class PlannedPeriod:
    period_start: datetime
    next_root_at: datetime | None
    planned_source_at: datetime | None
    planned_child_at: datetime | None

    @property
    def feasible(self) -> bool:
        return self.planned_child_at is not None


def plan_path(
    path: list[ChildSchedule], period: Period, tz: zoneinfo.ZoneInfo
) -> tuple[datetime | None, datetime | None]:
    """Plan a chain path (root's child first, the node last) in one period → (source_at, node_at)."""
    source_at: datetime | None = period.start
    node_at: datetime | None = period.start
    for cs in path:
        source_at = node_at
        if source_at is None:
            return None, None
        node_at = plan_child(cs, source_at=source_at, next_root_at=period.next_start, tz=tz)
    return source_at, node_at


def preview(
    rs: RootSchedule, path: list[ChildSchedule], tz: zoneinfo.ZoneInfo, after: datetime, count: int = 4
) -> list[PlannedPeriod]:
    result = []
    for period in root_periods(rs, tz, after, count):
        source_at, node_at = plan_path(path, period, tz)
        result.append(PlannedPeriod(period.start, period.next_start, source_at, node_at))
    return result


def feasibility_errors(
    rs: RootSchedule, path: list[ChildSchedule], tz: zoneinfo.ZoneInfo, after: datetime, prefix: str = "inheritance"
) -> ScheduleErrors | None:
    """The path's last child must fit every period of the horizon; report the shortest failing period."""
    failing: list[tuple[Period, datetime | None, datetime | None]] = []
    # Jalali: two Esfands are in the horizon, so a 29-day one always is (leap years are never consecutive).
    days = JALALI_HORIZON_DAYS if calendar_of(tz) == JALALI else HORIZON_DAYS
    for period in periods_within(rs, tz, after, days):
        source_at, node_at = plan_path(path, period, tz)
        if node_at is None:
            failing.append((period, source_at, node_at))
    if not failing:
        return None
    period, source_at, _ = min(failing, key=lambda f: (f[0].length or timedelta.max, f[0].start))
    node = path[-1]
    detail = {
        "period_start": period.start.isoformat(),
        "next_root_at": period.next_start.isoformat() if period.next_start else None,
        "planned_source_at": source_at.isoformat() if source_at else None,
        "period_days": round(period.length.total_seconds() / 86400, 2) if period.length else None,
    }
    if source_at is None:
        code, message = "SOURCE_NOT_FEASIBLE", "منبع این کمپین در این دوره زمان اجرای معتبری ندارد."
        field_name = "parent_campaign_id"
    elif node.type == "AFTER_INTERVAL":
        source_day = source_at.astimezone(tz).date()
        offending = local(source_day + timedelta(days=node.offset_days), node.run_time, tz)
        detail["planned_child_at"] = offending.isoformat()
        code = "AFTER_INTERVAL_LONGER_THAN_PERIOD"
        message = (
            f"فاصله {node.offset_days} روزه از کوتاه‌ترین دوره ریشه بلندتر است: دوره {show_time(period.start, tz)}"
            f" تا {show_time(period.next_start, tz)}، زمان محاسبه‌شده {show_time(offending, tz)}."
        )
        field_name = f"{prefix}.schedule.offset_days"
    else:
        code = "FIXED_DAY_OUTSIDE_PERIOD"
        until = show_time(period.next_start, tz, with_time=False) if period.next_start else "پایان زمان‌بندی"
        message = f"روز ثابت در دوره {show_time(period.start, tz, with_time=False)} تا {until} جای نمی‌گیرد."
        field_name = f"{prefix}.schedule.fixed_day"
    return ScheduleErrors({field_name: [message]}, reasons=[{"code": code, "field": field_name, **detail}])


def show_time(moment: datetime, tz, *, with_time: bool = True) -> str:
    """A time in messages: "1405/01/01 09:00" in a Jalali workspace, "2026-03-21 09:00" otherwise."""
    local_moment = moment.astimezone(tz)
    if calendar_of(tz) == JALALI:
        shown = jdatetime.datetime.fromgregorian(datetime=local_moment.replace(tzinfo=None))
        return shown.strftime("%Y/%m/%d %H:%M" if with_time else "%Y/%m/%d")
    return local_moment.strftime("%Y-%m-%d %H:%M" if with_time else "%Y-%m-%d")


def zone(name: str | None, cal: str = GREGORIAN) -> zoneinfo.ZoneInfo:
    """The time zone carrying the calendar its months are counted in."""
    cls = JalaliZone if cal == JALALI else zoneinfo.ZoneInfo
    try:
        return cls(name or "UTC")
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        return cls("UTC")


def workspace_zone(workspace) -> zoneinfo.ZoneInfo:
    return zone(workspace.time_zone, workspace_calendar(workspace))


__all__ = [
    "CALENDAR_SETTING",
    "GREGORIAN",
    "JALALI",
    "LAST",
    "WEEKDAYS",
    "ChildSchedule",
    "FixedDay",
    "Period",
    "PlannedPeriod",
    "RootSchedule",
    "ScheduleErrors",
    "api_child_schedule",
    "api_root_schedule",
    "compatibility_errors",
    "dump_child_schedule",
    "dump_root_schedule",
    "feasibility_errors",
    "month_day",
    "nth_weekday",
    "parse_child_schedule",
    "parse_root_schedule",
    "plan_child",
    "plan_path",
    "preview",
    "root_occurrences",
    "root_periods",
    "workspace_calendar",
    "workspace_zone",
    "zone",
]
