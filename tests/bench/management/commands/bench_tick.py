"""Benchmark one scheduler tick at scale (PostgreSQL), in a database of its own.

    python manage.py bench_tick --executions 1000000 --due 10000 [--max-seconds 0.5]

One SMS journey campaign (console provider). Rows are written with ``INSERT … SELECT FROM generate_series``
(the engine is not involved in the set-up), then VACUUM ANALYZEd. Two measured ticks, each claiming
``--due`` executions waiting at a budget-consuming step and dispatching their ids through the broker
(CELERY_BROKER_URL, to a queue of this run that is deleted at the end — no worker takes them):

1. small table: only the due rows exist;
2. full table: ``--executions`` waiting rows, of which ``--due`` are due.

Both should cost the same (linear in due rows, not in total rows). Then the claim statement's plan on the
full table (``EXPLAIN (ANALYZE, BUFFERS)`` in a transaction that is rolled back). ``--max-seconds``: exit 1
when the full-table tick takes longer.
"""

from __future__ import annotations

import sys
import time
import uuid
from datetime import timedelta

from celery import current_app
from django.contrib.contenttypes.models import ContentType
from django.core.management.base import BaseCommand, CommandError
from django.db import connection, transaction
from django.utils import timezone

from automation.engine.graph import published_graph
from automation.engine.scheduler import BUDGET_ORDER, PROCESS_EXECUTIONS_TASK, claim_statement, due_selection, tick
from automation.models import Execution, ExecutionEvent
from campaigns.models import Target
from tests.bench.harness import bench_database, delete_queue, vacuum_analyze
from tests.bench.management.commands.bench_engine import GRAPH
from tests.bench.management.commands.bench_engine import Command as EngineBench

COLUMNS = (
    "created_at, updated_at, workspace_id, campaign_id, workflow_id, version_id, subject_type_id, subject_id, "
    "current_node_id, needs_budget, cycle, status, eligible_at, next_run_at, node_entered_at, started_at, "
    "paused_from_status, end_reason, retry_count, revision, last_error, metadata"
)


class Command(BaseCommand):
    help = "Scheduler tick cost: claim + dispatch of the due executions among many waiting ones."

    def add_arguments(self, parser):
        parser.add_argument("--executions", type=int, default=1_000_000, help="waiting executions in the table")
        parser.add_argument("--due", type=int, default=10_000, help="of which due at the measured tick")
        parser.add_argument("--max-seconds", type=float, help="fail (exit 1) when the full-table tick is slower")

    def handle(self, *args, **options):
        if connection.vendor != "postgresql":
            raise CommandError("bench_tick needs PostgreSQL (DATABASE_URL=postgres://…).")
        total, due = options["executions"], options["due"]
        if due > total:
            raise CommandError("--due cannot exceed --executions")
        queue = f"tick-bench-{uuid.uuid4().hex[:8]}"
        try:
            with bench_database():
                result = self._run(total, due, queue)
        finally:
            delete_queue(queue)
        out = self.stdout.write
        out(f"tick, {due} due of {due} rows   : {self._line(result['small'])}")
        out(f"tick, {due} due of {total} rows : {self._line(result['full'])}")
        out(f"set-up: {total} rows inserted in {result['insert']:.1f} s ({total / result['insert']:.0f} rows/s)")
        heap, indexes = (size / 2**20 for size in result["size"])
        per_row = 2**20 * (heap + indexes) / (total + 2 * due)
        out(f"execution table: {heap:.0f} MB of rows + {indexes:.0f} MB of indexes ({per_row:.0f} B per execution)")
        out("claim statement on the full table (EXPLAIN ANALYZE, rolled back):")
        for line in result["plan"]:
            out(f"    {line}")
        full, small = result["full"]["seconds"], result["small"]["seconds"]
        limit = options["max_seconds"]
        verdict = "" if limit is None else ("  FAIL" if full > limit else "  ok")
        out(
            f"goal: full-table tick <= 0.5 s (target); required here: {'-' if limit is None else f'<= {limit} s'}; "
            f"measured {full:.3f} s{verdict}"
        )
        out(f"full / small table: {full / small:.2f}× for {total // due}× the rows (1× = linear in due rows only)")
        if limit is not None and full > limit:
            self.stderr.write(f"the tick took {full:.3f} s, more than {limit} s")
            sys.exit(1)

    @staticmethod
    def _line(m: dict) -> str:
        return (
            f"{m['seconds']:.3f} s ({m['claimed'] / m['seconds']:.0f} claims/s; dispatch {m['dispatch']:.3f} s "
            f"in {m['messages']} messages)"
        )

    def _run(self, total: int, due: int, queue: str) -> dict:
        bench = EngineBench()
        actor = bench._setup(0)
        campaign = bench._campaign(actor, GRAPH)
        graph = published_graph(campaign.journey.workflow_version_id)
        sms2, wait = graph.by_key["sms2"], graph.by_key["wait"]
        now = timezone.now()
        fixed = {
            "ws": actor.workspace.id,
            "campaign": campaign.id,
            "workflow": campaign.journey.workflow_id,
            "version": campaign.journey.workflow_version_id,
            "ct": ContentType.objects.get_for_model(Target).id,
        }
        insert = lambda *a, **k: self._insert(fixed, *a, **k)  # noqa: E731
        self._tick(now - timedelta(hours=1), queue, 0)  # warm-up: caches, database connection
        current_app.signature(PROCESS_EXECUTIONS_TASK).apply_async(args=([],), queue=queue)  # broker connection
        result = {}
        # 1. small table: only the due rows
        insert(1, due, node=sms2.id, budget=True, at=now - timedelta(minutes=1), base=now)
        vacuum_analyze(Execution._meta.db_table, ExecutionEvent._meta.db_table)
        result["small"] = self._tick(now, queue, due)
        # 2. full table: `total` waiting rows, `due` of them due at the second tick; `due` more for EXPLAIN
        started = time.perf_counter()
        insert(due + 1, 2 * due, node=sms2.id, budget=True, at=now + timedelta(minutes=1), base=now)
        insert(2 * due + 1, 3 * due, node=sms2.id, budget=True, at=now + timedelta(minutes=3), base=now)
        rest = total - due
        insert(3 * due + 1, 2 * due + rest, node=wait.id, budget=False, at=now + timedelta(hours=1), base=now)
        result["insert"] = time.perf_counter() - started
        vacuum_analyze(Execution._meta.db_table, ExecutionEvent._meta.db_table)
        with connection.cursor() as cursor:
            table = Execution._meta.db_table
            cursor.execute("SELECT pg_table_size(%s), pg_indexes_size(%s)", [table, table])
            result["size"] = cursor.fetchone()
        result["full"] = self._tick(now + timedelta(minutes=2), queue, due)
        result["plan"] = self._explain(campaign, now + timedelta(minutes=4), due)
        return result

    def _insert(self, fixed: dict, first: int, last: int, *, node: int, budget: bool, at, base) -> None:
        """Rows first..last (subject ids); not-due rows spread over the next day."""
        spread = "interval '0'" if budget else "(g %% 86400) * interval '1 second'"
        with connection.cursor() as cursor:
            cursor.execute(
                f"INSERT INTO {Execution._meta.db_table} ({COLUMNS}) "
                f"SELECT %(base)s, %(base)s, %(ws)s, %(campaign)s, %(workflow)s, %(version)s, %(ct)s, g, %(node)s, "
                f"%(budget)s, 1, 'waiting', %(at)s + {spread}, %(at)s + {spread}, %(base)s, %(base)s, '', '', 0, 1, "
                f"'', '{{}}' FROM generate_series(%(first)s, %(last)s) AS g",
                {**fixed, "node": node, "budget": budget, "at": at, "base": base, "first": first, "last": last},
            )

    def _tick(self, now, queue: str, expected: int) -> dict:
        signature = current_app.signature(PROCESS_EXECUTIONS_TASK)
        sent = {"messages": 0, "seconds": 0.0}

        def send(chunk) -> None:
            t = time.perf_counter()
            signature.apply_async(args=([list(item) for item in chunk],), queue=queue)
            sent["seconds"] += time.perf_counter() - t
            sent["messages"] += 1

        started = time.perf_counter()
        report = tick(now=now, send=send)
        seconds = time.perf_counter() - started
        if report.claimed != expected or report.failed_campaigns:
            raise CommandError(f"the tick claimed {report.claimed} of {expected} due executions")
        return {
            "seconds": seconds,
            "claimed": report.claimed,
            "dispatch": sent["seconds"],
            "messages": sent["messages"],
        }

    def _explain(self, campaign, now, due: int) -> list[str]:
        qs = due_selection(campaign, now).filter(needs_budget=True)
        with transaction.atomic():
            sql, params, _ = claim_statement(qs, order=BUDGET_ORDER, limit=due, token=uuid.uuid4(), now=now)
            with connection.cursor() as cursor:
                cursor.execute(f"EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) {sql}", params)
                plan = [row[0] for row in cursor.fetchall()]
            transaction.set_rollback(True)
        return plan
