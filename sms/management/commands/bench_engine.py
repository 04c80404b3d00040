"""Benchmark the engine end to end with simulated time (PostgreSQL).

    python manage.py bench_engine --targets 100000 --naive-targets 2000

Enrolls N targets into SMS → wait 1 day → SMS (console provider, accepts at
once), drives scheduler ticks and workers in this process with simulated time
until every execution is complete, and prints journey steps/s, enrollment
rate and peak worker memory, then the same writes as (a) the best raw-SQL
batched loop and (b) the naive "one Celery task per step, per-row ORM saves"
design, as ratios. Everything it creates lives in a fresh bench workspace.
"""

from __future__ import annotations

import gc
import logging
import resource
import time
import uuid
from datetime import timedelta

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError
from django.db import connection, transaction
from django.utils import timezone

from automation.choices import LIVE_STATUSES, EventType, ExecutionStatus
from automation.engine.batch import process_batch
from automation.engine.graph import published_graph
from automation.engine.scheduler import tick
from automation.models import Execution, ExecutionEvent
from automation.services.campaigns import journey_campaign_create, journey_campaign_transition
from automation.services.enrollment import MAX_SUBJECTS, enroll_subjects
from automation.services.workflows import workflow_create, workflow_graph_save, workflow_publish
from campaigns.choices import Role
from campaigns.models import Target, Workspace
from campaigns.platform.tenancy import Actor
from campaigns.services.workspaces import membership_set

GRAPH = {
    "nodes": [
        {"node_key": "start", "type": "start", "subtype": "manual", "config": {}},
        {"node_key": "sms1", "type": "action", "subtype": "send_sms", "config": {"body": "سلام {first_name}"}},
        {
            "node_key": "wait",
            "type": "wait",
            "subtype": "duration",
            "config": {"mode": "duration", "amount": 1, "unit": "days"},
        },
        {"node_key": "sms2", "type": "action", "subtype": "send_sms", "config": {"body": "یادآوری {first_name}"}},
        {"node_key": "end", "type": "end", "subtype": "complete", "config": {"behavior": "complete"}},
    ],
    "edges": [
        {"from": "start", "to": "sms1"},
        {"from": "sms1", "to": "wait"},
        {"from": "wait", "to": "sms2"},
        {"from": "sms2", "to": "end"},
    ],
    "settings": {},
}
STEPS_PER_TARGET = 3  # sms, wait, sms


def rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


class Command(BaseCommand):
    help = "Engine benchmark: journey steps/s vs a raw-SQL floor and a naive per-task design."

    def add_arguments(self, parser):
        parser.add_argument("--targets", type=int, default=10000)
        parser.add_argument("--naive-targets", type=int, default=1000)
        parser.add_argument("--batch", type=int, default=500, help="executions per simulated worker task")

    def handle(self, *args, **options):
        if connection.vendor != "postgresql":
            raise CommandError("bench_engine needs PostgreSQL (DATABASE_URL=postgres://…).")
        for name in ("sms.console", "celery.app.trace"):
            logging.getLogger(name).setLevel(logging.WARNING)
        n = options["targets"]
        actor = self._setup(n)
        engine = self._engine(actor, n, options["batch"])
        raw = self._raw_sql(n)
        naive = self._naive(actor, options["naive_targets"])
        out = self.stdout.write
        out(f"targets: {n}; journey steps: {engine['steps']} (SMS → wait 1 day → SMS)")
        out(f"enrollment: {engine['enroll_rate']:.0f} targets/s")
        out(f"engine end to end: {engine['rate']:.0f} steps/s ({engine['seconds']:.1f} s, {engine['ticks']} ticks)")
        out(f"  of which ticks {engine['tick_seconds']:.1f} s, workers {engine['work_seconds']:.1f} s")
        out(f"  peak RSS: {engine['rss_before']:.0f} MB before driving → {engine['rss_after']:.0f} MB after")
        share = 100 * engine["rate"] / raw["rate"]
        out(f"(a) raw-SQL batched floor: {raw['rate']:.0f} steps/s → engine = {share:.0f}% of it")
        out(f"    raw batched claim {raw['claim_rate']:.0f} rows/s, = ANY update {raw['update_rate']:.0f} rows/s")
        out(
            f"(b) naive per-step task + per-row saves ({naive['targets']} targets): {naive['rate']:.0f} steps/s, "
            f"RSS {naive['rss']:.0f} MB → engine = {engine['rate'] / naive['rate']:.1f}×"
        )

    # --- setup ------------------------------------------------------------------------------------
    def _setup(self, n: int) -> Actor:
        from sms.models import SmsProviderAccount, SmsSettings

        slug = f"bench-{uuid.uuid4().hex[:8]}"
        workspace = Workspace.objects.create(name=slug, slug=slug)
        user = get_user_model().objects.create_user(slug)
        membership = membership_set(workspace=workspace, user=user, role=Role.OWNER)
        account = SmsProviderAccount.objects.create(
            workspace=workspace, name="console", provider="console", senders=["1000"]
        )
        SmsSettings.objects.create(workspace=workspace, primary_account=account)
        base = 9120000000
        for start in range(0, n, 5000):
            Target.objects.bulk_create(
                [
                    Target(workspace=workspace, name=f"t{i}", first_name="علی", mobile=f"+98{base + i}")
                    for i in range(start, min(n, start + 5000))
                ]
            )
        return Actor(user=user, workspace=workspace, membership=membership)

    # --- the engine ---------------------------------------------------------------------------------
    def _engine(self, actor: Actor, n: int, batch_size: int) -> dict:
        workflow = workflow_create(actor=actor, name="bench")
        workflow_graph_save(actor=actor, workflow_id=workflow.id, graph_data=GRAPH)
        workflow_publish(actor=actor, workflow_id=workflow.id)
        campaign = journey_campaign_create(actor=actor, name="bench", workflow_id=workflow.id)
        journey_campaign_transition(actor=actor, campaign_id=campaign.id, action="activate")
        ids = list(Target.objects.filter(workspace=actor.workspace).values_list("id", flat=True))
        started = time.perf_counter()
        for start in range(0, len(ids), MAX_SUBJECTS):  # one call accepts at most MAX_SUBJECTS
            enroll_subjects(actor=actor, campaign_id=campaign.id, target_ids=ids[start : start + MAX_SUBJECTS])
        enroll_seconds = time.perf_counter() - started
        gc.collect()
        rss_before = rss_mb()
        now = timezone.now()
        ticks, tick_seconds, work_seconds = 0, 0.0, 0.0
        started = time.perf_counter()
        while True:
            claimed: list = []
            t = time.perf_counter()
            tick(now=now, send=claimed.extend)
            tick_seconds += time.perf_counter() - t
            ticks += 1
            t = time.perf_counter()
            for i in range(0, len(claimed), batch_size):
                process_batch(claimed[i : i + batch_size], now=now)
            work_seconds += time.perf_counter() - t
            if claimed:
                now += timedelta(seconds=1)
                continue
            live = Execution.objects.filter(campaign=campaign, status__in=LIVE_STATUSES)
            upcoming = live.order_by("next_run_at").values_list("next_run_at", flat=True).first()
            if upcoming is None:
                break
            now = max(now + timedelta(seconds=1), upcoming)
        seconds = time.perf_counter() - started
        done = Execution.objects.filter(campaign=campaign, status=ExecutionStatus.COMPLETED).count()
        if done != n:
            raise CommandError(f"only {done} of {n} executions completed")
        published_graph.cache_clear()
        return {
            "steps": n * STEPS_PER_TARGET,
            "rate": n * STEPS_PER_TARGET / seconds,
            "seconds": seconds,
            "enroll_rate": n / enroll_seconds,
            "ticks": ticks,
            "tick_seconds": tick_seconds,
            "work_seconds": work_seconds,
            "rss_before": rss_before,
            "rss_after": rss_mb(),
        }

    # --- (a) raw SQL floor ----------------------------------------------------------------------------
    def _raw_sql(self, n: int) -> dict:
        with connection.cursor() as c:
            c.execute("DROP TABLE IF EXISTS bench_raw_exec, bench_raw_attempt, bench_raw_event")
            c.execute(
                "CREATE TABLE bench_raw_exec (id bigserial primary key, status varchar(16) not null, step int not null,"
                " next_run_at timestamptz not null, lock_token uuid, revision int not null default 1)"
            )
            c.execute("CREATE INDEX ON bench_raw_exec (status, next_run_at)")
            c.execute(
                "CREATE TABLE bench_raw_attempt (id bigserial primary key, execution_id bigint, step int,"
                " key varchar(120) unique, status varchar(16), message text, request_at timestamptz)"
            )
            c.execute(
                "CREATE TABLE bench_raw_event (id bigserial primary key, execution_id bigint, type varchar(30),"
                " occurred_at timestamptz)"
            )
            c.execute(
                "INSERT INTO bench_raw_exec (status, step, next_run_at)"
                " SELECT 'active', 0, now() FROM generate_series(1, %s)",
                [n],
            )
        claim_rows = claim_time = update_rows = update_time = 0.0
        started = time.perf_counter()
        for step in range(STEPS_PER_TARGET):
            while True:
                token = uuid.uuid4()
                t = time.perf_counter()
                with transaction.atomic(), connection.cursor() as c:
                    c.execute(
                        "UPDATE bench_raw_exec SET status='queued', lock_token=%s, revision=revision+1 WHERE id IN ("
                        " SELECT id FROM bench_raw_exec WHERE status='active' AND step=%s AND next_run_at <= now()"
                        " ORDER BY next_run_at, id LIMIT 500 FOR UPDATE SKIP LOCKED) RETURNING id",
                        [token, step],
                    )
                    ids = [r[0] for r in c.fetchall()]
                claim_time += time.perf_counter() - t
                claim_rows += len(ids)
                if not ids:
                    break
                with transaction.atomic(), connection.cursor() as c:
                    if step != 1:
                        c.executemany(
                            "INSERT INTO bench_raw_attempt (execution_id, step, key, status, message, request_at)"
                            " VALUES (%s, %s, %s, 'submitted', 'سلام علی', now())",
                            [(i, step, f"{i}:{step}") for i in ids],
                        )
                    c.executemany(
                        "INSERT INTO bench_raw_event (execution_id, type, occurred_at) VALUES (%s, %s, now())",
                        [(i, "step") for i in ids],
                    )
                    t = time.perf_counter()
                    c.execute(
                        "UPDATE bench_raw_exec SET status='active', step=step+1, lock_token=NULL, revision=revision+1"
                        " WHERE id = ANY(%s)",
                        [ids],
                    )
                    update_time += time.perf_counter() - t
                    update_rows += len(ids)
        seconds = time.perf_counter() - started
        with connection.cursor() as c:
            c.execute("DROP TABLE bench_raw_exec, bench_raw_attempt, bench_raw_event")
        return {
            "rate": n * STEPS_PER_TARGET / seconds,
            "claim_rate": claim_rows / max(claim_time, 1e-9),
            "update_rate": update_rows / max(update_time, 1e-9),
        }

    # --- (b) naive design ---------------------------------------------------------------------------------
    def _naive(self, actor: Actor, m: int) -> dict:
        """One Celery task per step (applied in-process: broker round-trips are not even counted) with per-row saves."""
        from celery import shared_task

        from sms.models import SmsAttempt

        @shared_task(name="sms.bench_naive_step")
        def naive_step(execution_id: int, step: int) -> None:
            ex = Execution.objects.get(pk=execution_id)
            ex.status = ExecutionStatus.PROCESSING
            ex.save()
            node = published_graph(ex.version_id).by_key[["sms1", "wait", "sms2"][step]]
            if step != 1:
                SmsAttempt.objects.create(
                    workspace_id=ex.workspace_id,
                    execution_id=ex.id,
                    workflow_id=ex.workflow_id,
                    campaign_id=ex.campaign_id,
                    subject_type_id=ex.subject_type_id,
                    subject_id=ex.subject_id,
                    node_id=node.id,
                    phone="+989120000000",
                    message="سلام علی",
                    provider="console",
                    idempotency_key=f"naive:{ex.id}:{step}",
                    status="submitted",
                    request_at=timezone.now(),
                )
            ExecutionEvent.objects.create(
                workspace_id=ex.workspace_id,
                execution_id=ex.id,
                campaign_id=ex.campaign_id,
                subject_type_id=ex.subject_type_id,
                subject_id=ex.subject_id,
                node_id=node.id,
                type=EventType.ACTION_RESULT,
                occurred_at=timezone.now(),
            )
            ex.status = ExecutionStatus.WAITING if step < 2 else ExecutionStatus.COMPLETED
            ex.save()

        workflow = workflow_create(actor=actor, name="naive")
        workflow_graph_save(actor=actor, workflow_id=workflow.id, graph_data=GRAPH)
        workflow_publish(actor=actor, workflow_id=workflow.id)
        campaign = journey_campaign_create(actor=actor, name="naive", workflow_id=workflow.id)
        journey_campaign_transition(actor=actor, campaign_id=campaign.id, action="activate")
        ids = list(Target.objects.filter(workspace=actor.workspace).values_list("id", flat=True)[:m])
        enroll_subjects(actor=actor, campaign_id=campaign.id, target_ids=ids)
        executions = list(Execution.objects.filter(campaign=campaign).values_list("id", flat=True))
        gc.collect()
        started = time.perf_counter()
        for step in range(STEPS_PER_TARGET):
            for execution_id in executions:
                naive_step.apply(args=(execution_id, step), countdown=86400 * step)
        seconds = time.perf_counter() - started
        return {"targets": len(executions), "rate": len(executions) * STEPS_PER_TARGET / seconds, "rss": rss_mb()}
