"""Benchmark a version migration (PostgreSQL): live executions moved to a new version, next to a bare UPDATE +
event INSERT of the same number of rows measured in the same run.

    python manage.py bench_migration --executions 50000 [--min-ratio 0.3]

Creates a bench workspace with 2 × N targets, a journey (start → wait 1 day → SMS-less end), two active campaigns
of N executions each standing at the wait on version 1, publishes version 2 (same steps, a longer wait) and
times ``version_migration_commit`` + the background job's sweep (``version_migration_run``: chunks of 5,000, one
statement each — lock, move, one ``version_migrated`` event per execution, progress). The baseline moves the
other campaign's executions with the bare minimum — ``UPDATE … SET version, node, revision WHERE id =
ANY(chunk)`` feeding an ``INSERT`` of one event each, same chunk size, no plan, no checks. Prints both rates,
the ratio and the goal (≥ 10,000 executions/s); ``--min-ratio`` exits 1 below it.

It runs in a database of its own (``tests.bench.harness``), dropped at the end.
"""

from __future__ import annotations

import time
import uuid

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError
from django.db import connection, transaction

from automation.models import CampaignJourney, Execution, ExecutionEvent, WorkflowNode
from automation.services.campaigns import journey_campaign_create, journey_campaign_transition
from automation.services.enrollment import MAX_SUBJECTS, enroll_subjects
from automation.services.version_migrations import CHUNK, version_migration_commit, version_migration_run
from automation.services.workflows import workflow_create, workflow_graph_save, workflow_new_draft, workflow_publish
from campaigns.choices import Role
from campaigns.models import Target, Workspace
from campaigns.platform.tenancy import Actor
from campaigns.services.workspaces import membership_set
from tests.bench.harness import GoalTable, bench_database, vacuum_analyze

GOAL_RATE = 10000  # executions/s


def graph(days: int) -> dict:
    return {
        "nodes": [
            {"node_key": "start", "type": "start", "subtype": "manual", "config": {}},
            {
                "node_key": "wait",
                "type": "wait",
                "subtype": "duration",
                "config": {"mode": "duration", "amount": days, "unit": "days"},
            },
            {"node_key": "end", "type": "end", "subtype": "complete", "config": {"behavior": "complete"}},
        ],
        "edges": [{"from": "start", "to": "wait"}, {"from": "wait", "to": "end"}],
        "settings": {},
    }


class Command(BaseCommand):
    help = "Version migration benchmark: N live executions moved to a new version vs a bare UPDATE + INSERT."

    def add_arguments(self, parser):
        parser.add_argument("--executions", type=int, default=50000)
        parser.add_argument("--min-ratio", type=float, help="fail (exit 1) when migration / bare is below this")

    def handle(self, *args, **options):
        if connection.vendor != "postgresql":
            raise CommandError("bench_migration needs PostgreSQL (DATABASE_URL=postgres://…).")
        n = options["executions"]
        result: dict = {}
        with bench_database():
            self._run(n, result)
        out = self.stdout.write
        rate, bare = n / result["migration"], n / result["bare"]
        out(f"executions: {n:,} (in a database of the run, dropped: no rows left)")
        out(
            f"migration (commit {result['commit']:.2f} s + sweep): {result['migration']:.2f} s → {rate:,.0f}"
            f" executions/s (with their version_migrated events)"
        )
        out(f"  [goal ≥ {GOAL_RATE:,}/s: {'met' if rate >= GOAL_RATE else 'NOT met'}]")
        out(f"bare UPDATE + event INSERT of the same number of rows: {result['bare']:.2f} s → {bare:,.0f} rows/s")
        goals = GoalTable()
        goals.add("migration / bare UPDATE + INSERT", rate / bare, "report", options["min_ratio"])
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
        workflow_graph_save(actor=actor, workflow_id=workflow.id, graph_data=graph(1))
        old = workflow_publish(actor=actor, workflow_id=workflow.id)
        campaigns = []
        for name in ("migrated", "bare"):
            campaign = journey_campaign_create(actor=actor, name=name, workflow_id=workflow.id)
            journey_campaign_transition(actor=actor, campaign_id=campaign.id, action="activate")
            campaigns.append(campaign)
        ids = list(Target.objects.filter(workspace=workspace).order_by("id").values_list("id", flat=True))
        for campaign, part in zip(campaigns, (ids[:n], ids[n:]), strict=True):
            for start in range(0, n, MAX_SUBJECTS):
                enroll_subjects(actor=actor, campaign_id=campaign.id, target_ids=part[start : start + MAX_SUBJECTS])
        workflow_new_draft(actor=actor, workflow_id=workflow.id)
        workflow_graph_save(actor=actor, workflow_id=workflow.id, graph_data=graph(2))
        new = workflow_publish(actor=actor, workflow_id=workflow.id)
        # Only the first campaign is migrated: the baseline's executions must stay on version 1.
        CampaignJourney.objects.filter(pk=campaigns[1].pk).update(workflow_version=old)
        vacuum_analyze(*(m._meta.db_table for m in (Target, Execution, ExecutionEvent)))

        started = time.perf_counter()
        migration = version_migration_commit(
            actor=actor,
            workflow_id=workflow.id,
            from_version_id=old.id,
            to_version_id=new.id,
            campaign_id=campaigns[0].id,
            enqueue=lambda *a, **k: None,
        )
        result["commit"] = time.perf_counter() - started
        migration = version_migration_run(migration_id=str(migration.pk), enqueue=lambda *a, **k: None)
        result["migration"] = time.perf_counter() - started
        moved = Execution.objects.filter(campaign=campaigns[0], version_id=new.id).count()
        events = ExecutionEvent.objects.filter(campaign_id=campaigns[0].id, type="version_migrated").count()
        if moved != n or events != n or migration.status != "done":
            raise CommandError(f"{moved} moved, {events} events for {n} ({migration.status})")

        node = WorkflowNode.objects.get(version=new, node_key="wait")
        bare_ids = list(Execution.objects.filter(campaign=campaigns[1]).order_by("id").values_list("id", flat=True))
        started = time.perf_counter()
        self._bare(bare_ids, new.id, node.id)
        result["bare"] = time.perf_counter() - started

    @staticmethod
    def _bare(ids: list[int], version_id: int, node_id: int) -> None:
        ex, ev = Execution._meta.db_table, ExecutionEvent._meta.db_table
        # Table names come from the models; every value is a parameter.
        sql = f"""
            WITH u AS (
                UPDATE {ex} SET version_id = %s, current_node_id = %s, revision = revision + 1, updated_at = now()
                WHERE id = ANY(%s::bigint[])
                RETURNING id, workspace_id, campaign_id, subject_type_id, subject_id, current_node_id
            )
            INSERT INTO {ev} (workspace_id, execution_id, campaign_id, subject_type_id, subject_id, node_id, type,
                              from_status, to_status, message, data, occurred_at)
            SELECT workspace_id, id, campaign_id, subject_type_id, subject_id, current_node_id, 'version_migrated',
                   '', '', '', '{{}}'::jsonb, now() FROM u
        """
        for start in range(0, len(ids), CHUNK):
            with transaction.atomic(), connection.cursor() as cursor:
                cursor.execute(sql, [version_id, node_id, ids[start : start + CHUNK]])
