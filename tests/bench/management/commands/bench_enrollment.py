"""Benchmark enrollment (PostgreSQL): the review's preview + commit and the direct add of N targets, next to a
multi-row INSERT of the same rows.

    python manage.py bench_enrollment --targets 20000 [--min-ratio 0.2]

Creates a bench workspace with 2 × N targets and a journey (start → wait 1 day → end, no channel), then
measures in one run: the preview (classification into invalid / blacklisted / already live / conflict /
ready, items written), the commit (re-check + the background job's chunks: executions and their
``enrolled`` events, item outcomes, progress), the direct add of the other N targets (``enroll_subjects``,
what the API's add without review runs: one set-based check and one insert per chunk, no items), and two
baselines writing the same execution and event
rows into other campaigns with no checks at all: plain multi-row ``INSERT … VALUES`` statements (1,000
rows each, PostgreSQL's own ``$n`` placeholders so the driver does no per-parameter parsing) and a bare
``INSERT … SELECT FROM unnest`` (what the enrollment writer itself does per chunk). The commit's ratio is
taken against the multi-row INSERT; ``--min-ratio`` exits 1 below it.

It runs in a database of its own (``tests.bench.harness``: cloned from a migrated template,
VACUUM ANALYZEd after the set-up, dropped at the end): the command leaves no rows behind.
"""

from __future__ import annotations

import time
import uuid

import psycopg
from django.contrib.auth import get_user_model
from django.contrib.contenttypes.models import ContentType
from django.core.management.base import BaseCommand, CommandError
from django.db import connection
from django.utils import timezone

from automation.engine.graph import published_graph
from automation.models import Execution, ExecutionEvent
from automation.services.campaigns import journey_campaign_create, journey_campaign_transition
from automation.services.enrollment import MAX_SUBJECTS, enroll_subjects
from automation.services.enrollment_batches import (
    enrollment_batch_commit,
    enrollment_batch_preview,
    enrollment_batch_run,
)
from automation.services.workflows import workflow_create, workflow_graph_save, workflow_publish
from campaigns.choices import Role
from campaigns.models import Target, Workspace
from campaigns.platform.tenancy import Actor
from campaigns.services.workspaces import membership_set
from tests.bench.harness import GoalTable, bench_database, vacuum_analyze

GRAPH = {
    "nodes": [
        {"node_key": "start", "type": "start", "subtype": "manual", "config": {}},
        {
            "node_key": "wait",
            "type": "wait",
            "subtype": "duration",
            "config": {"mode": "duration", "amount": 1, "unit": "days"},
        },
        {"node_key": "end", "type": "end", "subtype": "complete", "config": {"behavior": "complete"}},
    ],
    "edges": [{"from": "start", "to": "wait"}, {"from": "wait", "to": "end"}],
    "settings": {},
}
ROWS_PER_INSERT = 1000
GOAL_RATE = 20000  # executions/s
GOAL_PREVIEW = 2.0  # seconds for 20,000 targets


class Command(BaseCommand):
    help = "Enrollment benchmark: preview + commit of N targets vs a multi-row INSERT of the same rows."

    def add_arguments(self, parser):
        parser.add_argument("--targets", type=int, default=20000)
        parser.add_argument("--min-ratio", type=float, help="fail (exit 1) when commit / INSERT is below this")

    def handle(self, *args, **options):
        if connection.vendor != "postgresql":
            raise CommandError("bench_enrollment needs PostgreSQL (DATABASE_URL=postgres://…).")
        n = options["targets"]
        result: dict = {}
        with bench_database():
            self._run(n, result)
        out = self.stdout.write
        preview_goal = GOAL_PREVIEW * n / 20000
        commit_rate = n / result["commit"]
        insert_rate = n / result["insert"]
        unnest_rate = n / result["unnest"]
        out(f"targets: {n} (in a database of the run, dropped: no rows left)")
        out(
            f"preview: {result['preview']:.2f} s ({n / result['preview']:,.0f} targets/s)"
            f"  [goal < {preview_goal:.1f} s for {n:,}]"
        )
        job = result["commit"] - result["recheck"]
        out(
            f"commit: {result['commit']:.2f} s → {commit_rate:,.0f} executions/s (with their enrolled events;"
            f" re-check and 409 rule {result['recheck']:.2f} s, the job's chunks {job:.2f} s)"
        )
        out(f"  [goal ≥ {GOAL_RATE:,}/s: {'met' if commit_rate >= GOAL_RATE else 'NOT met'}]")
        direct_rate = n / result["direct"]
        out(
            f"direct add (enroll_subjects, no review) of {n:,} other targets: {result['direct']:.2f} s →"
            f" {direct_rate:,.0f} executions/s"
        )
        out(f"  [goal ≥ {GOAL_RATE:,}/s: {'met' if direct_rate >= GOAL_RATE else 'NOT met'}]")
        out(f"multi-row INSERT of the same rows: {result['insert']:.2f} s → {insert_rate:,.0f} rows/s")
        out(
            f"bare INSERT … SELECT unnest of the same rows: {result['unnest']:.2f} s → {unnest_rate:,.0f} rows/s"
            f" (commit = {100 * commit_rate / unnest_rate:.0f}% of it)"
        )
        goals = GoalTable()
        goals.add("commit / multi-row INSERT", commit_rate / insert_rate, ">= 20 %", options["min_ratio"])
        goals.add("direct add / multi-row INSERT", direct_rate / insert_rate, ">= 20 %", options["min_ratio"])
        goals.report(out, self.stderr)

    def _run(self, n: int, result: dict) -> None:
        slug = f"bench-{uuid.uuid4().hex[:8]}"
        workspace = Workspace.objects.create(name=slug, slug=slug)
        user = get_user_model().objects.create_user(slug)
        actor = Actor(
            user=user, workspace=workspace, membership=membership_set(workspace=workspace, user=user, role=Role.OWNER)
        )
        base = 9120000000
        for start in range(0, 2 * n, 5000):
            Target.objects.bulk_create(
                [
                    Target(workspace=workspace, name=f"t{i}", mobile=f"+98{base + i}")
                    for i in range(start, min(2 * n, start + 5000))
                ]
            )
        workflow = workflow_create(actor=actor, name="bench")
        workflow_graph_save(actor=actor, workflow_id=workflow.id, graph_data=GRAPH)
        workflow_publish(actor=actor, workflow_id=workflow.id)
        campaigns = []
        for name in ("bench", "direct add", "multi-row insert", "unnest insert"):
            campaign = journey_campaign_create(actor=actor, name=name, workflow_id=workflow.id)
            journey_campaign_transition(actor=actor, campaign_id=campaign.id, action="activate")
            campaigns.append(campaign)
        campaign, direct, floor, bare = campaigns
        all_ids = list(Target.objects.filter(workspace=workspace).order_by("id").values_list("id", flat=True))
        ids, other_ids = all_ids[:n], all_ids[n:]
        vacuum_analyze(*(m._meta.db_table for m in (Target, Execution, ExecutionEvent)))

        started = time.perf_counter()
        batch = enrollment_batch_preview(actor=actor, campaign_id=campaign.id, target_ids=ids)
        result["preview"] = time.perf_counter() - started

        started = time.perf_counter()
        batch = enrollment_batch_commit(actor=actor, batch_id=batch.id, enqueue=lambda _id: None)
        result["recheck"] = time.perf_counter() - started
        enrollment_batch_run(batch_id=batch.id)  # what the background job does
        result["commit"] = time.perf_counter() - started
        added = Execution.objects.filter(campaign=campaign).count()
        events = ExecutionEvent.objects.filter(campaign=campaign, type="enrolled").count()
        if added != n or events != n:
            raise CommandError(f"{added} executions and {events} events for {n} targets")

        started = time.perf_counter()
        for start in range(0, n, MAX_SUBJECTS):  # one call accepts at most MAX_SUBJECTS
            enroll_subjects(actor=actor, campaign_id=direct.id, target_ids=other_ids[start : start + MAX_SUBJECTS])
        result["direct"] = time.perf_counter() - started
        if Execution.objects.filter(campaign=direct).count() != n:
            raise CommandError("the direct add did not add every target")

        started = time.perf_counter()
        self._insert(floor, ids)
        result["insert"] = time.perf_counter() - started

        started = time.perf_counter()
        self._unnest(bare, ids)
        result["unnest"] = time.perf_counter() - started

    @staticmethod
    def _rows(campaign) -> tuple[list, list]:
        """The constant columns of an execution and of its event (the same values the commit writes)."""
        journey = campaign.journey
        first = published_graph(journey.workflow_version_id).first_step()
        ct = ContentType.objects.get_for_model(Target).id
        now = timezone.now()
        execution = [now, now, campaign.workspace_id, campaign.id, journey.workflow_id, journey.workflow_version_id]
        execution += [ct, first.id, first.consumes_budget, 1, "active", now, now, now, now, "", "", 0, 1, "", "{}"]
        event = [campaign.workspace_id, campaign.id, ct, first.id, "enrolled", "", "active", "", "{}", now]
        return execution, event

    EX_COLS = (
        "created_at, updated_at, workspace_id, campaign_id, workflow_id, version_id, subject_type_id, "
        "current_node_id, needs_budget, cycle, status, eligible_at, next_run_at, node_entered_at, started_at, "
        "paused_from_status, end_reason, retry_count, revision, last_error, metadata, subject_id"
    )
    EV_COLS = (
        "workspace_id, campaign_id, subject_type_id, node_id, type, from_status, to_status, message, data, "
        "occurred_at, execution_id, subject_id"
    )

    def _insert(self, campaign, ids: list[int]) -> None:
        """Baseline: executions, then their events, as plain multi-row INSERT … VALUES statements."""
        execution, event = self._rows(campaign)
        ex, ev = Execution._meta.db_table, ExecutionEvent._meta.db_table
        cursor = psycopg.RawCursor(connection.connection)  # $n placeholders: no client-side query parsing

        def values(rows: int, width: int) -> str:
            return ", ".join("(" + ", ".join(f"${r * width + c + 1}" for c in range(width)) + ")" for r in range(rows))

        for start in range(0, len(ids), ROWS_PER_INSERT):
            chunk = ids[start : start + ROWS_PER_INSERT]
            params: list = []
            for tid in chunk:
                params += execution
                params.append(tid)
            # Table and column names come from the models; every value is a parameter.
            sql = f"INSERT INTO {ex} ({self.EX_COLS}) VALUES {values(len(chunk), 22)} RETURNING id, subject_id"
            cursor.execute(sql, params)
            created = cursor.fetchall()
            params = []
            for execution_id, tid in created:
                params += event
                params += [execution_id, tid]
            cursor.execute(f"INSERT INTO {ev} ({self.EV_COLS}) VALUES {values(len(created), 12)}", params)

    def _unnest(self, campaign, ids: list[int]) -> None:
        """Second reference: the same rows as one ``INSERT … SELECT FROM unnest`` per 500 (no checks, no ORM)."""
        execution, event = self._rows(campaign)
        ex, ev = Execution._meta.db_table, ExecutionEvent._meta.db_table
        cursor = psycopg.RawCursor(connection.connection)
        ex_marks = ", ".join(f"${i + 1}" for i in range(21))
        ev_marks = ", ".join(f"${i + 23}" for i in range(10))
        sql = (
            f"WITH ins AS (INSERT INTO {ex} ({self.EX_COLS}) SELECT {ex_marks}, s FROM unnest($22::bigint[]) AS s "
            f"RETURNING id, subject_id) INSERT INTO {ev} ({self.EV_COLS}) SELECT {ev_marks}, id, subject_id FROM ins"
        )
        for start in range(0, len(ids), 500):
            cursor.execute(sql, [*execution, ids[start : start + 500], *event])
