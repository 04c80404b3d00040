"""The frequency cap across campaigns: promotional messages (sends through an advertising line) per number, every
journey and chain of the workspace together, held by the rules of ``SmsSettings.frequency_cap_rules`` — at most N
per Jalali day, per Jalali week (Saturday to Friday) and/or per Jalali month, in the workspace time zone, every
rule at once (docs/sms.md "Frequency cap").

The counter is one row per number, period kind and period (``SmsFrequencyCount``; ``day`` is the period's first
day), taken at the send: per rule one statement that raises it only while it is below the rule's limit
(PostgreSQL: ``INSERT … ON CONFLICT DO UPDATE … WHERE sent < cap RETURNING``, which locks the row and re-reads it,
so two workers can never both take the last unit). The rules of a round are taken in one transaction, in one order
(day, week, month; numbers sorted), and a number refused by one rule gets its units of the others back before the
commit: a send takes a unit on every rule or on none. A step takes one unit for its first attempt; a retry of the
same step takes none. A unit comes back when no attempt was written for it (the daily limit said no, another run
had the key) or the account's rate limit held the call back.

**Priority** (a campaign's ``journey_settings.frequency_cap_priority``, ``campaigns.choices.CapPriority``):
``high`` sends to a number are served first when several meet in one batch; ``low`` sends never take the last unit
of a rule whose limit is 2 or more (they stop at limit − 1, leaving it to normal and high); ``normal`` (the
default) takes any unit.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date, timedelta

import jdatetime
from django.db import connection, transaction
from django.db.models import F, Q, QuerySet

from campaigns.choices import CapPriority
from campaigns.platform.database import is_postgresql
from sms.models import SmsFrequencyCount

REASON = "frequency_cap"
SKIP, WAIT = "skip", "wait"  # a capped step's choice (``on_frequency_cap``); waiting for the freeing period is default

DAY, WEEK, MONTH = "day", "week", "month"
PERIODS = (DAY, WEEK, MONTH)  # also the order rows are locked in
PERIOD_LABELS = {DAY: "روز", WEEK: "هفته (شنبه تا جمعه)", MONTH: "ماه شمسی"}
MAX_LIMIT = {DAY: 50, WEEK: 200, MONTH: 500}
# A period's counters are of no use once it is over: the daily job deletes those that began this long ago.
KEEP_DAYS = {DAY: 3, WEEK: 10, MONTH: 35}

HIGH, NORMAL, LOW = CapPriority.HIGH.value, CapPriority.NORMAL.value, CapPriority.LOW.value
PRIORITIES = (HIGH, NORMAL, LOW)  # the order a batch is served in
PRIORITY_SETTING = "frequency_cap_priority"  # the key in a campaign's ``journey_settings``

_TABLE = SmsFrequencyCount._meta.db_table
_TAKE_SQL = (
    f"INSERT INTO {_TABLE} AS c (workspace_id, phone, period, day, sent)"  # noqa: S608
    " SELECT %s, p, %s, %s, 1 FROM unnest(%s::varchar[]) AS p"
    " ON CONFLICT (workspace_id, phone, period, day) DO UPDATE SET sent = c.sent + 1 WHERE c.sent < %s"
    " RETURNING phone"
)


@dataclass(frozen=True)
class Rule:
    period: str
    limit: int


def rules_of(settings) -> list[Rule]:
    """The workspace's rules in period order (one per period; malformed entries ignored)."""
    found: dict[str, int] = {}
    for entry in getattr(settings, "frequency_cap_rules", None) or []:
        if not isinstance(entry, dict):
            continue
        period, limit = entry.get("period"), entry.get("limit")
        if period in PERIODS and isinstance(limit, int) and not isinstance(limit, bool) and limit > 0:
            found[period] = limit
    return [Rule(p, found[p]) for p in PERIODS if p in found]


def rules_value(rules: Iterable[Rule]) -> list[dict]:
    """The stored form of ``rules`` (``SmsSettings.frequency_cap_rules``)."""
    return [{"period": r.period, "limit": r.limit} for r in sorted(rules, key=lambda r: PERIODS.index(r.period))]


def priority_of(campaign) -> str:
    value = (getattr(campaign, "journey_settings", None) or {}).get(PRIORITY_SETTING)
    return value if value in PRIORITIES else NORMAL


def limit_for(rule: Rule, priority: str = NORMAL) -> int:
    """The units of one period ``priority`` may take: a low priority leaves the last one (of 2 or more)."""
    return rule.limit - 1 if priority == LOW and rule.limit >= 2 else rule.limit


def period_start(period: str, day: date) -> date:
    """The first day of the Jalali period holding ``day`` (a workspace calendar day)."""
    if period == WEEK:
        return day - timedelta(days=(day.weekday() + 2) % 7)  # Saturday
    if period == MONTH:
        return jdatetime.date.fromgregorian(date=day).replace(day=1).togregorian()
    return day


def next_period_start(period: str, day: date) -> date:
    """The first day of the period after the one holding ``day``."""
    if period == WEEK:
        return period_start(WEEK, day) + timedelta(days=7)
    if period == MONTH:
        jalali = jdatetime.date.fromgregorian(date=day)
        year, month = (jalali.year + 1, 1) if jalali.month == 12 else (jalali.year, jalali.month + 1)
        return jdatetime.date(year, month, 1).togregorian()
    return day + timedelta(days=1)


def units_of(rules: Iterable[Rule], day: date) -> tuple[tuple[str, date], ...]:
    """The counters (period kind, period start) a send on ``day`` takes a unit of."""
    return tuple((r.period, period_start(r.period, day)) for r in rules)


def _rounds(entries: list[tuple[str, str]]) -> list[tuple[str, list[str]]]:
    """The (priority, number) entries in rounds of one priority holding each number once (a statement may touch a
    row once): high first, low last; each round sorted so concurrent workers lock the rows in one order."""
    rounds: list[tuple[str, list[str]]] = []
    for priority in PRIORITIES:
        mine: list[list[str]] = []
        seen: dict[str, int] = {}
        for p, phone in entries:
            if p != priority:
                continue
            n = seen.get(phone, 0)
            seen[phone] = n + 1
            if n == len(mine):
                mine.append([])
            mine[n].append(phone)
        rounds += [(priority, sorted(r)) for r in mine]
    return rounds


def _take_rule(workspace_id: int, phones: list[str], period: str, start: date, cap: int) -> set[str]:
    if is_postgresql(connection):
        with connection.cursor() as cursor:
            cursor.execute(_TAKE_SQL, [workspace_id, period, start, phones, cap])
            return {row[0] for row in cursor.fetchall()}
    got = set()  # SQLite has one writer at a time: read and raise under its lock
    for phone in phones:
        key = {"workspace_id": workspace_id, "phone": phone, "period": period, "day": start}
        SmsFrequencyCount.objects.get_or_create(**key, defaults={"sent": 0})
        if SmsFrequencyCount.objects.filter(**key, sent__lt=cap).update(sent=F("sent") + 1):
            got.add(phone)
    return got


def take(
    *, workspace_id: int, phones: list[str], day: date, rules: list[Rule], priorities: list[str] | None = None
) -> list[frozenset[str]]:
    """One unit of every rule per entry of ``phones`` (a number may appear more than once) on workspace day
    ``day``; per entry the periods that refused it (empty: granted on every rule). Commits at once (the caller
    holds no transaction): a unit taken is the send's until given back."""
    if not rules:
        return [frozenset()] * len(phones)
    priorities = priorities or [NORMAL] * len(phones)
    granted: dict[tuple[str, str], int] = {}
    refused: dict[tuple[str, str], frozenset[str]] = {}
    for priority, batch in _rounds(list(zip(priorities, phones, strict=True))):
        with transaction.atomic():
            got = {}
            for rule in rules:
                got[rule] = _take_rule(
                    workspace_id, batch, rule.period, period_start(rule.period, day), limit_for(rule, priority)
                )
            ok = set(batch).intersection(*got.values())
            for rule, taken in got.items():  # refused by another rule: this one's unit comes back at once
                back = sorted(taken - ok)
                if back:
                    _decrease(workspace_id, back, rule.period, period_start(rule.period, day), 1)
        for phone in batch:
            key = (priority, phone)
            if phone in ok:
                granted[key] = granted.get(key, 0) + 1
            else:
                refused[key] = frozenset(r.period for r, taken in got.items() if phone not in taken)
    result = []
    for priority, phone in zip(priorities, phones, strict=True):
        key = (priority, phone)
        if granted.get(key, 0) > 0:
            granted[key] -= 1
            result.append(frozenset())
        else:
            result.append(refused.get(key, frozenset(PERIODS)))
    return result


def _decrease(workspace_id: int, phones: list[str], period: str, start: date, n: int) -> None:
    SmsFrequencyCount.objects.filter(
        workspace_id=workspace_id, phone__in=phones, period=period, day=start, sent__gte=n
    ).update(sent=F("sent") - n)


def give_back(*, workspace_id: int, phones: list[str], units: Iterable[tuple[str, date]]) -> None:
    """Units taken for sends that did not go (one of each counter in ``units`` per entry of ``phones``)."""
    counts: dict[str, int] = {}
    for phone in phones:
        counts[phone] = counts.get(phone, 0) + 1
    by_count: dict[int, list[str]] = {}
    for phone, n in counts.items():
        by_count.setdefault(n, []).append(phone)
    for period, start in units:
        for n, group in by_count.items():
            _decrease(workspace_id, sorted(group), period, start, n)


def wait_until_day(refused: Iterable[str], day: date) -> date:
    """The first workspace day a send refused by the periods ``refused`` on ``day`` may go: the start of the
    period after the longest one that refused it."""
    return max((next_period_start(p, day) for p in refused), default=next_period_start(DAY, day))


def spread_day(rules: list[Rule], day: date, sends: int, priority: str = NORMAL) -> date | None:
    """The first day of the period in which the last of ``sends`` promotional messages to one number (none taken
    yet) may go, starting on ``day`` with every rule; None when all fit in the current periods."""
    latest = None
    for rule in rules:
        later = (sends - 1) // max(1, limit_for(rule, priority))  # periods after the current one it needs
        start = day
        for _ in range(later):
            start = next_period_start(rule.period, start)
        if later and (latest is None or start > latest):
            latest = start
    return latest


def capped_values(workspace_id: int, *, day: date, rules: list[Rule], priority: str = NORMAL) -> QuerySet:
    """The numbers at the cap of some rule on ``day`` (for ``priority``) as a subquery (``mobile__in=…``)."""
    at_cap = Q(pk__in=[])
    for rule in rules:
        at_cap |= Q(period=rule.period, day=period_start(rule.period, day), sent__gte=limit_for(rule, priority))
    return SmsFrequencyCount.objects.filter(at_cap, workspace_id=workspace_id).values("phone")


def capped_periods(
    workspace_id: int, phones: QuerySet, *, day: date, rules: list[Rule], priority: str = NORMAL
) -> set[str]:
    """The periods of ``rules`` at whose cap one of ``phones`` (a subquery of numbers) stands on ``day``: one
    indexed probe per rule."""
    found = set()
    for rule in rules:
        rows = SmsFrequencyCount.objects.filter(
            workspace_id=workspace_id,
            period=rule.period,
            day=period_start(rule.period, day),
            sent__gte=limit_for(rule, priority),
            phone__in=phones,
        )
        if rows.exists():
            found.add(rule.period)
    return found


def sent_on(workspace_id: int, phone: str, day: date, period: str = DAY) -> int:
    """Units a number holds of the ``period`` holding ``day``."""
    row = (
        SmsFrequencyCount.objects.filter(
            workspace_id=workspace_id, phone=phone, period=period, day=period_start(period, day)
        )
        .values("sent")
        .first()
    )
    return row["sent"] if row else 0


def prune(*, today: date) -> int:
    """Delete the counters of periods long over (each kind kept as long as its period may still run)."""
    old = Q(pk__in=[])
    for period, days in KEEP_DAYS.items():
        old |= Q(period=period, day__lt=today - timedelta(days=days))
    deleted, _ = SmsFrequencyCount.objects.filter(old).delete()
    return deleted
