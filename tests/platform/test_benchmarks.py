"""Every benchmark command still runs, on a tiny size, exactly as a person runs it (``manage.py`` in a child
process): it prints its figures and goals, fails below ``--min-ratio`` and leaves no database or queue behind.
The figures themselves are not asserted (benchmarks are not timed tests); docs/benchmarks.md has them."""

import os
import subprocess
import sys
from pathlib import Path
from urllib.parse import urlparse

import psycopg
import pytest
import redis
from django.conf import settings

ROOT = Path(settings.BASE_DIR)

pytestmark = pytest.mark.skipif(
    not os.environ.get("DATABASE_URL", "").startswith("postgres"), reason="benchmarks need PostgreSQL (DATABASE_URL)"
)


def bench(*args: str, timeout: float = 600) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env=dict(os.environ, PYTHONPATH=str(ROOT), DEBUG="1"),  # its workers start with the dev secrets
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def bench_databases() -> set[str]:
    """Databases of a run (the migrated templates they are cloned from stay, reused by the next run): those named
    after the database the commands are given, so another checkout's benchmarks on the same server do not count."""
    db = settings.DATABASES["default"]
    params = {"host": db["HOST"], "port": db["PORT"] or 5432, "user": db["USER"], "password": db["PASSWORD"]}
    base = urlparse(os.environ["DATABASE_URL"]).path.lstrip("/").replace("_", "\\_")
    with psycopg.connect(dbname="postgres", **params) as conn:
        rows = conn.execute("SELECT datname FROM pg_database WHERE datname LIKE %s", [f"{base}\\_bench\\_%"]).fetchall()
    return {name for (name,) in rows}


def broker_queues() -> set[str]:
    if not settings.CELERY_BROKER_URL.startswith("redis"):
        return set()
    keys = redis.Redis.from_url(settings.CELERY_BROKER_URL).keys("*bench-*")
    return {k.decode() for k in keys}


@pytest.fixture
def hermetic():
    """The run leaves no database of its own and no queue of its own behind."""
    databases, queues = bench_databases(), broker_queues()
    yield
    assert bench_databases() == databases
    assert broker_queues() == queues


def assert_ran(result: subprocess.CompletedProcess, *expected: str) -> str:
    output = result.stdout + result.stderr
    assert result.returncode == 0, output[-4000:]
    for text in expected:
        assert text in result.stdout, output[-4000:]
    return result.stdout


def test_bench_engine_in_process(hermetic):
    out = assert_ran(
        bench("bench_engine", "--targets", "40", "--naive-targets", "10", "--min-ratio", "0.001"),
        "engine end to end:",
        "(a) raw-SQL batched floor:",
        "after the engine",
        "(b) naive",
    )
    assert "engine / (a) raw floor" in out and ">= 25 %" in out  # the goal next to the figure
    assert "ok" in out.splitlines()[-2]  # the required ratio was met


def test_bench_enrollment_fails_below_the_required_ratio(hermetic):
    result = bench("bench_enrollment", "--targets", "30", "--min-ratio", "1000")
    assert result.returncode == 1, result.stdout + result.stderr
    assert "commit / multi-row INSERT" in result.stdout and "FAIL" in result.stdout
    for line in ("preview:", "executions/s", "multi-row INSERT of the same rows", "bare INSERT … SELECT unnest"):
        assert line in result.stdout
    assert "below the goal" in result.stderr


def test_bench_tick_claims_every_due_execution(hermetic):
    """The command itself refuses a tick that claimed fewer than the due executions."""
    assert_ran(
        bench("bench_tick", "--executions", "3000", "--due", "200", "--max-seconds", "120"),
        "tick, 200 due of 200 rows",
        "tick, 200 due of 3000 rows",
        "claims/s; dispatch",
        "EXPLAIN",
        "LockRows",  # FOR UPDATE SKIP LOCKED in the claim's plan
    )


@pytest.mark.slow
def test_bench_engine_through_real_celery_workers(hermetic):
    if not settings.CELERY_BROKER_URL.startswith("redis"):
        pytest.skip("needs Redis (CELERY_BROKER_URL)")
    assert_ran(
        bench("bench_engine", "--broker", "--targets", "40", "--naive-targets", "10", "--workers", "1"),
        "engine through the broker, 1 worker processes",
        "parked at the wait",
        "engine / (a) raw floor",
    )


@pytest.mark.slow
@pytest.mark.parametrize(
    "provider, mode",
    [("kavenegar", ["--texts", "distinct"]), ("melipayamak", ["--workers", "2", "--scaling"])],
    ids=["kavenegar-distinct-texts", "melipayamak-scaling"],
)
def test_bench_sms_messages_every_target_once(hermetic, provider, mode):
    """The SMS throughput run on a tiny size, through real workers and the fake provider with latency and a cap
    that refuses nothing: every number got its message once and the run says so (its rate is not asserted)."""
    if not settings.CELERY_BROKER_URL.startswith("redis"):
        pytest.skip("needs Redis (CELERY_BROKER_URL)")
    out = assert_ran(
        bench(
            "bench_sms",
            *("--provider", provider, "--targets", "30", "--latency-ms", "5", "--concurrency", "1"),
            *("--cap-messages", "100000", *mode),
        ),
        "messages accepted: 30 in",
        "duplicates (a number messaged twice): 0",
        "lost (completed without a message): 0; not completed: 0",
        "requests refused by the provider for rate: 0",
        "bound of the run:",
        "projected time for 1,000,000 messages:",
    )
    assert f"{provider} fake answering after 5 ms" in out
    if "--scaling" in mode:  # one worker process, then two, and the ratio between them
        assert "1 worker process(es)" in out and "2 worker process(es)" in out
        assert "2 worker processes / 1" in out


@pytest.mark.slow
@pytest.mark.browser
@pytest.mark.parametrize("mode", [[], ["--broker"]], ids=["in-process", "broker"])
def test_bench_browser(hermetic, mode):
    if mode and not settings.CELERY_BROKER_URL.startswith("redis"):
        pytest.skip("needs Redis (CELERY_BROKER_URL)")
    out = assert_ran(
        bench("bench_browser", *mode, "--tasks", "4", "--accounts", "2", "--workers", "1", "--min-ratio", "0.01"),
        "raw playwright loop",
        "4/4 succeeded",
        "likes counted by the site: 8",
    )
    assert "pipeline (broker) / raw loop" in out if mode else "pipeline (in process) / raw loop" in out


def test_bench_pages_smoke_run_prints_every_pattern_and_fails_above_the_limit(hermetic):
    """--scale 0.01 (10,000 targets, 100,000 events): every pattern answers, the table and the floor are printed;
    a limit no request can meet fails the run, a generous one on the floor passes (the data template is reused)."""
    result = bench("bench_pages", "--scale", "0.01", "--repeat", "1", "--max-p95-ms", "0.001")
    assert result.returncode == 1, result.stdout + result.stderr
    out = result.stdout
    assert "10,000 targets" in out and "100,000 events" in out
    for label in ("floor: /api/v1/me", "page targets search phone fa", "api target timeline (500)", "page sms log"):
        assert label in out, out
    rows = [line for line in out.splitlines() if line.startswith(("page ", "api ", "admin ", "floor"))]
    assert all(" 200 " in f" {line} " for line in rows), out  # every pattern answered 200
    assert "web-process RSS" in out and "NOT met" in out and "above the goal" in result.stderr
    assert_ran(
        bench("bench_pages", "--scale", "0.01", "--repeat", "1", "--only", "floor", "--max-p95-ms", "60000"),
        "floor: /api/v1/me",
        "goal: every pattern p95 <= 60000 ms: met",
    )


@pytest.mark.django_db
def test_bench_pages_names_every_get_pattern_it_does_not_measure(owner):
    """The bench refuses to run while a URL pattern answering GET is neither measured nor named with a reason: with
    nothing measured, pages and API reads are reported, writes (a 405 to GET) and ``NOT_MEASURED`` are not."""
    from django.test import Client

    from tests.bench.pages_patterns import NOT_MEASURED, Pattern, unmeasured

    client = Client()
    client.force_login(owner)
    missing = unmeasured(client, [Pattern("page targets", "/targets/")])
    assert {"home", "journey-campaign-dashboard", "api-targets", "api-sms-attempts", "chain-run-export"} <= missing
    assert "target-list" not in missing  # measured
    assert not missing & {"journey-campaign-control", "chain-submit", "browser-proxy-reset"}  # writes
    assert not missing & set(NOT_MEASURED)


@pytest.mark.django_db
def test_a_data_template_is_migrated_forward_only_when_every_migration_it_recorded_is_unchanged():
    """A data template built under fewer migrations is cloned and migrated forward; one that recorded a migration
    since edited (or removed), or recorded nothing, is not a source: the rows are seeded again."""
    import json
    import uuid

    from django.db import connection
    from django.test import override_settings

    from tests.bench.harness import _forward_source, _migration_files

    with override_settings(MIGRATION_MODULES={}):  # the test database is built without them; the files are there
        files = _migration_files()
    some = dict(list(files.items())[:5])
    prefix = f"fwdsrc_{uuid.uuid4().hex[:6]}_"
    made = {
        "edited": {**some, next(iter(some)): "0" * 16},
        "removed": {**some, "campaigns.9999_gone": "1" * 16},
        "nothing": None,
    }
    with connection._nodb_cursor() as cursor:
        try:
            for name, recorded in made.items():
                cursor.execute(f'CREATE DATABASE "{prefix}{name}"')
                if recorded is not None:
                    comment = json.dumps({"migrations": recorded})
                    cursor.execute(f'COMMENT ON DATABASE "{prefix}{name}" IS %s', [comment])
            assert _forward_source(cursor, prefix, files) is None
            cursor.execute(f'CREATE DATABASE "{prefix}older"')
            cursor.execute(f'COMMENT ON DATABASE "{prefix}older" IS %s', [json.dumps({"migrations": some})])
            assert _forward_source(cursor, prefix, files) == f"{prefix}older"
        finally:
            for name in (*made, "older"):
                cursor.execute(f'DROP DATABASE IF EXISTS "{prefix}{name}"')


def test_bench_targets_bulk_prints_the_rates_and_fails_below_the_ratio(hermetic):
    result = bench("bench_targets_bulk", "--rows", "50", "--calls", "2", "--min-ratio", "1000")
    assert result.returncode == 1, result.stdout + result.stderr
    for line in ("bulk upsert, new targets", "(unchanged)", "(updated)", "bare bulk_create", "rows/s", "FAIL"):
        assert line in result.stdout
    assert "below the goal" in result.stderr
