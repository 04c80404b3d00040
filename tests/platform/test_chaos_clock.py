"""The chaos run's calendar clock (tests/platform/chaos/clock.py) and the window check that reads it."""

import itertools
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from django.utils import timezone

from tests.platform.chaos import clock as chaos_clock
from tests.platform.chaos.checks import in_window
from tests.platform.chaos.workload import daily_window

TEHRAN = ZoneInfo("Asia/Tehran")
START = datetime(2026, 12, 1, 17, 0, tzinfo=UTC).timestamp()  # a Tuesday


def local(clock, real: float) -> datetime:
    return clock.at(real).astimezone(TEHRAN)


def test_a_thirty_minute_run_lives_every_opening_and_closing_of_six_days_and_jumps_between():
    clock = chaos_clock.Clock(chaos_clock.plan(start=START, minutes=30, lead=90))
    assert clock.segment == 150 and len(clock.stretches) == 13
    first = local(clock, START + 90 + 75)  # the lead, then half a stretch: the first opening
    assert (first.strftime("%a %H:%M:%S"), first.date().isoformat()) == ("Mon 09:00:00", "2026-12-07")
    assert local(clock, START + 90 + 150 + 75).strftime("%a %H:%M:%S") == "Mon 12:00:00"
    assert local(clock, START + 90 + 2 * 150 + 75).strftime("%a %H:%M:%S") == "Tue 09:00:00"
    last = local(clock, START + 90 + 12 * 150 + 75)
    assert last.strftime("%a %H:%M:%S") == "Sun 09:00:00"
    # Never backwards, real pace inside a stretch, jumps of hours between stretches; real pace after the last.
    moments = [START + n * 0.5 for n in range(int((90 + 13 * 150 + 300) / 0.5))]
    steps = [clock.fast(b) - clock.fast(a) for a, b in itertools.pairwise(moments)]
    assert min(steps) >= 0.5 - 1e-6
    assert sum(1 for s in steps if s > 3600) == 12
    assert clock.fast(START + 5000) - clock.fast(START + 4000) == 1000


def test_real_maps_the_clock_back_and_a_moment_jumped_over_to_the_jump():
    clock = chaos_clock.Clock(chaos_clock.plan(start=START, minutes=3, lead=60))
    for real in (START, START + 30, START + 61, START + 100, START + 400):
        assert abs(clock.real(clock.fast(real)) - real) < 1e-6
    jump = clock.stretches[1][0]
    skipped = clock.fast(jump - 0.001) + 3600  # an hour inside the gap before the second stretch
    assert abs(clock.real(skipped) - jump) < 1e-6


def test_the_window_check_reads_the_daily_window_in_the_workspace_zone_with_a_second_of_grace():
    window = daily_window()
    day = datetime(2026, 12, 7, tzinfo=TEHRAN)
    assert not in_window(window, day + timedelta(hours=8, minutes=59, seconds=59))
    assert in_window(window, day + timedelta(hours=9))
    assert in_window(window, day + timedelta(hours=11, minutes=59, seconds=59))
    assert in_window(window, day + timedelta(hours=12, seconds=0.5))  # the guard ran a moment before
    assert not in_window(window, day + timedelta(hours=12, seconds=2))


def test_installed_the_clock_is_what_the_platform_reads(monkeypatch):
    spec = chaos_clock.plan(start=datetime.now(UTC).timestamp(), minutes=3)
    monkeypatch.setenv(chaos_clock.ENV, chaos_clock.Clock(spec).to_env())
    monkeypatch.setattr(timezone, "now", timezone.now)  # restored after the test
    clock = chaos_clock.install()
    assert timezone.now() > datetime.now(UTC) + timedelta(days=1)
    assert abs((timezone.now() - clock.now()).total_seconds()) < 1


def test_a_message_is_counted_on_the_attempt_the_platform_counted_for_its_local_id():
    """A step's attempts share one local id: the message belongs to the accepted one (its request day is the
    day charged), never to an earlier failed try of the day before."""
    from types import SimpleNamespace

    from tests.platform.chaos.checks import _counted_last

    rows = [
        SimpleNamespace(id=3, status="delivered"),
        SimpleNamespace(id=1, status="failed"),
        SimpleNamespace(id=2, status="unknown"),
        SimpleNamespace(id=4, status="failed"),
    ]
    assert [r.id for r in sorted(rows, key=_counted_last)] == [1, 4, 2, 3]


@pytest.mark.django_db
def test_the_reply_check_finds_an_answer_stored_twice_and_when_each_opt_out_was_stored(workspace):
    """checks.replies (the chaos run's replies): one answer under two accounts of a provider is stored twice; a
    keyword opt-out's moment is the store's, on the run's real clock; answers never polled are reported."""
    from types import SimpleNamespace

    from sms.inbound.services import inbound_store
    from tests.platform.chaos.checks import earliest, replies
    from tests.sms.inbound_helpers import make_account, received

    first, second = make_account(workspace), make_account(workspace)
    inbound_store(account=first, messages=[received("لغو۱۱", "09350000001", message_id="7000000")])
    inbound_store(account=second, messages=[received("لغو۱۱", "09350000001", message_id="7000000")])
    inbound_store(account=first, messages=[received("بله", "09350000002", message_id="7000001")])
    shifted = SimpleNamespace(real=lambda fast: fast - 1000.0)
    placed = [("kavenegar", "7000000"), ("kavenegar", "7000001"), ("kavenegar", "7000002")]
    found = replies(SimpleNamespace(workspace_id=workspace.id), placed, shifted)
    assert {k: v for k, v in found.items() if k != "opt_outs"} == {
        "replies": 3,
        "replies_stored": 2,
        "replies_stored_twice": 1,
        "replies_unstored": 1,
        "reply_opt_outs": 1,
    }
    (moment,) = found["opt_outs"].values()
    assert list(found["opt_outs"]) == ["09350000001"]
    assert abs(moment - (timezone.now().timestamp() - 1000.0)) < 60
    assert earliest({"09350000001": moment - 5}, found["opt_outs"]) == {"09350000001": moment - 5}
