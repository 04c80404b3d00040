"""Schedule maths in a Jalali workspace: month days count in the Jalali month (29/30-day Esfand, LAST),
property-tested over several Jalali years; a Gregorian workspace keeps Gregorian months."""

from datetime import datetime, time, timedelta

import jdatetime
import pytest
import time_machine
from django.test import TestCase
from hypothesis import given, settings
from hypothesis import strategies as st

from campaigns.chains import schedule as sched
from campaigns.chains.models import ChainNode
from campaigns.chains.run_models import CampaignRun
from campaigns.chains.services.approval import campaign_submit, package_approve
from campaigns.models import Workspace

from ..conftest import api_client_for, make_actor
from .conftest import ACTION, GOAL, audience_list, make_group, sms_ready
from .runs_helpers import root_run, tick

TEHRAN = "Asia/Tehran"
JZ = sched.zone(TEHRAN, sched.JALALI)
GZ = sched.zone(TEHRAN)
YEARS = st.integers(min_value=1401, max_value=1408)  # leap Esfand in 1403 and 1407 (30 days), else 29
DAYS = st.one_of(st.integers(min_value=1, max_value=31), st.just(sched.LAST))


def jalali(moment: datetime) -> jdatetime.date:
    return jdatetime.date.fromgregorian(date=moment.astimezone(JZ).date())


def esfand_days(year: int) -> int:
    return 30 if jdatetime.date(year, 1, 1).isleap() else 29


def month_length(year: int, month: int) -> int:
    return 31 if month <= 6 else 30 if month <= 11 else esfand_days(year)


def monthly(day) -> sched.RootSchedule:
    return sched.parse_root_schedule(
        {"type": "MONTHLY", "day": "LAST" if day == sched.LAST else str(day), "time": "09:00"}
    )


def start_of(year: int, month: int) -> datetime:
    return sched.local(jdatetime.date(year, month, 1).togregorian(), time(0, 0), JZ)


def expected_day(year: int, month: int, day: int) -> int:
    length = month_length(year, month)
    return length if day == sched.LAST else min(day, length)


@settings(max_examples=60, deadline=None)
@given(year=YEARS, day=DAYS)
def test_monthly_root_runs_once_a_jalali_month_on_its_day_or_the_months_last(year, day):
    occurrences = sched.root_occurrences(monthly(day), JZ, start_of(year, 1))
    for month in range(1, 13):
        at = next(occurrences)
        shown = jalali(at)
        assert (shown.year, shown.month, shown.day) == (year, month, expected_day(year, month, day))
        assert at.astimezone(JZ).time() == time(9, 0)


@settings(max_examples=60, deadline=None)
@given(year=YEARS, month=st.integers(min_value=1, max_value=12), root_day=st.integers(1, 28), day=DAYS)
def test_fixed_day_of_month_child_lands_on_its_jalali_day_inside_the_period(year, month, root_day, day):
    """Under a monthly root on day 1, "day N" of the child is day N of the period's Jalali month."""
    child = sched.parse_child_schedule(
        {
            "type": "FIXED_DAY_IN_PERIOD",
            "run_time": "10:00",
            "fixed_day": {"mode": "DAY_OF_MONTH", "day": "LAST" if day == sched.LAST else str(day)},
        }
    )
    (period,) = sched.root_periods(monthly(1), JZ, start_of(year, month), 1)
    planned = sched.plan_child(child, source_at=period.start, next_root_at=period.next_start, tz=JZ)
    assert planned is not None and period.start < planned < period.next_start
    shown = jalali(planned)
    assert (shown.year, shown.month, shown.day) == (year, month, expected_day(year, month, day))


@settings(max_examples=60, deadline=None)
@given(
    year=YEARS,
    month=st.integers(min_value=1, max_value=12),
    week=st.one_of(st.integers(1, 4), st.just(sched.LAST)),
    weekday=st.integers(0, 6),
)
def test_nth_weekday_is_in_the_jalali_month(year, month, week, weekday):
    found = sched.nth_weekday(year, month, week, weekday, sched.JALALI)
    shown = jdatetime.date.fromgregorian(date=found)
    assert found.weekday() == weekday and (shown.year, shown.month) == (year, month)
    if week == sched.LAST:
        assert shown.day + 7 > month_length(year, month)
    else:
        assert (shown.day - 1) // 7 + 1 == week


def test_every_month_day_1_is_1_farvardin_1_ordibehesht():
    first = sched.root_occurrences(monthly(1), JZ, sched.local(jdatetime.date(1404, 12, 20).togregorian(), time(0), JZ))
    assert [str(jalali(next(first))) for _ in range(3)] == ["1405-01-01", "1405-02-01", "1405-03-01"]


@pytest.mark.parametrize("year, last", [(1403, 30), (1404, 29)])
def test_last_of_esfand_follows_the_leap_year(year, last):
    at = next(sched.root_occurrences(monthly(sched.LAST), JZ, start_of(year, 12)))
    assert str(jalali(at)) == f"{year}-12-{last}"


def test_a_gregorian_workspace_keeps_gregorian_months():
    at = next(sched.root_occurrences(monthly(1), GZ, sched.local(datetime(2026, 3, 5).date(), time(0), GZ)))
    assert at.date().isoformat() == "2026-04-01"


def test_an_interval_longer_than_the_29_day_esfand_names_that_period_in_jalali():
    child = sched.parse_child_schedule({"type": "AFTER_INTERVAL", "offset_days": 29, "run_time": "09:00"})
    error = sched.feasibility_errors(monthly(1), [child], JZ, start_of(1404, 2))
    assert error is not None
    (reason,) = error.reasons
    assert reason["code"] == "AFTER_INTERVAL_LONGER_THAN_PERIOD" and reason["period_days"] == 29
    (message,) = error.errors["inheritance.schedule.offset_days"]
    assert "1404/12/01 09:00" in message and "1405/01/01 09:00" in message
    # the same child is fine in a Gregorian workspace only if no month is shorter: February fails there
    assert sched.feasibility_errors(monthly(1), [child], GZ, start_of(1404, 2) + timedelta(days=1)) is not None


def test_workspace_zone_reads_the_calendar_setting():
    class Workspace:
        time_zone = TEHRAN
        settings = {"calendar": "jalali"}

    assert sched.calendar_of(sched.workspace_zone(Workspace)) == sched.JALALI
    Workspace.settings = {}
    assert sched.calendar_of(sched.workspace_zone(Workspace)) == sched.GREGORIAN


@pytest.mark.django_db
def test_a_jalali_workspace_previews_and_runs_on_jalali_month_days(owner):
    workspace = Workspace.objects.get(memberships__user=owner)
    workspace.settings = {"calendar": "jalali"}
    workspace.save()
    api = api_client_for(owner, workspace)
    actor = make_actor(workspace, user=owner)
    sms_ready(workspace)  # the members send SMS: Approve needs a usable account
    fixed = {"type": "FIXED_DAY_IN_PERIOD", "run_time": "10:00", "fixed_day": {"mode": "DAY_OF_MONTH", "day": "LAST"}}
    with time_machine.travel(datetime(2026, 2, 25, 12, 0, tzinfo=GZ), tick=False):  # 1404/12/06
        root = api.post(
            "/api/v1/campaign",
            {
                "name": "ماهانه",
                "campaign_group_id": make_group(workspace).id,
                "when": {"type": "MONTHLY", "day": "1", "time": "09:00"},
                "goal": GOAL,
                "chain_action": ACTION,
                "source_target_list_id": audience_list(workspace).id,
            },
            format="json",
        ).json()
        preview = api.post(
            "/api/v1/campaign/inheritance/preview",
            {"source_campaign_id": root["id"], "schedule": fixed, "periods": 2},
            format="json",
        ).json()
        assert preview["calendar"] == "jalali" and preview["errors"] == {}
        assert [p["shown"]["period_start"] for p in preview["periods"]] == ["1405/01/01 09:00", "1405/02/01 09:00"]
        assert [p["shown"]["planned_child_at"] for p in preview["periods"]] == ["1405/01/31 10:00", "1405/02/31 10:00"]
        body = {
            "name": "آخر ماه",
            "parent_campaign_id": root["id"],
            "expected_chain_revision": 1,
            "inheritance": {"type": "NOT_CONVERTED", "schedule": fixed},
            "chain_action": ACTION,
        }
        child = api.post("/api/v1/campaign", body, format="json")
        assert child.status_code == 201, child.content
        _, package = campaign_submit(actor=actor, campaign_id=root["id"], expected_chain_revision=2)
        with TestCase.captureOnCommitCallbacks(execute=True):
            package_approve(actor=actor, package_id=package.id, expected_submitted_revision=package.submitted_revision)
    farvardin_1 = sched.local(jdatetime.date(1405, 1, 1).togregorian(), time(9, 0), JZ)
    first = root_run(ChainNode.objects.get(pk=root["id"]), farvardin_1)  # 1 Farvardin, not 1 March
    tick(farvardin_1 + timedelta(minutes=1))  # the root run starts sending
    tick(farvardin_1 + timedelta(minutes=6))  # the child is planned from its source's start
    (child_run,) = CampaignRun.objects.filter(campaign_id=child.json()["id"], period_key=first.period_key)
    assert sched.show_time(child_run.planned_at, JZ) == "1405/01/31 10:00"
    # the run API writes the same times in the workspace's calendar next to the ISO ones
    listed = api.get(f"/api/v1/campaign/{child.json()['id']}/runs").json()["results"]
    shown = next(r for r in listed if r["id"] == child_run.id)["shown"]
    assert (shown["planned_at"], shown["scheduled_at"], shown["completed_at"]) == (
        "1405/01/31 10:00",
        "1405/01/31 10:00",
        None,
    )
    root_shown = api.get(f"/api/v1/campaign-runs/{first.id}").json()["shown"]
    assert (root_shown["planned_at"], root_shown["started_at"]) == ("1405/01/01 09:00", "1405/01/01 09:01")


def test_new_workspaces_count_months_in_the_jalali_calendar(db):
    from campaigns.services.workspaces import workspace_create

    fresh = workspace_create(name="تازه", slug="fresh-calendar")
    assert fresh.settings[sched.CALENDAR_SETTING] == sched.JALALI
    assert sched.calendar_of(sched.workspace_zone(fresh)) == sched.JALALI
