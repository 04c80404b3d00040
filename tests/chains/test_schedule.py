"""The pure schedule-maths module: month lengths, LAST, weekly roots, periods, time zones."""

import zoneinfo
from datetime import date, datetime, time

import pytest

from campaigns.chains import schedule as s

TEHRAN = zoneinfo.ZoneInfo("Asia/Tehran")
HCM = zoneinfo.ZoneInfo("Asia/Ho_Chi_Minh")
UTC = zoneinfo.ZoneInfo("UTC")


def root(**data):
    return s.parse_root_schedule(data)


def child(**data):
    return s.parse_child_schedule(data)


def at(y, m, d, hh=9, mm=0, tz=TEHRAN):
    return datetime(y, m, d, hh, mm, tzinfo=tz)


class TestParsing:
    def test_request_strings_are_converted(self):
        assert root(type="MONTHLY", day="31", time="09:00").day == 31
        assert root(type="MONTHLY", day="LAST", time="09:00").day == s.LAST
        assert root(type="monthly", day="last", time="9:05").time == time(9, 5)
        fixed = child(
            type="FIXED_DAY_IN_PERIOD",
            run_time="10:00",
            fixed_day={"mode": "WEEKDAY", "week": "LAST", "weekday": "FRI"},
        )
        assert (fixed.fixed_day.week, fixed.fixed_day.weekday) == (s.LAST, 4)

    @pytest.mark.parametrize("day", ["0", "32", "", "1.5", "first", None, True])
    def test_invalid_day_of_month(self, day):
        with pytest.raises(s.ScheduleErrors) as exc:
            root(type="MONTHLY", day=day, time="09:00")
        assert "when.day" in exc.value.errors

    @pytest.mark.parametrize("week", ["0", "5", "x"])
    def test_invalid_week(self, week):
        with pytest.raises(s.ScheduleErrors) as exc:
            child(
                type="FIXED_DAY_IN_PERIOD",
                run_time="09:00",
                fixed_day={"mode": "WEEKDAY", "week": week, "weekday": "MON"},
            )
        assert "inheritance.schedule.fixed_day.week" in exc.value.errors

    @pytest.mark.parametrize("offset", [0, -1, "2", 1.5, None, 367])
    def test_offset_days_at_least_one(self, offset):
        with pytest.raises(s.ScheduleErrors) as exc:
            child(type="AFTER_INTERVAL", offset_days=offset, run_time="09:00")
        assert "inheritance.schedule.offset_days" in exc.value.errors

    def test_bad_time_and_types(self):
        with pytest.raises(s.ScheduleErrors):
            root(type="DAILY", time="25:00")
        with pytest.raises(s.ScheduleErrors):
            root(type="HOURLY", time="09:00")
        with pytest.raises(s.ScheduleErrors):
            root(type="WEEKLY", weekdays=[], time="09:00")
        with pytest.raises(s.ScheduleErrors):
            child(type="FIXED_DAY_IN_PERIOD", run_time="09:00", fixed_day={"mode": "YEARLY"})

    def test_round_trip_storage_and_api_forms(self):
        stored = s.dump_root_schedule(root(type="MONTHLY", day="LAST", time="09:00"))
        assert stored["day"] == -1
        assert s.api_root_schedule(stored)["day"] == "LAST"
        cs = child(type="FIXED_DAY_IN_PERIOD", run_time="08:30", fixed_day={"mode": "DAY_OF_MONTH", "day": "31"})
        stored_child = s.dump_child_schedule(cs)
        assert stored_child["fixed_day"]["day"] == 31
        assert s.api_child_schedule(stored_child)["fixed_day"]["day"] == "31"
        assert s.parse_child_schedule(stored_child) == cs  # stored ints parse back


class TestCalendar:
    @pytest.mark.parametrize(
        "year,month,day,expected",
        [
            (2026, 1, 31, date(2026, 1, 31)),
            (2026, 2, 31, date(2026, 2, 28)),  # 31 in February → last day (LAST semantics)
            (2028, 2, 31, date(2028, 2, 29)),  # leap year
            (2026, 4, 31, date(2026, 4, 30)),
            (2026, 2, 29, date(2026, 2, 28)),
            (2026, 2, s.LAST, date(2026, 2, 28)),
            (2026, 12, s.LAST, date(2026, 12, 31)),
            (2026, 3, 15, date(2026, 3, 15)),
        ],
    )
    def test_month_day(self, year, month, day, expected):
        assert s.month_day(year, month, day) == expected

    @pytest.mark.parametrize(
        "year,month,week,weekday,expected",
        [
            (2026, 11, 1, 0, date(2026, 11, 2)),  # first Monday
            (2026, 11, 4, 0, date(2026, 11, 23)),
            (2026, 11, s.LAST, 0, date(2026, 11, 30)),  # last Monday is the 5th one
            (2026, 2, s.LAST, 5, date(2026, 2, 28)),  # last Saturday on the month's last day
            (2026, 2, s.LAST, 6, date(2026, 2, 22)),
            (2026, 1, 1, 3, date(2026, 1, 1)),  # the 1st is itself a Thursday
        ],
    )
    def test_nth_weekday(self, year, month, week, weekday, expected):
        assert s.nth_weekday(year, month, week, weekday) == expected


class TestOccurrences:
    def test_monthly_31_runs_on_each_months_last_day(self):
        rs = root(type="MONTHLY", day="31", time="09:00")
        got = [o.date() for o in list(_take(s.root_occurrences(rs, TEHRAN, at(2026, 1, 1)), 4))]
        assert got == [date(2026, 1, 31), date(2026, 2, 28), date(2026, 3, 31), date(2026, 4, 30)]

    def test_weekly_on_weekdays(self):
        rs = root(type="WEEKLY", weekdays=["MON", "THU"], time="18:00")
        got = list(_take(s.root_occurrences(rs, TEHRAN, at(2026, 11, 30, 19)), 3))  # Monday 19:00: today's passed
        assert [o.date() for o in got] == [date(2026, 12, 3), date(2026, 12, 7), date(2026, 12, 10)]
        assert all(o.hour == 18 and o.tzinfo == TEHRAN for o in got)

    def test_daily_with_bounds(self):
        rs = root(type="DAILY", time="09:00", start_date="2026-12-01", end_date="2026-12-03")
        got = list(s.root_occurrences(rs, TEHRAN, at(2026, 11, 1)))
        assert [o.day for o in got] == [1, 2, 3]

    def test_event_and_once_do_not_recur(self):
        assert list(s.root_occurrences(root(type="EVENT"), TEHRAN, at(2026, 1, 1))) == []
        once = root(type="ONCE", at="2026-05-01T09:00:00+03:30")
        assert len(list(s.root_occurrences(once, TEHRAN, at(2026, 1, 1)))) == 1

    def test_workspace_time_zone_not_the_servers(self):
        """09:00 in Ho Chi Minh is 02:00 UTC, whatever TIME_ZONE/the host say."""
        rs = root(type="DAILY", time="09:00")
        first = next(s.root_occurrences(rs, HCM, datetime(2026, 6, 1, 0, 0, tzinfo=UTC)))
        assert first.astimezone(UTC) == datetime(2026, 6, 1, 2, 0, tzinfo=UTC)
        # Late in the UTC day it is already the next local day in Tehran.
        first_tehran = next(s.root_occurrences(rs, TEHRAN, datetime(2026, 6, 1, 22, 0, tzinfo=UTC)))
        assert first_tehran.date() == date(2026, 6, 2)

    def test_periods(self):
        rs = root(type="MONTHLY", day="1", time="09:00")
        periods = s.root_periods(rs, TEHRAN, at(2026, 1, 1, 8), 3)
        assert [(p.start.date(), p.next_start.date()) for p in periods] == [
            (date(2026, 1, 1), date(2026, 2, 1)),
            (date(2026, 2, 1), date(2026, 3, 1)),
            (date(2026, 3, 1), date(2026, 4, 1)),
        ]
        last = s.root_periods(root(type="DAILY", time="09:00", end_date="2026-01-02"), TEHRAN, at(2026, 1, 1, 8), 5)
        assert last[-1].next_start is None and len(last) == 2


class TestPlanChild:
    def test_after_interval(self):
        cs = child(type="AFTER_INTERVAL", offset_days=2, run_time="10:00")
        planned = s.plan_child(cs, source_at=at(2026, 1, 1), next_root_at=at(2026, 2, 1), tz=TEHRAN)
        assert planned == at(2026, 1, 3, 10)

    def test_after_interval_past_next_root_is_infeasible(self):
        cs = child(type="AFTER_INTERVAL", offset_days=7, run_time="09:00")
        assert s.plan_child(cs, source_at=at(2026, 1, 5), next_root_at=at(2026, 1, 12), tz=TEHRAN) is None
        # same day, earlier than the next root run: fits
        cs = child(type="AFTER_INTERVAL", offset_days=7, run_time="08:00")
        assert s.plan_child(cs, source_at=at(2026, 1, 5), next_root_at=at(2026, 1, 12), tz=TEHRAN) == at(2026, 1, 12, 8)

    def test_fixed_day_of_month_last_in_february(self):
        cs = child(type="FIXED_DAY_IN_PERIOD", run_time="09:00", fixed_day={"mode": "DAY_OF_MONTH", "day": "31"})
        planned = s.plan_child(cs, source_at=at(2026, 2, 1), next_root_at=at(2026, 3, 1), tz=TEHRAN)
        assert planned == at(2026, 2, 28)

    def test_fixed_day_before_source_moves_to_next_month_in_period(self):
        cs = child(type="FIXED_DAY_IN_PERIOD", run_time="09:00", fixed_day={"mode": "DAY_OF_MONTH", "day": "10"})
        planned = s.plan_child(cs, source_at=at(2026, 1, 15), next_root_at=at(2026, 2, 15), tz=TEHRAN)
        assert planned == at(2026, 2, 10)

    def test_fixed_last_weekday(self):
        cs = child(
            type="FIXED_DAY_IN_PERIOD",
            run_time="09:00",
            fixed_day={"mode": "WEEKDAY", "week": "LAST", "weekday": "MON"},
        )
        planned = s.plan_child(cs, source_at=at(2026, 11, 1), next_root_at=at(2026, 12, 1), tz=TEHRAN)
        assert planned == at(2026, 11, 30)

    def test_weekly_root_weekday_child(self):
        cs = child(type="FIXED_DAY_IN_PERIOD", run_time="09:00", fixed_day={"mode": "WEEKDAY", "weekday": "THU"})
        monday = at(2026, 11, 30)
        assert s.plan_child(cs, source_at=monday, next_root_at=at(2026, 12, 7), tz=TEHRAN) == at(2026, 12, 3)
        # Thursday run before the Monday+Wednesday root's next run? Wednesday comes first → infeasible
        assert s.plan_child(cs, source_at=monday, next_root_at=at(2026, 12, 2), tz=TEHRAN) is None

    def test_chain_path_plans_from_the_source(self):
        b = child(type="AFTER_INTERVAL", offset_days=2, run_time="09:00")
        d = child(type="AFTER_INTERVAL", offset_days=3, run_time="09:00")
        period = s.Period(at(2026, 1, 1), at(2026, 2, 1))
        assert s.plan_path([b, d], period, TEHRAN) == (at(2026, 1, 3), at(2026, 1, 6))


class TestFeasibility:
    def test_after_interval_longer_than_shortest_period_names_february(self):
        rs = root(type="MONTHLY", day="1", time="09:00")
        cs = child(type="AFTER_INTERVAL", offset_days=29, run_time="09:00")
        error = s.feasibility_errors(rs, [cs], TEHRAN, at(2026, 1, 1, 8))
        assert error is not None
        reason = error.reasons[0]
        assert reason["code"] == "AFTER_INTERVAL_LONGER_THAN_PERIOD"
        assert reason["period_start"].startswith("2026-02-01")
        assert reason["next_root_at"].startswith("2026-03-01")
        assert reason["planned_child_at"].startswith("2026-03-02")
        assert reason["period_days"] == 28
        assert "inheritance.schedule.offset_days" in error.errors

    def test_27_days_fits_every_month(self):
        rs = root(type="MONTHLY", day="1", time="09:00")
        cs = child(type="AFTER_INTERVAL", offset_days=27, run_time="09:00")
        assert s.feasibility_errors(rs, [cs], TEHRAN, at(2026, 1, 1, 8)) is None

    def test_weekly_root_with_two_weekdays_shortest_gap(self):
        rs = root(type="WEEKLY", weekdays=["MON", "WED"], time="09:00")
        assert (
            s.feasibility_errors(
                rs, [child(type="AFTER_INTERVAL", offset_days=1, run_time="09:00")], TEHRAN, at(2026, 11, 30, 8)
            )
            is None
        )
        error = s.feasibility_errors(
            rs, [child(type="AFTER_INTERVAL", offset_days=2, run_time="09:00")], TEHRAN, at(2026, 11, 30, 8)
        )
        assert error.reasons[0]["period_days"] == 2

    def test_daily_root(self):
        rs = root(type="DAILY", time="09:00")
        assert (
            s.feasibility_errors(
                rs, [child(type="AFTER_INTERVAL", offset_days=1, run_time="08:00")], TEHRAN, at(2026, 1, 1)
            )
            is None
        )
        assert (
            s.feasibility_errors(
                rs, [child(type="AFTER_INTERVAL", offset_days=1, run_time="09:00")], TEHRAN, at(2026, 1, 1)
            )
            is not None
        )

    def test_compatibility(self):
        weekly = root(type="WEEKLY", weekdays=["MON"], time="09:00")
        dom = child(type="FIXED_DAY_IN_PERIOD", run_time="09:00", fixed_day={"mode": "DAY_OF_MONTH", "day": "5"})
        assert "inheritance.schedule.fixed_day.mode" in s.compatibility_errors(dom, weekly)
        nth = child(
            type="FIXED_DAY_IN_PERIOD", run_time="09:00", fixed_day={"mode": "WEEKDAY", "week": "2", "weekday": "MON"}
        )
        assert "inheritance.schedule.fixed_day.week" in s.compatibility_errors(nth, weekly)
        plain = child(type="FIXED_DAY_IN_PERIOD", run_time="09:00", fixed_day={"mode": "WEEKDAY", "weekday": "MON"})
        assert s.compatibility_errors(plain, weekly) == {}
        monthly = root(type="MONTHLY", day="1", time="09:00")
        assert "inheritance.schedule.fixed_day.week" in s.compatibility_errors(plain, monthly)
        assert "inheritance.schedule.type" in s.compatibility_errors(dom, root(type="DAILY", time="09:00"))
        assert "parent_campaign_id" in s.compatibility_errors(dom, root(type="EVENT"))
        assert "parent_campaign_id" in s.compatibility_errors(dom, root(type="ONCE", at="2026-01-01T00:00:00+00:00"))

    def test_preview_four_periods(self):
        rs = root(type="MONTHLY", day="LAST", time="09:00")
        cs = child(type="AFTER_INTERVAL", offset_days=2, run_time="10:00")
        planned = s.preview(rs, [cs], TEHRAN, at(2026, 1, 1), 4)
        assert len(planned) == 4
        assert planned[0].period_start == at(2026, 1, 31)
        assert planned[0].planned_child_at == at(2026, 2, 2, 10)
        assert planned[1].period_start == at(2026, 2, 28)
        assert all(p.feasible for p in planned)


def _take(iterator, n):
    for _, item in zip(range(n), iterator, strict=False):
        yield item


def _day_by_day(rs, tz, after, count):
    """The definition: every day from ``after`` on that the schedule matches (what the month walk must equal)."""
    found, day, cal = [], after.astimezone(tz).date(), s.calendar_of(tz)
    if rs.start_date and day < rs.start_date:
        day = rs.start_date
    while len(found) < count and (rs.end_date is None or day <= rs.end_date):
        if s._matches(rs, day, cal) and s.local(day, rs.time, tz) >= after:
            found.append(s.local(day, rs.time, tz))
        day = date.fromordinal(day.toordinal() + 1)
    return found


@pytest.mark.parametrize("zone", [TEHRAN, s.JalaliZone("Asia/Tehran")], ids=["gregorian", "jalali"])
@pytest.mark.parametrize("day", [1, 15, 29, 30, 31, s.LAST])
@pytest.mark.parametrize(
    "bounds",
    [(None, None), (date(2026, 3, 10), None), (date(2025, 12, 31), date(2027, 2, 28)), (None, date(2026, 8, 1))],
)
def test_monthly_occurrences_walk_months_and_give_what_each_day_would(zone, day, bounds):
    """A monthly root is one day a month: the occurrences are found month by month (no calendar conversion per
    day) and are exactly the days the day-by-day definition finds, in both calendars, with start and end dates."""
    rs = s.RootSchedule(type="MONTHLY", time=time(9, 0), day=day, start_date=bounds[0], end_date=bounds[1])
    for after in (at(2026, 1, 31, 10), at(2026, 2, 28, 8), at(2026, 3, 20, 9), at(2025, 12, 31, 23, 59)):
        walked = []
        for moment in s.root_occurrences(rs, zone, after):
            walked.append(moment)
            if len(walked) == 30:
                break
        assert walked == _day_by_day(rs, zone, after, 30)
