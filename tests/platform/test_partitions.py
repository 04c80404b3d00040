"""History by month on PostgreSQL: the migration's conversion keeps every row of a table that has them, the
daily job creates the months ahead (taking their rows out of the default partition) and drops the months past
the retention setting whole. Each test runs in the test's transaction: the DDL is rolled back with it."""

from datetime import UTC, datetime, timedelta

import pytest
from django.db import connection

from automation.models import ExecutionEvent
from campaigns.platform import partitions
from campaigns.platform.partitions import month_partitions, partition_table, partitions_ensure, partitions_retain

pytestmark = [
    pytest.mark.skipif(connection.vendor != "postgresql", reason="declarative partitioning of PostgreSQL"),
    pytest.mark.django_db,
]
NOW = datetime(2026, 5, 20, 12, 0, tzinfo=UTC)
TABLE = "automation_executionevent"


def _indexes(table: str) -> set[str]:
    with connection.cursor() as cursor:
        cursor.execute("SELECT indexname FROM pg_indexes WHERE tablename = %s", [table])
        return {row[0] for row in cursor.fetchall()}


def _where(row_id: int) -> str:
    with connection.cursor() as cursor:
        cursor.execute(f'SELECT tableoid::regclass::text FROM "{TABLE}" WHERE id = %s', [row_id])
        return cursor.fetchone()[0]


@pytest.fixture
def events(settings):
    """Three events in February, March and May of a plain table, then the migration's conversion."""
    from tests.conftest import make_actor, make_workspace
    from tests.sms.test_api import _sent_attempt

    settings.HISTORY_PARTITIONS_AHEAD = 1
    ws = make_workspace()
    attempt = _sent_attempt(make_actor(ws), ws)
    event = ExecutionEvent.objects.filter(execution_id=attempt.execution_id).first()
    fields = {f.attname: getattr(event, f.attname) for f in ExecutionEvent._meta.concrete_fields if not f.primary_key}
    rows = ExecutionEvent.objects.bulk_create(
        ExecutionEvent(**(fields | {"occurred_at": at}))
        for at in (datetime(2026, 2, 3, tzinfo=UTC), datetime(2026, 3, 31, 23, 59, tzinfo=UTC), NOW)
    )
    before = {e.pk: (e.occurred_at, e.type) for e in ExecutionEvent.objects.all()}
    indexes = _indexes(TABLE)
    with connection.cursor() as cursor:
        cursor.execute("SELECT tgname FROM pg_trigger WHERE tgrelid = %s::regclass AND NOT tgisinternal", [TABLE])
        triggers = {row[0] for row in cursor.fetchall()}
    with connection.schema_editor(atomic=False) as editor:
        partition_table(editor, TABLE, "occurred_at", now=NOW)
    with connection.cursor() as cursor:
        cursor.execute("SELECT tgname FROM pg_trigger WHERE tgrelid = %s::regclass AND NOT tgisinternal", [TABLE])
        assert {row[0] for row in cursor.fetchall()} == triggers  # e.g. the journey numbers' trigger on inserts
    return {"rows": rows, "before": before, "indexes": indexes, "event": event, "fields": fields}


def test_the_conversion_keeps_every_row_index_and_id_and_files_rows_by_month(events):
    after = {e.pk: (e.occurred_at, e.type) for e in ExecutionEvent.objects.all()}
    assert after == events["before"]
    assert events["indexes"] <= _indexes(TABLE)  # the same names (a later migration finds them)
    with connection.cursor() as cursor:
        months = sorted(month_partitions(cursor, TABLE))
    assert [f"{m:%Y-%m}" for m in months] == ["2026-02", "2026-03", "2026-04", "2026-05", "2026-06"]
    feb, mar, may = events["rows"]
    assert _where(feb.pk) == f"{TABLE}_p202602" and _where(mar.pk) == f"{TABLE}_p202603"
    assert _where(may.pk) == f"{TABLE}_p202605"
    fresh = ExecutionEvent.objects.create(**(events["fields"] | {"occurred_at": NOW}))
    assert fresh.pk > max(events["before"])  # the identity sequence went on from the last id
    assert list(ExecutionEvent.objects.filter(pk=feb.pk).values_list("occurred_at", flat=True)) == [feb.occurred_at]


def test_months_ahead_are_created_and_their_rows_leave_the_default_partition(events):
    far = ExecutionEvent.objects.create(**(events["fields"] | {"occurred_at": datetime(2026, 9, 2, tzinfo=UTC)}))
    assert _where(far.pk) == f"{TABLE}_default"
    later = NOW + timedelta(days=90)  # August: September is one month ahead
    created = partitions_ensure(now=later)
    assert f"{TABLE}_p202609" in created and f"{TABLE}_p202607" in created
    assert _where(far.pk) == f"{TABLE}_p202609"
    assert partitions_ensure(now=later) == []  # idempotent


def test_retention_drops_whole_months_past_the_setting_and_keeps_everything_at_zero(events, settings):
    feb, mar, may = events["rows"]
    settings.HISTORY_RETENTION_MONTHS = 0
    assert partitions_retain(now=NOW) == []
    settings.HISTORY_RETENTION_MONTHS = 2  # in May: March and April are kept, February goes
    assert partitions_retain(now=NOW) == [f"{TABLE}_p202602"]
    assert not ExecutionEvent.objects.filter(pk=feb.pk).exists()
    assert ExecutionEvent.objects.filter(pk__in=[mar.pk, may.pk]).count() == 2


def test_a_table_that_another_references_is_not_partitioned():
    with connection.schema_editor(atomic=False) as editor, pytest.raises(RuntimeError, match="referenced"):
        partition_table(editor, "campaigns_workspace", "created_at")


def test_history_tables_are_the_partitioned_ones():
    assert partitions.history_tables() == {
        "automation_executionevent": "occurred_at",
        "workers_browserevent": "created_at",
    }


def test_the_daily_job_is_scheduled_and_creates_the_months_ahead(events):
    from campaigns.tasks import history_partitions
    from config.celery import BEAT_SCHEDULE

    assert BEAT_SCHEDULE["history-partitions"]["task"] == "campaigns.history_partitions"
    done = history_partitions()
    assert done["dropped"] == []  # HISTORY_RETENTION_MONTHS = 0: everything kept
    with connection.cursor() as cursor:
        months = month_partitions(cursor, TABLE)
    assert partitions.add_months(partitions.month_start(datetime.now(UTC)), 1) in months
