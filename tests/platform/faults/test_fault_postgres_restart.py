"""PostgreSQL restarted during ticks: a private cluster (``initdb`` in a temporary folder, ``pg_ctl`` on a
free port — never the machine's 5432) holds the schema of the test database; the tick process and a
real engine worker use it while it is crashed (``-m immediate``: no checkpoint, WAL replay) or stopped
cleanly and started again, three times, while the journey sends. After recovery nothing is lost or
doubled: every execution completes with one message; an interrupted send is settled, never resent."""

import subprocess

import pytest
from django.conf import settings

from . import journey_run
from .processes import PostgresCluster, RedisServer

pytestmark = [pytest.mark.slow, pytest.mark.django_db]

MODES = ("immediate", "fast", "immediate")


def copy_schema(cluster: PostgresCluster) -> None:
    """The test database's tables, indexes and constraints, into the private cluster (faster than migrate)."""
    db = settings.DATABASES["default"]
    command = [str(cluster.bin / "pg_dump"), "--schema-only", "--no-owner", "-h", db["HOST"], "-p", str(db["PORT"])]
    dump = subprocess.run(
        [*command, "-U", db["USER"], db["NAME"]],
        check=True,
        capture_output=True,
        text=True,
        env={"PGPASSWORD": db.get("PASSWORD") or ""},
        timeout=120,
    )
    subprocess.run(
        [str(cluster.bin / "psql"), "-q", "-v", "ON_ERROR_STOP=1", cluster.url],
        input=dump.stdout,
        check=True,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_postgres_restarts_during_ticks_lose_and_double_nothing(tmp_path):
    if settings.DATABASES["default"]["ENGINE"] != "django.db.backends.postgresql":
        pytest.skip("the schema is copied from the PostgreSQL test database")
    cluster = PostgresCluster()
    redis = RedisServer(tmp_path)
    if cluster.bin is None or redis.binary is None:
        pytest.skip("initdb/pg_ctl or redis-server is not installed")
    try:
        cluster.init()
        copy_schema(cluster)
        redis.start()

        def restarts() -> None:
            for mode in MODES:
                cluster.restart(mode=mode, down_seconds=1.0)
                journey_run.time.sleep(1.5)

        outcome = journey_run.run(
            tmp_path, database_url=cluster.url, broker_url=redis.url, targets=40, disrupt=restarts
        )
    finally:
        redis.stop()
        cluster.destroy()
    line = outcome.line("postgres-restart", cluster.restarts)
    print("\n" + line)
    assert cluster.restarts == len(MODES)
    assert outcome.done, line + "\n" + outcome.logs
    assert (outcome.lost, outcome.duplicates, outcome.resends) == (0, 0, 0), line
    assert outcome.messages == 40
    assert outcome.report["executions"] == {"completed": 40}, line
    assert outcome.report["submitted_twice"] == 0
