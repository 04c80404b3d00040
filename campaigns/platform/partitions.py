"""History tables partitioned by month (PostgreSQL declarative range partitioning); one plain table elsewhere.

``history_tables()`` names each append-only history table and its time column: the engine's execution events
by ``occurred_at`` (``HISTORY_TABLES``), then each installed channel's (``channel.history_tables``: browser
events by ``created_at``). On PostgreSQL each is a partitioned parent with one
partition per calendar month in UTC (``<table>_pYYYYMM``, bounds ``[first day, first day of the next
month)``) and a default partition (``<table>_default``) that catches a row of a month not created (a clock far
off, a time-travel test); the primary key is ``(id, time)`` — PostgreSQL requires the partition key in it —
while Django keeps ``id`` as the key (ids come from one identity sequence, so they stay unique).

- ``partition_table`` (the migrations) turns the plain table into the partitioned one: the old table is renamed,
  the parent created like it, partitions made for every month its rows cover up to ``HISTORY_PARTITIONS_AHEAD``
  months ahead, the rows copied, the old table dropped, then its indexes, foreign keys and triggers re-created
  under their own names on the parent (so later migrations find them) and the identity sequence moved past the last id.
  A table that another table's foreign key references is refused: PostgreSQL's reference to a partitioned
  table would need the partition key in it.
- ``partitions_ensure`` (beat, daily: ``campaigns.history_partitions``) creates the months ahead; rows of such a
  month already in the default partition are moved into it first.
- ``partitions_retain`` drops whole months older than ``HISTORY_RETENTION_MONTHS`` (0, the default: kept
  forever): ``DETACH`` then ``DROP`` — no ``DELETE`` and no dead tuples; old rows in the default partition are
  deleted.

Everything here is a no-op on SQLite.
"""

from __future__ import annotations

from datetime import UTC, datetime

from django.conf import settings
from django.db import connection, transaction

from campaigns.platform.database import is_postgresql

HISTORY_TABLES = {"automation_executionevent": "occurred_at"}


def history_tables() -> dict[str, str]:
    """The engine's history tables, then every installed channel's (campaigns/platform/channels.py)."""
    from campaigns.platform.channels import installed_channels

    out = dict(HISTORY_TABLES)
    for channel in installed_channels():
        out.update(channel.history_tables)
    return out


def _q(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def month_start(moment: datetime) -> datetime:
    moment = moment.astimezone(UTC)
    return datetime(moment.year, moment.month, 1, tzinfo=UTC)


def add_months(month: datetime, n: int) -> datetime:
    index = month.year * 12 + month.month - 1 + n
    return datetime(index // 12, index % 12 + 1, 1, tzinfo=UTC)


def partition_name(table: str, month: datetime) -> str:
    return f"{table}_p{month:%Y%m}"


def is_partitioned(cursor, table: str) -> bool:
    cursor.execute(
        "SELECT 1 FROM pg_partitioned_table p JOIN pg_class c ON c.oid = p.partrelid WHERE c.relname = %s", [table]
    )
    return cursor.fetchone() is not None


def month_partitions(cursor, table: str) -> dict[datetime, str]:
    """The month partitions of ``table``: {first day of the month: partition name} (the default left out)."""
    cursor.execute(
        "SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid "
        "JOIN pg_class p ON p.oid = i.inhparent WHERE p.relname = %s",
        [table],
    )
    found = {}
    prefix = f"{table}_p"
    for (name,) in cursor.fetchall():
        suffix = name[len(prefix) :]
        if name.startswith(prefix) and len(suffix) == 6 and suffix.isdigit():
            found[datetime(int(suffix[:4]), int(suffix[4:]), 1, tzinfo=UTC)] = name
    return found


def _create_month(cursor, table: str, column: str, month: datetime) -> bool:
    """The partition of ``month`` (rows of it waiting in the default partition moved in); False if it exists."""
    name = partition_name(table, month)
    if month in month_partitions(cursor, table):
        return False
    upper = add_months(month, 1)
    default = f"{table}_default"
    cursor.execute(f"CREATE TABLE {_q(name)} (LIKE {_q(table)} INCLUDING DEFAULTS INCLUDING CONSTRAINTS)")
    moved = f"DELETE FROM {_q(default)} WHERE {_q(column)} >= %s AND {_q(column)} < %s RETURNING *"  # noqa: S608
    into = f"INSERT INTO {_q(name)} OVERRIDING SYSTEM VALUE SELECT * FROM moved"  # noqa: S608
    cursor.execute(f"WITH moved AS ({moved}) {into}", [month, upper])
    cursor.execute(f"ALTER TABLE {_q(table)} ATTACH PARTITION {_q(name)} FOR VALUES FROM (%s) TO (%s)", [month, upper])
    return True


def partition_table(schema_editor, table: str, column: str, *, now: datetime | None = None) -> None:
    """Turn the plain ``table`` into one partitioned by month of ``column`` (rows kept); PostgreSQL only."""
    if not is_postgresql(schema_editor.connection):
        return
    with schema_editor.connection.cursor() as cursor:
        if is_partitioned(cursor, table):
            return
        cursor.execute(
            "SELECT conrelid::regclass::text FROM pg_constraint WHERE contype = 'f' AND confrelid = %s::regclass",
            [table],
        )
        referencing = [row[0] for row in cursor.fetchall()]
        if referencing:
            raise RuntimeError(f"{table} is referenced by {referencing}: it cannot be partitioned")
        cursor.execute(
            "SELECT indexdef FROM pg_indexes i WHERE tablename = %s AND indexname NOT IN "
            "(SELECT conname FROM pg_constraint WHERE conrelid = %s::regclass AND contype = 'p')",
            [table, table],
        )
        indexes = [row[0] for row in cursor.fetchall()]
        cursor.execute(
            "SELECT conname, pg_get_constraintdef(oid) FROM pg_constraint WHERE conrelid = %s::regclass "
            "AND contype = 'f'",
            [table],
        )
        foreign_keys = cursor.fetchall()
        cursor.execute(
            "SELECT pg_get_triggerdef(oid) FROM pg_trigger WHERE tgrelid = %s::regclass AND NOT tgisinternal", [table]
        )
        triggers = [row[0] for row in cursor.fetchall()]  # e.g. the journey numbers kept from inserted events
        cursor.execute("SELECT pg_get_serial_sequence(%s, 'id')", [table])
        (sequence,) = cursor.fetchone()
        cursor.execute(f"SELECT min({_q(column)}) FROM {_q(table)}")  # noqa: S608
        (first,) = cursor.fetchone()

        # Reference checks still pending in this transaction would forbid dropping the old table: run them now
        # (Django's keys are all DEFERRABLE INITIALLY DEFERRED, so deferring them all again at the end restores it).
        cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
        old, new = f"{table}_unpartitioned", f"{table}_partitioned"
        cursor.execute(f"ALTER TABLE {_q(table)} RENAME TO {_q(old)}")
        cursor.execute(f"ALTER TABLE {_q(old)} RENAME CONSTRAINT {_q(table + '_pkey')} TO {_q(old + '_pkey')}")
        cursor.execute(
            f"CREATE TABLE {_q(new)} (LIKE {_q(old)} INCLUDING DEFAULTS INCLUDING CONSTRAINTS INCLUDING IDENTITY) "
            f"PARTITION BY RANGE ({_q(column)})"
        )
        cursor.execute(f"ALTER TABLE {_q(new)} RENAME TO {_q(table)}")
        cursor.execute(f"ALTER TABLE {_q(table)} ADD CONSTRAINT {_q(table + '_pkey')} PRIMARY KEY (id, {_q(column)})")
        cursor.execute(f"CREATE TABLE {_q(table + '_default')} PARTITION OF {_q(table)} DEFAULT")
        now = now or datetime.now(UTC)
        month = month_start(min(first, now) if first else now)
        last = add_months(month_start(now), settings.HISTORY_PARTITIONS_AHEAD)
        while month <= last:
            _create_month(cursor, table, column, month)
            month = add_months(month, 1)
        cursor.execute(f"INSERT INTO {_q(table)} OVERRIDING SYSTEM VALUE SELECT * FROM {_q(old)}")  # noqa: S608
        cursor.execute(f"DROP TABLE {_q(old)}")
        for definition in indexes:  # "CREATE INDEX name ON public.table USING …": the parent has the name now
            cursor.execute(definition)
        for name, definition in foreign_keys:
            cursor.execute(f"ALTER TABLE {_q(table)} ADD CONSTRAINT {_q(name)} {definition}")
        for definition in triggers:  # after the copy: the rows moved over are not counted twice
            cursor.execute(definition)
        cursor.execute("SELECT pg_get_serial_sequence(%s, 'id')", [table])
        (fresh,) = cursor.fetchone()
        last_id = f"SELECT max(id) FROM {_q(table)}"  # noqa: S608
        cursor.execute(f"SELECT setval(%s, COALESCE(({last_id}), 0) + 1, false)", [fresh])
        cursor.execute("SET CONSTRAINTS ALL DEFERRED")
        if sequence and fresh != sequence:  # keep the sequence's usual name (the old one went with the old table)
            cursor.execute(f"ALTER SEQUENCE {fresh} RENAME TO {_q(sequence.split('.')[-1].strip(chr(34)))}")


def partitions_ensure(*, now: datetime | None = None, since: datetime | None = None) -> list[str]:
    """Month partitions from ``since`` (default: this month, or the month after the newest partition if that is
    earlier) to ``HISTORY_PARTITIONS_AHEAD`` months ahead; the names of those it created."""
    if not is_postgresql(connection):
        return []
    now = now or datetime.now(UTC)
    created = []
    with transaction.atomic(), connection.cursor() as cursor:
        for table, column in history_tables().items():
            if not is_partitioned(cursor, table):
                continue
            month = month_start(since or now)
            existing = month_partitions(cursor, table)
            if since is None and existing:  # months missed while the job did not run are filled in too
                month = min(month, add_months(max(existing), 1))
            last = add_months(month_start(now), settings.HISTORY_PARTITIONS_AHEAD)
            while month <= last:
                if _create_month(cursor, table, column, month):
                    created.append(partition_name(table, month))
                month = add_months(month, 1)
    return created


def partitions_retain(*, now: datetime | None = None) -> list[str]:
    """Drop the months that ended more than ``HISTORY_RETENTION_MONTHS`` months ago (0: keep everything)."""
    months = settings.HISTORY_RETENTION_MONTHS
    if not is_postgresql(connection) or months <= 0:
        return []
    cutoff = add_months(month_start(now or datetime.now(UTC)), -months)  # months before it are dropped whole
    dropped = []
    with transaction.atomic(), connection.cursor() as cursor:
        for table, column in history_tables().items():
            if not is_partitioned(cursor, table):
                continue
            for month, name in sorted(month_partitions(cursor, table).items()):
                if add_months(month, 1) <= cutoff:
                    cursor.execute(f"ALTER TABLE {_q(table)} DETACH PARTITION {_q(name)}")
                    cursor.execute(f"DROP TABLE {_q(name)}")
                    dropped.append(name)
            cursor.execute(f"DELETE FROM {_q(table + '_default')} WHERE {_q(column)} < %s", [cutoff])  # noqa: S608
    return dropped
