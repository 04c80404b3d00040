"""The frequency cap across campaigns and quiet days of promotional sends (docs/sms.md "Frequency cap", "Quiet
days"): at most N advertising messages per number per workspace day, every journey together, counted at the send;
a capped step waits for the next day (or skips, per step) with «سقف ارسال» on the timeline; service lines are
exempt; quiet days postpone promotional sends to the next allowed day. The cap holds under concurrent workers
(PostgreSQL)."""

import threading
from collections import Counter
from datetime import UTC, date, datetime, timedelta

import pytest
import time_machine
from django.db import connection, connections

from automation.choices import ExecutionStatus
from automation.engine.batch import process_batch
from automation.engine.scheduler import tick
from automation.journey_stats import target_timeline_events, timeline_entries
from automation.launch_check import journey_launch_check
from automation.models import Execution
from automation.services.enrollment import enroll_subjects
from sms import frequency_cap
from sms.choices import LineKind
from sms.models import SmsAttempt, SmsFrequencyCount, SmsProviderAccount, SmsSettings
from tests.automation.helpers import CountingConsole, Driver, end_node, journey, linear_graph, setup_sms, sms_node
from tests.conftest import make_target

T0 = datetime(2026, 11, 1, 7, 0, tzinfo=UTC)  # Sunday 10:30 in Tehran
NEXT_DAY = datetime(2026, 11, 1, 20, 31, tzinfo=UTC)  # Monday 00:01 in Tehran


def _advertising(workspace, cap=2, rules=None, **fields):
    rules = rules if rules is not None else ([{"period": "day", "limit": cap}] if cap else [])
    settings = setup_sms(workspace, "console", frequency_cap_rules=rules, **fields)
    SmsProviderAccount.objects.filter(pk=settings.primary_account_id).update(line_kind=LineKind.ADVERTISING)
    return settings


def _campaigns(actor, targets, n, at=T0, **step):
    made = []
    with time_machine.travel(at, tick=False):
        for i in range(n):
            campaign = journey(actor, linear_graph(sms_node("a", body=f"تخفیف {i}", **step), end_node()))
            enroll_subjects(actor=actor, campaign_id=campaign.id, target_ids=[t.id for t in targets], on_conflict="add")
            made.append(campaign)
    return made


def _why(actor, target) -> list[str]:
    events = list(target_timeline_events(actor=actor, target_id=target.id))
    return [e["why_not_sent"] for e in timeline_entries(actor=actor, events=events) if e["why_not_sent"]]


def test_the_third_promotional_send_of_a_day_waits_for_the_next_day_with_its_reason(actor, workspace, monkeypatch):
    CountingConsole(monkeypatch)
    _advertising(workspace, cap=2)
    person, other = make_target(workspace), make_target(workspace)
    campaigns = _campaigns(actor, [person], 3)
    _campaigns(actor, [other], 1)

    Driver().tick(T0 + timedelta(minutes=1))
    sent = Counter(SmsAttempt.objects.values_list("phone", flat=True))
    assert sent == {person.mobile: 2, other.mobile: 1}
    waiting = Execution.objects.get(campaign__in=campaigns, status=ExecutionStatus.WAITING)
    assert waiting.next_run_at >= NEXT_DAY - timedelta(minutes=1)  # tomorrow, workspace calendar
    assert _why(actor, person) == ["frequency_cap"]

    # the next workspace day it goes: a day's cap, not a lifetime's
    Driver().tick(NEXT_DAY)
    assert SmsAttempt.objects.filter(phone=person.mobile).count() == 3
    waiting.refresh_from_db()
    assert waiting.status == ExecutionStatus.COMPLETED
    assert frequency_cap.sent_on(workspace.id, person.mobile, date(2026, 11, 2)) == 1


def test_a_step_set_to_skip_moves_on_and_service_lines_are_not_counted(actor, workspace, monkeypatch):
    CountingConsole(monkeypatch)
    settings = _advertising(workspace, cap=1)
    person = make_target(workspace)
    first, skipping = _campaigns(actor, [person], 1) + _campaigns(actor, [person], 1, on_frequency_cap="skip")
    Driver().tick(T0 + timedelta(minutes=1))
    assert SmsAttempt.objects.filter(phone=person.mobile).count() == 1
    skipped = Execution.objects.get(campaign=skipping)
    assert skipped.status == ExecutionStatus.COMPLETED  # the journey went on without the message
    assert "frequency_cap" in _why(actor, person)
    assert SmsAttempt.objects.filter(campaign=first).exists()

    # a service (transactional) line is exempt: sends and counts nothing
    SmsProviderAccount.objects.filter(pk=settings.primary_account_id).update(line_kind=LineKind.SERVICE)
    (service,) = _campaigns(actor, [person], 1, at=T0 + timedelta(hours=1))
    Driver().tick(T0 + timedelta(hours=1, minutes=1))
    assert SmsAttempt.objects.filter(campaign=service).count() == 1
    assert frequency_cap.sent_on(workspace.id, person.mobile, date(2026, 11, 1)) == 1


def test_no_cap_by_default(actor, workspace, monkeypatch):
    CountingConsole(monkeypatch)
    _advertising(workspace, cap=0)
    person = make_target(workspace)
    _campaigns(actor, [person], 3)
    Driver().tick(T0 + timedelta(minutes=1))
    assert SmsAttempt.objects.filter(phone=person.mobile).count() == 3
    assert not SmsFrequencyCount.objects.exists()
    assert SmsSettings._meta.get_field("frequency_cap_rules").default() == []


def test_the_launch_check_counts_people_at_the_cap_and_warns_above_ten_percent(actor, workspace, monkeypatch):
    CountingConsole(monkeypatch)
    _advertising(workspace, cap=1)
    people = [make_target(workspace) for _ in range(5)]
    _campaigns(actor, people[:2], 1)
    Driver().tick(T0 + timedelta(minutes=1))  # two of the five reached today's cap
    with time_machine.travel(T0 + timedelta(minutes=2), tick=False):
        waits = journey(
            actor, linear_graph(sms_node("a", body="تخفیف", append_opt_out=True), end_node()), activate=False
        )
        enroll_subjects(actor=actor, campaign_id=waits.id, target_ids=[p.id for p in people], on_conflict="add")
        check = journey_launch_check(actor=actor, campaign_id=waits.id)
    row = next(r for r in check["exclusions"] if r["reason"] == "frequency_cap")
    assert (row["count"], row["available"], row["subtracted"]) == (2, True, False)
    assert check["receivers"] == 5  # they wait for tomorrow: still receivers
    assert "frequency_cap_high" in [w["code"] for w in check["warnings"]]

    # the next day nobody is at the cap
    with time_machine.travel(NEXT_DAY, tick=False):
        tomorrow = journey_launch_check(actor=actor, campaign_id=waits.id)
    assert next(r for r in tomorrow["exclusions"] if r["reason"] == "frequency_cap")["count"] == 0
    assert "frequency_cap_high" not in [w["code"] for w in tomorrow["warnings"]]


def test_quiet_fridays_and_listed_days_postpone_promotional_sends_to_the_next_allowed_day(
    actor, workspace, monkeypatch
):
    CountingConsole(monkeypatch)
    friday = datetime(2026, 11, 6, 7, 0, tzinfo=UTC)  # Friday 10:30 Tehran
    _advertising(workspace, cap=0, quiet_fridays=True, quiet_days=["2026-11-07"])  # and Saturday listed
    person = make_target(workspace)
    (campaign,) = _campaigns(actor, [person], 1, at=friday)
    Driver().tick(friday + timedelta(minutes=1))
    assert not SmsAttempt.objects.exists()
    execution = Execution.objects.get(campaign=campaign)
    assert execution.next_run_at == datetime(2026, 11, 7, 20, 30, tzinfo=UTC)  # Sunday 00:00 Tehran
    assert _why(actor, person) == ["quiet_day"]
    Driver().tick(datetime(2026, 11, 7, 12, 0, tzinfo=UTC))  # Saturday: still quiet
    assert not SmsAttempt.objects.exists()
    Driver().tick(datetime(2026, 11, 8, 6, 0, tzinfo=UTC))  # Sunday
    assert SmsAttempt.objects.filter(campaign=campaign).count() == 1


def test_the_finish_estimate_skips_quiet_days(actor, workspace, monkeypatch):
    CountingConsole(monkeypatch)
    thursday_evening = datetime(2026, 11, 5, 20, 0, tzinfo=UTC)  # Thursday 23:30 Tehran
    settings = _advertising(workspace, cap=0, quiet_fridays=True)
    SmsProviderAccount.objects.filter(pk=settings.primary_account_id).update(max_messages_per_minute=1)
    people = [make_target(workspace) for _ in range(40)]
    with time_machine.travel(thursday_evening, tick=False):
        campaign = journey(
            actor, linear_graph(sms_node("a", body="تخفیف", append_opt_out=True), end_node()), activate=False
        )
        enroll_subjects(actor=actor, campaign_id=campaign.id, target_ids=[p.id for p in people])
        check = journey_launch_check(actor=actor, campaign_id=campaign.id)
    # 30 go before midnight Thursday, Friday is quiet, the last 10 on Saturday from 00:00 Tehran
    assert check["finish"]["at"] == datetime(2026, 11, 6, 20, 30, tzinfo=UTC) + timedelta(minutes=10)


pg_only = pytest.mark.skipif(connection.vendor != "postgresql", reason="concurrent row locks need PostgreSQL")


def _in_thread(fn, results, barrier):
    try:
        barrier.wait()
        results.append(fn())
    finally:
        connections.close_all()


@pg_only
@pytest.mark.django_db(transaction=True)
def test_two_concurrent_workers_across_three_campaigns_never_exceed_the_cap(actor, workspace):
    # two rules at once: 2 a Jalali day and 3 a Jalali week; half the people already had 2 this week (Saturday)
    _advertising(workspace, rules=[{"period": "day", "limit": 2}, {"period": "week", "limit": 3}])
    people = [make_target(workspace) for _ in range(40)]
    earlier = {p.mobile for p in people[::2]}
    saturday = date(2026, 10, 31)  # the Jalali week of Sunday 1 Nov 2026 began on Saturday
    SmsFrequencyCount.objects.bulk_create(
        SmsFrequencyCount(workspace=workspace, phone=phone, period="week", day=saturday, sent=2) for phone in earlier
    )
    _campaigns(actor, people, 3)
    now = T0 + timedelta(minutes=1)
    batch: list = []
    tick(now=now, send=batch.extend)
    assert len(batch) == 120
    halves = [batch[0::2], list(reversed(batch[1::2]))]  # each worker holds sends of every campaign and person
    results: list = []
    barrier = threading.Barrier(2)
    threads = [
        threading.Thread(target=_in_thread, args=(lambda h=h: process_batch(h, now=now), results, barrier))
        for h in halves
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    sent = Counter(SmsAttempt.objects.values_list("phone", flat=True))
    expected = {p.mobile: 1 if p.mobile in earlier else 2 for p in people}  # the week's rule, else the day's
    assert sent == expected  # every rule held, and nobody lost a unit
    days = dict(SmsFrequencyCount.objects.filter(period="day").values_list("phone", "sent"))
    weeks = dict(SmsFrequencyCount.objects.filter(period="week", day=saturday).values_list("phone", "sent"))
    assert days == expected  # a unit refused by the week's rule was given back on the day's
    assert weeks == {p.mobile: 3 if p.mobile in earlier else 2 for p in people}
    assert Execution.objects.filter(status=ExecutionStatus.WAITING).count() == 20 * 2 + 20 * 1


def test_units_are_taken_atomically_and_given_back(workspace):
    day = date(2026, 11, 1)
    rules = [frequency_cap.Rule("day", 2)]
    got = frequency_cap.take(workspace_id=workspace.id, phones=["+989120000001"] * 3, day=day, rules=rules)
    assert got == [frozenset(), frozenset(), {"day"}]
    frequency_cap.give_back(workspace_id=workspace.id, phones=["+989120000001"], units=[("day", day)])
    assert frequency_cap.take(workspace_id=workspace.id, phones=["+989120000001"], day=day, rules=rules) == [
        frozenset()
    ]
    assert frequency_cap.prune(today=day + timedelta(days=10)) == 1


@pg_only
@pytest.mark.django_db(transaction=True)
def test_two_concurrent_workers_keep_the_last_unit_from_a_low_priority_campaign(actor, workspace):
    """Two low campaigns and a normal one to the same 30 people, a day rule of 2 and a month rule of 3, two workers
    each holding sends of every campaign and person: whatever the order, the normal one reaches everyone and the
    low ones together at most one message a person (they may not take the second, last, unit)."""
    _advertising(workspace, rules=[{"period": "day", "limit": 2}, {"period": "month", "limit": 3}])
    people = [make_target(workspace) for _ in range(30)]
    made = []
    with time_machine.travel(T0, tick=False):
        for i, priority in enumerate(("low", "low", "normal")):
            graph = linear_graph(sms_node("a", body=f"تخفیف {i}"), end_node())
            campaign = journey(actor, graph, settings={"frequency_cap_priority": priority})
            enroll_subjects(actor=actor, campaign_id=campaign.id, target_ids=[p.id for p in people], on_conflict="add")
            made.append(campaign)
    now = T0 + timedelta(minutes=1)
    batch: list = []
    tick(now=now, send=batch.extend)
    assert len(batch) == 90
    halves = [batch[0::2], list(reversed(batch[1::2]))]
    results: list = []
    barrier = threading.Barrier(2)
    threads = [
        threading.Thread(target=_in_thread, args=(lambda h=h: process_batch(h, now=now), results, barrier))
        for h in halves
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    sent = Counter(SmsAttempt.objects.values_list("phone", flat=True))
    normal = Counter(SmsAttempt.objects.filter(campaign=made[2]).values_list("phone", flat=True))
    low = Counter(SmsAttempt.objects.filter(campaign__in=made[:2]).values_list("phone", flat=True))
    assert normal == dict.fromkeys((p.mobile for p in people), 1)
    assert max(low.values(), default=0) <= 1 and max(sent.values()) <= 2
    for period in ("day", "month"):
        counted = dict(SmsFrequencyCount.objects.filter(period=period).values_list("phone", "sent"))
        assert counted == dict(sent), period


def test_a_send_takes_a_unit_of_every_rule_or_of_none(workspace):
    day, phone = date(2026, 11, 1), "+989120000001"
    day_and_week = [frequency_cap.Rule("day", 5), frequency_cap.Rule("week", 1)]
    got = frequency_cap.take(workspace_id=workspace.id, phones=[phone] * 3, day=day, rules=day_and_week)
    assert got == [frozenset(), {"week"}, {"week"}]
    assert frequency_cap.sent_on(workspace.id, phone, day) == 1  # the day's units of the refused sends came back
    assert frequency_cap.sent_on(workspace.id, phone, day, "week") == 1
    # the next day of the same Jalali week: still refused by the week, the day's counter untouched
    assert frequency_cap.take(
        workspace_id=workspace.id, phones=[phone], day=day + timedelta(days=1), rules=day_and_week
    ) == [{"week"}]
    assert frequency_cap.sent_on(workspace.id, phone, day + timedelta(days=1)) == 0
    # Saturday opens a new Jalali week
    assert frequency_cap.take(workspace_id=workspace.id, phones=[phone], day=date(2026, 11, 7), rules=day_and_week) == [
        frozenset()
    ]


def test_jalali_periods_and_the_day_a_capped_send_is_freed():
    sunday = date(2026, 11, 1)  # 10 Aban 1405
    assert frequency_cap.period_start("week", sunday) == date(2026, 10, 31)  # Saturday
    assert frequency_cap.period_start("week", date(2026, 10, 31)) == date(2026, 10, 31)
    assert frequency_cap.period_start("week", date(2026, 11, 6)) == date(2026, 10, 31)  # Friday: the same week
    assert frequency_cap.period_start("month", sunday) == date(2026, 10, 23)  # 1 Aban 1405
    assert frequency_cap.next_period_start("month", sunday) == date(2026, 11, 22)  # 1 Azar 1405
    assert frequency_cap.next_period_start("month", date(2027, 3, 20)) == date(2027, 3, 21)  # Esfand → Farvardin
    assert frequency_cap.wait_until_day({"day", "week"}, sunday) == date(2026, 11, 7)
    assert frequency_cap.wait_until_day({"day", "week", "month"}, sunday) == date(2026, 11, 22)
    assert frequency_cap.wait_until_day(set(), sunday) == date(2026, 11, 2)


def test_old_counters_are_deleted_by_the_length_of_their_period(workspace):
    today = date(2026, 11, 30)
    rows = [("day", 3), ("day", 4), ("week", 9), ("week", 11), ("month", 30), ("month", 36)]
    SmsFrequencyCount.objects.bulk_create(
        SmsFrequencyCount(workspace=workspace, phone="+989120000001", period=p, day=today - timedelta(days=d), sent=1)
        for p, d in rows
    )
    assert frequency_cap.prune(today=today) == 3
    kept = set(SmsFrequencyCount.objects.values_list("period", "day"))
    assert kept == {
        ("day", today - timedelta(days=3)),
        ("week", today - timedelta(days=9)),
        ("month", today - timedelta(days=30)),
    }


def test_a_step_capped_by_the_week_waits_for_saturday_and_by_the_month_for_its_first_day(actor, workspace, monkeypatch):
    CountingConsole(monkeypatch)
    _advertising(workspace, rules=[{"period": "day", "limit": 3}, {"period": "week", "limit": 2}])
    person = make_target(workspace)
    campaigns = _campaigns(actor, [person], 3)
    Driver().tick(T0 + timedelta(minutes=1))
    assert SmsAttempt.objects.filter(phone=person.mobile).count() == 2
    waiting = Execution.objects.get(campaign__in=campaigns, status=ExecutionStatus.WAITING)
    saturday = datetime(2026, 11, 6, 20, 30, tzinfo=UTC)  # Saturday 7 Nov 00:00 Tehran: the next Jalali week
    assert waiting.next_run_at == saturday
    assert _why(actor, person) == ["frequency_cap"]
    Driver().tick(NEXT_DAY)  # Monday: a new day, the same week
    assert SmsAttempt.objects.filter(phone=person.mobile).count() == 2
    Driver().tick(saturday + timedelta(minutes=1))
    assert SmsAttempt.objects.filter(phone=person.mobile).count() == 3
    assert frequency_cap.sent_on(workspace.id, person.mobile, date(2026, 11, 7), "week") == 1

    # a month's rule: the next Jalali month (1 Azar 1405 = 22 Nov 2026)
    other = make_target(workspace)
    SmsSettings.objects.filter(workspace=workspace).update(frequency_cap_rules=[{"period": "month", "limit": 1}])
    monthly = _campaigns(actor, [other], 2, at=saturday + timedelta(hours=1))
    Driver().tick(saturday + timedelta(hours=1, minutes=1))
    assert SmsAttempt.objects.filter(phone=other.mobile).count() == 1
    held = Execution.objects.get(campaign__in=monthly, status=ExecutionStatus.WAITING)
    assert held.next_run_at == datetime(2026, 11, 21, 20, 30, tzinfo=UTC)


def test_the_launch_check_counts_people_at_a_weeks_cap_and_its_finish_waits_for_the_next_week(
    actor, workspace, monkeypatch
):
    CountingConsole(monkeypatch)
    _advertising(workspace, rules=[{"period": "day", "limit": 5}, {"period": "week", "limit": 1}])
    people = [make_target(workspace) for _ in range(4)]
    _campaigns(actor, people[:1], 1)
    Driver().tick(T0 + timedelta(minutes=1))  # one of four reached the week's cap (not the day's)
    with time_machine.travel(T0 + timedelta(minutes=2), tick=False):
        waits = journey(
            actor, linear_graph(sms_node("a", body="تخفیف", append_opt_out=True), end_node()), activate=False
        )
        enroll_subjects(actor=actor, campaign_id=waits.id, target_ids=[p.id for p in people], on_conflict="add")
        check = journey_launch_check(actor=actor, campaign_id=waits.id)
    row = next(r for r in check["exclusions"] if r["reason"] == "frequency_cap")
    assert (row["count"], row["subtracted"]) == (1, False)
    assert check["receivers"] == 4
    assert check["finish"]["at"] == datetime(2026, 11, 6, 20, 30, tzinfo=UTC)  # his message goes on Saturday
    assert "frequency_cap_high" in [w["code"] for w in check["warnings"]]


def test_the_journey_dashboard_counts_the_capped_sends(actor, workspace, api, client, owner, monkeypatch):
    from automation.journey_stats import journey_stats

    CountingConsole(monkeypatch)
    _advertising(workspace, cap=1)
    person = make_target(workspace)
    campaigns = _campaigns(actor, [person], 2) + _campaigns(actor, [person], 1, on_frequency_cap="skip")
    Driver().tick(T0 + timedelta(minutes=1))
    assert SmsAttempt.objects.filter(phone=person.mobile).count() == 1

    def capped(at) -> dict[int, dict]:
        return {c.id: journey_stats(actor=actor, campaign_id=c.id, now=at)["frequency_capped"] for c in campaigns}

    today = capped(T0 + timedelta(minutes=2))
    # two of the three sends were held back: one waits for tomorrow, the skipping step moved on
    assert sum(c["today"] for c in today.values()) == sum(c["total"] for c in today.values()) == 2
    assert today[campaigns[2].id] == {"today": 1, "total": 1}
    client.force_login(owner)
    with time_machine.travel(T0 + timedelta(minutes=2), tick=False):
        response = api.get(f"/api/v1/campaigns/{campaigns[2].id}/journey/stats")
        page = client.get(f"/automation/campaigns/{campaigns[2].id}/").content.decode()
    assert response.json()["frequency_capped"] == {"today": 1, "total": 1}
    assert 'data-testid="stat-frequency-capped"' in page and "سقف ارسال امروز" in page

    Driver().tick(NEXT_DAY)  # the waiting one goes the next day: counted once, and not today's any more
    tomorrow = capped(NEXT_DAY + timedelta(minutes=1))
    assert sum(c["today"] for c in tomorrow.values()) == 0
    assert sum(c["total"] for c in tomorrow.values()) == 2


def test_the_finish_estimate_spreads_several_promotional_steps_a_person_over_the_rules_periods(
    actor, workspace, monkeypatch
):
    CountingConsole(monkeypatch)
    settings = _advertising(workspace, rules=[{"period": "day", "limit": 1}])
    people = [make_target(workspace) for _ in range(3)]

    def finish(*steps):
        with time_machine.travel(T0, tick=False):
            graph = linear_graph(*steps, end_node())
            campaign = journey(actor, graph, activate=False)
            enroll_subjects(actor=actor, campaign_id=campaign.id, target_ids=[p.id for p in people], on_conflict="add")
            return journey_launch_check(actor=actor, campaign_id=campaign.id)["finish"]["at"]

    def step(key, **config):
        return sms_node(key, body="تخفیف", append_opt_out=True, **config)

    assert finish(step("a")) == T0  # one message a person fits today
    # three a person, one a day: the third goes on Tuesday (00:00 Tehran)
    assert finish(step("a"), step("b"), step("c")) == datetime(2026, 11, 2, 20, 30, tzinfo=UTC)
    # a step that skips at the cap is not delayed by it
    assert finish(step("a"), step("b", on_frequency_cap="skip")) == T0
    # 2 a Jalali week: the third waits for Saturday
    SmsSettings.objects.filter(pk=settings.pk).update(frequency_cap_rules=[{"period": "week", "limit": 2}])
    assert finish(step("a"), step("b"), step("c")) == datetime(2026, 11, 6, 20, 30, tzinfo=UTC)
    assert frequency_cap.spread_day([frequency_cap.Rule("month", 2)], date(2026, 11, 1), 5) == date(2026, 12, 22)
