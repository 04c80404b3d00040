"""A journey campaign's numbers kept with the writes (``JourneyCount``): executions per status, the live ones
per step (``at:<node id>:<status>:<needs budget 0/1>``, for the live edits' migration step: who stands where on
an older version) and the sends that failed, retries and unknown outcomes per 15-minute slot, so its dashboard,
its stats, the campaign list and the migration step never aggregate executions or history.

Database triggers write them in the same transaction as every write that changes them — an execution
inserted (enrollment), its status changed (the engine's batch updates, services, ``fsm_apply``, bulk
controls), an execution deleted, an event inserted (the engine's ``COPY``, services) — so no code path can
forget one. PostgreSQL: statement triggers over transition tables (one grouped ``INSERT`` per statement,
however many rows it wrote). SQLite: row triggers. Rows are deltas, only ever inserted, so two workers moving
executions of one campaign never wait for each other; ``fold`` (beat, every minute) sums each number's rows
into one and folds slots older than ``FOLD_AFTER`` into one row per number. ``recount`` rebuilds a
campaign's numbers from its executions and the history still kept (``manage.py journey_counts``).
Installed by the migration and again after every ``migrate`` (idempotent), so test databases built from the
models have them too.
"""

# The SQL below interpolates module constants only (table, keys, event types), never input.
# ruff: noqa: S608
from __future__ import annotations

from collections import defaultdict
from datetime import date, datetime, timedelta, tzinfo

from django.db import connections, transaction
from django.db.models import Case, DateField, Sum, When
from django.db.models.functions import TruncDate
from django.utils import timezone

from automation.choices import LIVE_STATUSES, EventType
from automation.models import JourneyCount
from campaigns.platform.database import execute_for_database, is_postgresql

STATUS = "status:"
AT = "at:"  # a live execution's step: "at:<node id>:<status>:<needs_budget 0/1>"
_LIVE = ", ".join(f"'{s}'" for s in LIVE_STATUSES)
SEND_FAILED, RETRIED, UNKNOWN_OUTCOME = "send_failed", "retried", "unknown_outcome"
# A send the frequency cap across campaigns held back (its step waits for the next day, or skips): the
# channel's deferral or refusal names the reason (``sms.frequency_cap.REASON``).
FREQUENCY_CAPPED = "frequency_capped"
CAP_REASON = "frequency_cap"
EVENT_KEYS = (SEND_FAILED, RETRIED, UNKNOWN_OUTCOME, FREQUENCY_CAPPED)
SLOT_SECONDS = 900  # every time zone's day starts on a quarter hour
FOLD_AFTER = timedelta(days=40)  # older slots are no longer shown by day (the series shows 30)
FAILED_RESULTS = ("failed", "rejected")
TABLE = "automation_journeycount"


def _event_key(row: str, postgresql: bool) -> str:
    """SQL: the counted number an event row adds to (NULL for the others)."""

    def field(name: str) -> str:
        return f"{row}.data->>'{name}'" if postgresql else f"json_extract({row}.data, '$.{name}')"

    result = field("result")
    capped = f"{field('reason')} = '{CAP_REASON}' OR {field('error')} = '{CAP_REASON}'"
    outcome = f"'{EventType.ACTION_ATTEMPT}', '{EventType.ACTION_RESULT}'"
    failed = ", ".join(f"'{r}'" for r in FAILED_RESULTS)
    return (
        f"CASE WHEN {row}.type IN ({outcome}) AND {result} IN ({failed}) THEN '{SEND_FAILED}' "
        f"WHEN {row}.type = '{EventType.RETRY_SCHEDULED}' THEN '{RETRIED}' "
        f"WHEN {row}.type = '{EventType.UNKNOWN_OUTCOME}' THEN '{UNKNOWN_OUTCOME}' "
        f"WHEN {capped} THEN '{FREQUENCY_CAPPED}' END"
    )


def _slot(row: str, postgresql: bool) -> str:
    if postgresql:
        return f"to_timestamp(floor(extract(epoch FROM {row}.occurred_at) / {SLOT_SECONDS}) * {SLOT_SECONDS})"
    return (
        f"datetime((CAST(strftime('%s', {row}.occurred_at) AS INTEGER) / {SLOT_SECONDS}) * {SLOT_SECONDS}, 'unixepoch')"
    )


def _at_key(row: str, postgresql: bool) -> str:
    """SQL: the step number a live execution row counts in."""
    budget = f"{row}needs_budget::int" if postgresql else f"{row}needs_budget"
    return f"'{AT}' || COALESCE({row}current_node_id, 0) || ':' || {row}status || ':' || {budget}"


COLUMNS = f"{TABLE} (workspace_id, campaign_id, key, slot, n)"
PG_TRIGGERS = f"""
CREATE OR REPLACE FUNCTION automation_journey_count_executions() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        INSERT INTO {COLUMNS}
        SELECT workspace_id, campaign_id, k, NULL, count(*) FROM (
            SELECT workspace_id, campaign_id, '{STATUS}' || status AS k FROM new_rows
            UNION ALL
            SELECT workspace_id, campaign_id, {_at_key("", True)} FROM new_rows WHERE status IN ({_LIVE})
        ) added GROUP BY workspace_id, campaign_id, k;
    ELSIF TG_OP = 'DELETE' THEN
        INSERT INTO {COLUMNS}
        SELECT workspace_id, campaign_id, k, NULL, -count(*) FROM (
            SELECT workspace_id, campaign_id, '{STATUS}' || status AS k FROM old_rows
            UNION ALL
            SELECT workspace_id, campaign_id, {_at_key("", True)} FROM old_rows WHERE status IN ({_LIVE})
        ) gone GROUP BY workspace_id, campaign_id, k;
    ELSE  -- the net change per campaign, status and step: rows that stayed cancel out (no join)
        INSERT INTO {COLUMNS}
        SELECT workspace_id, campaign_id, k, NULL, sum(d) FROM (
            SELECT workspace_id, campaign_id, '{STATUS}' || status AS k, -1 AS d FROM old_rows
            UNION ALL
            SELECT workspace_id, campaign_id, '{STATUS}' || status, 1 FROM new_rows
            UNION ALL
            SELECT workspace_id, campaign_id, {_at_key("", True)}, -1 FROM old_rows WHERE status IN ({_LIVE})
            UNION ALL
            SELECT workspace_id, campaign_id, {_at_key("", True)}, 1 FROM new_rows WHERE status IN ({_LIVE})
        ) moved GROUP BY workspace_id, campaign_id, k HAVING sum(d) <> 0;
    END IF;
    RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION automation_journey_count_events() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO {COLUMNS}
    SELECT workspace_id, campaign_id, key, slot, count(*) FROM (
        SELECT e.workspace_id, e.campaign_id, {_event_key("e", True)} AS key, {_slot("e", True)} AS slot
        FROM new_rows e
    ) counted WHERE key IS NOT NULL GROUP BY workspace_id, campaign_id, key, slot;
    RETURN NULL;
END $$;

DROP TRIGGER IF EXISTS automation_journey_count_exec_insert ON automation_execution;
DROP TRIGGER IF EXISTS automation_journey_count_exec_update ON automation_execution;
DROP TRIGGER IF EXISTS automation_journey_count_exec_delete ON automation_execution;
DROP TRIGGER IF EXISTS automation_journey_count_events ON automation_executionevent;
CREATE TRIGGER automation_journey_count_exec_insert AFTER INSERT ON automation_execution
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION automation_journey_count_executions();
CREATE TRIGGER automation_journey_count_exec_update AFTER UPDATE ON automation_execution
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION automation_journey_count_executions();
CREATE TRIGGER automation_journey_count_exec_delete AFTER DELETE ON automation_execution
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION automation_journey_count_executions();
CREATE TRIGGER automation_journey_count_events AFTER INSERT ON automation_executionevent
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION automation_journey_count_events();
"""
PG_DROP = """
DROP TRIGGER IF EXISTS automation_journey_count_exec_insert ON automation_execution;
DROP TRIGGER IF EXISTS automation_journey_count_exec_update ON automation_execution;
DROP TRIGGER IF EXISTS automation_journey_count_exec_delete ON automation_execution;
DROP TRIGGER IF EXISTS automation_journey_count_events ON automation_executionevent;
DROP FUNCTION IF EXISTS automation_journey_count_executions();
DROP FUNCTION IF EXISTS automation_journey_count_events();
"""
SQLITE_TRIGGERS = [
    f"""CREATE TRIGGER IF NOT EXISTS automation_journey_count_exec_insert AFTER INSERT ON automation_execution BEGIN
        INSERT INTO {COLUMNS} VALUES (NEW.workspace_id, NEW.campaign_id, '{STATUS}' || NEW.status, NULL, 1);
    END""",
    f"""CREATE TRIGGER IF NOT EXISTS automation_journey_count_exec_delete AFTER DELETE ON automation_execution BEGIN
        INSERT INTO {COLUMNS} VALUES (OLD.workspace_id, OLD.campaign_id, '{STATUS}' || OLD.status, NULL, -1);
    END""",
    f"""CREATE TRIGGER IF NOT EXISTS automation_journey_count_exec_update
    AFTER UPDATE OF status, campaign_id ON automation_execution
    WHEN OLD.status <> NEW.status OR OLD.campaign_id <> NEW.campaign_id BEGIN
        INSERT INTO {COLUMNS} VALUES (OLD.workspace_id, OLD.campaign_id, '{STATUS}' || OLD.status, NULL, -1);
        INSERT INTO {COLUMNS} VALUES (NEW.workspace_id, NEW.campaign_id, '{STATUS}' || NEW.status, NULL, 1);
    END""",
    f"""CREATE TRIGGER IF NOT EXISTS automation_journey_count_at_insert AFTER INSERT ON automation_execution
    WHEN NEW.status IN ({_LIVE}) BEGIN
        INSERT INTO {COLUMNS} VALUES (NEW.workspace_id, NEW.campaign_id, {_at_key("NEW.", False)}, NULL, 1);
    END""",
    f"""CREATE TRIGGER IF NOT EXISTS automation_journey_count_at_delete AFTER DELETE ON automation_execution
    WHEN OLD.status IN ({_LIVE}) BEGIN
        INSERT INTO {COLUMNS} VALUES (OLD.workspace_id, OLD.campaign_id, {_at_key("OLD.", False)}, NULL, -1);
    END""",
    f"""CREATE TRIGGER IF NOT EXISTS automation_journey_count_at_update
    AFTER UPDATE OF status, campaign_id, current_node_id, needs_budget ON automation_execution
    WHEN {_at_key("OLD.", False)} IS NOT {_at_key("NEW.", False)} OR OLD.campaign_id <> NEW.campaign_id BEGIN
        INSERT INTO {COLUMNS} SELECT OLD.workspace_id, OLD.campaign_id, {_at_key("OLD.", False)}, NULL, -1
        WHERE OLD.status IN ({_LIVE});
        INSERT INTO {COLUMNS} SELECT NEW.workspace_id, NEW.campaign_id, {_at_key("NEW.", False)}, NULL, 1
        WHERE NEW.status IN ({_LIVE});
    END""",
    f"""CREATE TRIGGER IF NOT EXISTS automation_journey_count_events AFTER INSERT ON automation_executionevent
    WHEN ({_event_key("NEW", False)}) IS NOT NULL BEGIN
        INSERT INTO {COLUMNS}
        VALUES (NEW.workspace_id, NEW.campaign_id, {_event_key("NEW", False)}, {_slot("NEW", False)}, 1);
    END""",
]
SQLITE_DROP = [
    f"DROP TRIGGER IF EXISTS automation_journey_count_{name}"
    for name in ("exec_insert", "exec_delete", "exec_update", "at_insert", "at_delete", "at_update", "events")
]


def fresh_at_sql(postgresql: bool, where: str) -> str:
    """SQL: the live executions' step numbers counted from the rows ``where`` selects."""
    key, no_slot = _at_key("", postgresql), "NULL::timestamptz" if postgresql else "NULL"
    return f"""
        SELECT workspace_id, campaign_id, {key}, {no_slot}, count(*) FROM automation_execution
        WHERE {where} AND status IN ({_LIVE}) GROUP BY workspace_id, campaign_id, {key}"""


def _fresh_sql(postgresql: bool) -> str:
    """SQL (one parameter: the campaign id, three times): every number of a campaign counted from its rows."""
    return f"""
        SELECT workspace_id, campaign_id, '{STATUS}' || status, NULL, count(*)
        FROM automation_execution WHERE campaign_id = %s GROUP BY workspace_id, campaign_id, status
        UNION ALL {fresh_at_sql(postgresql, "campaign_id = %s")}
        UNION ALL
        SELECT workspace_id, campaign_id, key, slot, count(*) FROM (
            SELECT e.workspace_id, e.campaign_id, {_event_key("e", postgresql)} AS key, {_slot("e", postgresql)} AS slot
            FROM automation_executionevent e WHERE e.campaign_id = %s
        ) counted WHERE key IS NOT NULL GROUP BY workspace_id, campaign_id, key, slot
    """.replace("'%s'", "'%%s'")


def _installed(connection) -> bool:
    return TABLE in connection.introspection.table_names()


def install(connection) -> None:
    """Create (or replace) the triggers; a no-op before the table exists."""
    if not _installed(connection):
        return
    execute_for_database(connection, postgresql=PG_TRIGGERS, sqlite=[*SQLITE_DROP, *SQLITE_TRIGGERS])


def uninstall(connection) -> None:
    execute_for_database(connection, postgresql=PG_DROP, sqlite=SQLITE_DROP)


def install_after_migrate(sender, using: str = "default", **kwargs) -> None:
    """``post_migrate`` receiver: databases built from the models alone (tests) get the triggers too."""
    install(connections[using])


# --------------------------------------------------------------------------- maintenance
def fold(*, now: datetime | None = None, alias: str = "default") -> int:
    """Sum the rows of each number into one (slots older than ``FOLD_AFTER`` into one row without a slot).
    Exact while writers keep inserting: the rows summed are exactly the rows deleted. Returns rows removed."""
    cutoff = (now or timezone.now()) - FOLD_AFTER
    connection = connections[alias]
    with transaction.atomic(using=alias):
        if is_postgresql(connection):
            with connection.cursor() as cursor:
                cursor.execute(
                    f"""DELETE FROM {TABLE} WHERE id IN (
                        SELECT c.id FROM {TABLE} c JOIN (
                            SELECT campaign_id, key, slot FROM {TABLE}
                            GROUP BY campaign_id, key, slot HAVING count(*) > 1
                        ) g ON g.campaign_id = c.campaign_id AND g.key = c.key AND g.slot IS NOT DISTINCT FROM c.slot
                        UNION SELECT id FROM {TABLE} WHERE slot < %s
                    ) RETURNING workspace_id, campaign_id, key, slot, n""",
                    [cutoff],
                )
                gone = cursor.fetchall()
        else:  # one writer at a time: read, then delete what was read
            rows = JourneyCount.objects.using(alias)
            gone = list(rows.values_list("workspace_id", "campaign_id", "key", "slot", "n"))
            rows.filter(pk__in=list(rows.values_list("pk", flat=True))).delete()
        sums: dict[tuple, int] = defaultdict(int)
        for workspace_id, campaign_id, key, slot, n in gone:
            sums[(workspace_id, campaign_id, key, None if slot is None or slot < cutoff else slot)] += n
        JourneyCount.objects.using(alias).bulk_create(
            [JourneyCount(workspace_id=w, campaign_id=c, key=k, slot=s, n=n) for (w, c, k, s), n in sums.items() if n]
        )
    return len(gone) - sum(1 for n in sums.values() if n)


def recount(*, campaign_id: int, alias: str = "default") -> None:
    """Rebuild one campaign's numbers from its executions and the history still kept (events removed by
    retention are no longer counted). Exact while the engine runs: the delete and the counts share one
    snapshot on PostgreSQL, so deltas of transactions it did not see stay and still apply."""
    connection = connections[alias]
    fresh = _fresh_sql(is_postgresql(connection))
    with transaction.atomic(using=alias), connection.cursor() as cursor:
        if is_postgresql(connection):
            cursor.execute(
                f"WITH gone AS (DELETE FROM {TABLE} WHERE campaign_id = %s) INSERT INTO {COLUMNS} {fresh}",
                [campaign_id] * 4,
            )
        else:
            cursor.execute(f"DELETE FROM {TABLE} WHERE campaign_id = %s", [campaign_id])
            cursor.execute(f"INSERT INTO {COLUMNS} {fresh}", [campaign_id] * 3)


def differences(*, campaign_id: int, alias: str = "default") -> dict[str, tuple[int, int]]:
    """Each number whose stored total differs from a fresh count: key → (stored, counted)."""
    with connections[alias].cursor() as cursor:
        cursor.execute(_fresh_sql(is_postgresql(connections[alias])), [campaign_id] * 3)
        counted: dict[str, int] = defaultdict(int)
        for _w, _c, key, _slot, n in cursor.fetchall():
            counted[key] += n
    stored = dict(
        JourneyCount.objects.using(alias)
        .filter(campaign_id=campaign_id)
        .values_list("key")
        .annotate(total=Sum("n"))
        .values_list("key", "total")
    )
    keys = {k for k in {*counted, *stored} if counted.get(k, 0) or stored.get(k, 0)}
    return {k: (stored.get(k, 0), counted.get(k, 0)) for k in sorted(keys) if stored.get(k, 0) != counted.get(k, 0)}


# --------------------------------------------------------------------------- reads
def status_counts(campaign_ids) -> dict[int, dict[str, int]]:
    """campaign id → {status: executions} (statuses without executions left out)."""
    ids = list(campaign_ids)
    out: dict[int, dict[str, int]] = {i: {} for i in ids}
    rows = (
        JourneyCount.objects.filter(campaign_id__in=ids, slot__isnull=True, key__startswith=STATUS)
        .values_list("campaign_id", "key")
        .annotate(total=Sum("n"))
        .values_list("campaign_id", "key", "total")
    )
    for campaign_id, key, total in rows:
        if total:
            out[campaign_id][key.removeprefix(STATUS)] = total
    return out


def event_counts(
    *, campaign_id: int, since: datetime, zone: tzinfo
) -> tuple[dict[str, int], dict[tuple[str, date], int]]:
    """({key: total ever counted}, {(key, day in ``zone``): n} for the slots from ``since``) of the event numbers.

    Summed by day in the database: a campaign keeps up to 96 slots a day for 40 days of each number (3,840 rows at
    full scale), and turning each into an aware datetime here cost a polled dashboard 100 ms."""
    recent_day = Case(When(slot__gte=since, then=TruncDate("slot", tzinfo=zone)), output_field=DateField())
    rows = (
        JourneyCount.objects.filter(campaign_id=campaign_id, key__in=EVENT_KEYS)
        .annotate(day=recent_day)
        .values_list("key", "day")
        .annotate(total=Sum("n"))
        .values_list("key", "day", "total")
        .order_by()
    )
    totals: dict[str, int] = dict.fromkeys(EVENT_KEYS, 0)
    recent: dict[tuple[str, date], int] = {}
    for key, day, total in rows:
        totals[key] += total
        if day is not None:
            recent[(key, day)] = total
    return totals, recent


def live_at_steps(campaign_ids) -> dict[int, dict[tuple[str, bool], int]]:
    """node id → {(status, needs budget): live executions standing there} over these campaigns (kept numbers:
    one grouped read of the counter rows, however many executions)."""
    rows = (
        JourneyCount.objects.filter(campaign_id__in=list(campaign_ids), slot__isnull=True, key__startswith=AT)
        .values_list("key")
        .annotate(total=Sum("n"))
        .values_list("key", "total")
    )
    out: dict[int, dict[tuple[str, bool], int]] = defaultdict(dict)
    for key, total in rows:
        node, status, budget = key.removeprefix(AT).split(":")
        if total:
            out[int(node)][(status, budget == "1")] = total
    return dict(out)
