"""The frequency cap across campaigns: at most ``SmsSettings.frequency_cap_per_day`` promotional messages (sends
through an advertising line) per number per workspace calendar day, every journey and chain of the workspace
together (docs/sms.md "Frequency cap").

The counter is one row per number and day (``SmsFrequencyCount``), taken at the send by one statement that raises
it only while it is below the cap (PostgreSQL: ``INSERT … ON CONFLICT DO UPDATE … WHERE sent < cap RETURNING``,
which locks the row and re-reads it, so two workers can never both take the last unit). A step takes one unit
for its first attempt; a retry of the same step takes none. A unit comes back when no attempt was written for it
(the daily limit said no, another run had the key) or the account's rate limit held the call back.
"""

from __future__ import annotations

from datetime import date, timedelta

from django.db import connection, transaction
from django.db.models import F, QuerySet

from campaigns.platform.database import is_postgresql
from sms.models import SmsFrequencyCount

KEEP_DAYS = 3  # counters older than this are of no use (the cap is per day): the daily job deletes them
REASON = "frequency_cap"
SKIP, WAIT = "skip", "wait"  # a capped step's choice (``on_frequency_cap``); waiting for the next day is the default

_TABLE = SmsFrequencyCount._meta.db_table
_TAKE_SQL = (
    f"INSERT INTO {_TABLE} AS c (workspace_id, phone, day, sent)"  # noqa: S608
    " SELECT %s, p, %s, 1 FROM unnest(%s::varchar[]) AS p"
    " ON CONFLICT (workspace_id, phone, day) DO UPDATE SET sent = c.sent + 1 WHERE c.sent < %s"
    " RETURNING phone"
)


def _rounds(phones: list[str]) -> list[list[str]]:
    """The numbers in rounds holding each number once (a statement may touch a row once), sorted so concurrent
    workers lock the rows in one order."""
    rounds: list[list[str]] = []
    seen: dict[str, int] = {}
    for phone in phones:
        n = seen.get(phone, 0)
        seen[phone] = n + 1
        if n == len(rounds):
            rounds.append([])
        rounds[n].append(phone)
    return [sorted(r) for r in rounds]


def take(*, workspace_id: int, phones: list[str], day: date, cap: int) -> list[bool]:
    """One unit per entry of ``phones`` (a number may appear more than once); ``True`` where it was granted.
    Commits at once (the caller holds no transaction): a unit taken is the send's until given back."""
    if cap <= 0:
        return [True] * len(phones)
    granted: dict[str, int] = {}
    for batch in _rounds(phones):
        if is_postgresql(connection):
            with transaction.atomic(), connection.cursor() as cursor:
                cursor.execute(_TAKE_SQL, [workspace_id, day, batch, cap])
                got = [row[0] for row in cursor.fetchall()]
        else:  # SQLite has one writer at a time: read and raise under its lock
            got = []
            with transaction.atomic():
                for phone in batch:
                    SmsFrequencyCount.objects.get_or_create(
                        workspace_id=workspace_id, phone=phone, day=day, defaults={"sent": 0}
                    )
                    rows = SmsFrequencyCount.objects.filter(workspace_id=workspace_id, phone=phone, day=day)
                    if rows.filter(sent__lt=cap).update(sent=F("sent") + 1):
                        got.append(phone)
        for phone in got:
            granted[phone] = granted.get(phone, 0) + 1
    result = []
    for phone in phones:
        ok = granted.get(phone, 0) > 0
        if ok:
            granted[phone] -= 1
        result.append(ok)
    return result


def give_back(*, workspace_id: int, phones: list[str], day: date) -> None:
    """Units taken for sends that did not go (one per entry)."""
    for phone in phones:
        SmsFrequencyCount.objects.filter(workspace_id=workspace_id, phone=phone, day=day, sent__gt=0).update(
            sent=F("sent") - 1
        )


def capped_values(workspace_id: int, *, day: date, cap: int) -> QuerySet:
    """The numbers that reached the cap on ``day`` as a subquery (``mobile__in=…``)."""
    return SmsFrequencyCount.objects.filter(workspace_id=workspace_id, day=day, sent__gte=cap).values("phone")


def sent_on(workspace_id: int, phone: str, day: date) -> int:
    row = SmsFrequencyCount.objects.filter(workspace_id=workspace_id, phone=phone, day=day).values("sent").first()
    return row["sent"] if row else 0


def prune(*, today: date) -> int:
    """Delete counters of days long past (the cap counts one day)."""
    deleted, _ = SmsFrequencyCount.objects.filter(day__lt=today - timedelta(days=KEEP_DAYS)).delete()
    return deleted
