"""Benchmark the engine end to end (PostgreSQL), in a database of its own.

    python manage.py bench_engine --targets 10000 --naive-targets 1000 [--min-ratio 0.25 --min-naive 10]
    python manage.py bench_engine --broker --targets 10000 [--workers 2 --min-ratio 0.15]

Enrolls N targets into SMS → wait → SMS (console provider, accepts at once) and drives them to the end,
then measures the same writes as (a) the best raw-SQL batched loop — once before and once after the engine, the
ratio taken against their mean, so a machine whose speed drifts during the run (shared cores) moves both sides —
and (b) the naive "one Celery task per step, per-row ORM saves" design, and prints the ratios next to the goals.

In process (default): scheduler ticks and ``process_batch`` run in this process with simulated time (the
wait is one day; the clock jumps to the next due moment). ``--broker``: the command runs a real tick whenever
an execution is due (polled every 0.1 s, real time) and real ``celery -A config worker -Q <engine queue>``
processes, started here on CELERY_BROKER_URL and pointed at the benchmark's database, run the batches. Real
time cannot jump a day, so the journey's wait is "until" a fixed moment: the estimated end of enrollment
(N / 1000 s after the journey is published) + ``--wait-seconds`` (the workers read the real clock).
Executions that reach it earlier park in ``waiting`` and a tick wakes them, later ones pass it at once (one
job pass fewer) — the count of parked ones is printed. When all of them parked before the moment, the time
between the last one parking and the moment (the clock waiting, no work possible) is not counted, and
printed.

Every phase runs in a fresh database cloned from a migrated template (``tests.bench.harness``),
VACUUM ANALYZEd before measuring and dropped at the end: a run leaves no rows behind.
"""

from __future__ import annotations

import gc
import json
import logging
import resource
import time
import uuid
from datetime import timedelta

from celery import current_app
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError
from django.db import connection, transaction
from django.utils import timezone

from automation.choices import LIVE_STATUSES, EventType, ExecutionStatus
from automation.engine.batch import process_batch
from automation.engine.graph import published_graph
from automation.engine.scheduler import PROCESS_EXECUTIONS_TASK, due_selection, tick
from automation.models import Execution, ExecutionEvent
from automation.services.campaigns import journey_campaign_create, journey_campaign_transition
from automation.services.enrollment import MAX_SUBJECTS, enroll_subjects
from automation.services.workflows import workflow_create, workflow_graph_save, workflow_publish
from campaigns.choices import Role
from campaigns.models import Target, Workspace
from campaigns.platform.collector import freeze_loaded
from campaigns.platform.tenancy import Actor
from campaigns.services.workspaces import membership_set
from sms.models import SmsAttempt
from tests.bench.harness import (
    CeleryWorkers,
    GoalTable,
    bench_database,
    database_url,
    delete_queue,
    vacuum_analyze,
)

WAIT_ONE_DAY = {"mode": "duration", "amount": 1, "unit": "days"}


def journey_graph(wait: dict) -> dict:
    return {
        "nodes": [
            {"node_key": "start", "type": "start", "subtype": "manual", "config": {}},
            {"node_key": "sms1", "type": "action", "subtype": "send_sms", "config": {"body": "سلام {first_name}"}},
            {"node_key": "wait", "type": "wait", "subtype": wait["mode"], "config": wait},
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


GRAPH = journey_graph(WAIT_ONE_DAY)
STEPS_PER_TARGET = 3  # sms, wait, sms
MEASURED_TABLES = tuple(m._meta.db_table for m in (Execution, ExecutionEvent, SmsAttempt, Target))


def rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


class Command(BaseCommand):
    help = "Engine benchmark: journey steps/s vs a raw-SQL floor and a naive per-task design."

    def add_arguments(self, parser):
        parser.add_argument("--targets", type=int, default=10000)
        parser.add_argument("--naive-targets", type=int, default=1000)
        parser.add_argument("--batch", type=int, default=500, help="executions per simulated worker task")
        parser.add_argument("--broker", action="store_true", help="real Celery workers through the broker")
        parser.add_argument("--workers", type=int, default=2, help="--broker: worker processes (prefork -c)")
        parser.add_argument(
            "--wait-seconds", type=float, default=3.0, help="--broker: the wait ends this long after the drive starts"
        )
        parser.add_argument("--timeout", type=float, default=1800, help="--broker: give up after this many seconds")
        parser.add_argument(
            "--min-ratio", type=float, help="fail (exit 1) when engine / raw floor is below this, e.g. 0.25"
        )
        parser.add_argument("--min-naive", type=float, help="fail (exit 1) when engine / naive is below this, e.g. 10")

    def handle(self, *args, **options):
        if connection.vendor != "postgresql":
            raise CommandError("bench_engine needs PostgreSQL (DATABASE_URL=postgres://…).")
        for name in ("sms.console", "celery.app.trace"):
            logging.getLogger(name).setLevel(logging.WARNING)
        n, broker = options["targets"], options["broker"]
        with bench_database():
            raw_before = self._raw_sql(n)
        with bench_database():
            actor = self._setup(n)
            if broker:
                engine = self._engine_broker(actor, n, options)
            else:
                engine = self._engine(actor, n, options["batch"])
        with bench_database():  # the floor again: the ratio is taken against both sides of the engine's run
            raw_after = self._raw_sql(n)
        raw = {key: (raw_before[key] + raw_after[key]) / 2 for key in raw_before}
        with bench_database():
            naive = self._naive(self._setup(options["naive_targets"]), options["naive_targets"])
        out = self.stdout.write
        mode = f"through the broker, {options['workers']} worker processes" if broker else "in process"
        out(f"targets: {n}; journey steps: {engine['steps']} (SMS → wait → SMS); engine {mode}")
        out(f"enrollment: {engine['enroll_rate']:.0f} targets/s")
        out(f"engine end to end: {engine['rate']:.0f} steps/s ({engine['seconds']:.1f} s, {engine['ticks']} ticks)")
        work = "the rest: waiting for the workers" if broker else "workers"
        out(f"  of which ticks {engine['tick_seconds']:.1f} s, {work} {engine['work_seconds']:.1f} s")
        if broker:
            out(
                f"  {engine['parked']} of {n} executions parked at the wait and were woken by a tick; "
                f"{engine['idle']:.1f} s between the last one parking and the wait's moment not counted"
            )
        else:
            out(f"  peak RSS: {engine['rss_before']:.0f} MB before driving → {engine['rss_after']:.0f} MB after")
        share = engine["rate"] / raw["rate"]
        out(
            f"(a) raw-SQL batched floor: {raw['rate']:.0f} steps/s (mean of {raw_before['rate']:.0f} before and "
            f"{raw_after['rate']:.0f} after the engine) → engine = {100 * share:.0f}% of it"
        )
        out(f"    raw batched claim {raw['claim_rate']:.0f} rows/s, = ANY update {raw['update_rate']:.0f} rows/s")
        out(
            f"(b) naive per-step task + per-row saves ({naive['targets']} targets): {naive['rate']:.0f} steps/s, "
            f"RSS {naive['rss']:.0f} MB → engine = {engine['rate'] / naive['rate']:.1f}×"
        )
        goals = GoalTable()
        goals.add("engine / (a) raw floor", share, ">= 15 %" if broker else ">= 25 %", options["min_ratio"])
        goals.add("engine / (b) naive", engine["rate"] / naive["rate"], ">= 10×", options["min_naive"], percent=False)
        goals.report(out, self.stderr)

    # --- setup ------------------------------------------------------------------------------------
    def _setup(self, n: int, *, provider: str = "console", credentials: dict | None = None) -> Actor:
        """A workspace with ``n`` targets whose SMS go through one ``provider`` account (the primary)."""
        from sms.models import SmsProviderAccount, SmsSettings

        slug = f"bench-{uuid.uuid4().hex[:8]}"
        workspace = Workspace.objects.create(name=slug, slug=slug)
        user = get_user_model().objects.create_user(slug)
        membership = membership_set(workspace=workspace, user=user, role=Role.OWNER)
        account = SmsProviderAccount.objects.create(
            workspace=workspace,
            name=provider,
            provider=provider,
            credentials=json.dumps(credentials) if credentials else "",
            senders=["1000"],
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
        vacuum_analyze(*MEASURED_TABLES)
        return Actor(user=user, workspace=workspace, membership=membership)

    # --- the engine ---------------------------------------------------------------------------------
    def _campaign(self, actor: Actor, graph: dict, name: str = "bench"):
        workflow = workflow_create(actor=actor, name=name)
        workflow_graph_save(actor=actor, workflow_id=workflow.id, graph_data=graph)
        workflow_publish(actor=actor, workflow_id=workflow.id)
        campaign = journey_campaign_create(actor=actor, name=name, workflow_id=workflow.id)
        journey_campaign_transition(actor=actor, campaign_id=campaign.id, action="activate")
        return campaign

    def _enroll(self, actor: Actor, campaign) -> float:
        ids = list(Target.objects.filter(workspace=actor.workspace).values_list("id", flat=True))
        started = time.perf_counter()
        for start in range(0, len(ids), MAX_SUBJECTS):  # one call accepts at most MAX_SUBJECTS
            enroll_subjects(actor=actor, campaign_id=campaign.id, target_ids=ids[start : start + MAX_SUBJECTS])
        seconds = time.perf_counter() - started
        vacuum_analyze(*MEASURED_TABLES)  # what autovacuum would have done by the first tick
        return len(ids) / seconds

    def _engine(self, actor: Actor, n: int, batch_size: int) -> dict:
        campaign = self._campaign(actor, GRAPH)
        enroll_rate = self._enroll(actor, campaign)
        freeze_loaded()  # as a worker process does once it has loaded everything (config.celery)
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
        self._check_done(campaign, n)
        published_graph.cache_clear()
        return {
            "steps": n * STEPS_PER_TARGET,
            "rate": n * STEPS_PER_TARGET / seconds,
            "seconds": seconds,
            "enroll_rate": enroll_rate,
            "ticks": ticks,
            "tick_seconds": tick_seconds,
            "work_seconds": work_seconds,
            "rss_before": rss_before,
            "rss_after": rss_mb(),
        }

    def _check_done(self, campaign, n: int) -> None:
        done = Execution.objects.filter(campaign=campaign, status=ExecutionStatus.COMPLETED).count()
        if done != n:
            raise CommandError(f"only {done} of {n} executions completed")

    def _engine_broker(self, actor: Actor, n: int, options: dict) -> dict:
        """Real ticks (real time) here, real ``celery -A config worker`` processes on a queue of this run."""
        queue = f"engine-bench-{uuid.uuid4().hex[:8]}"  # a worker of a running site never takes these batches
        env = {"DATABASE_URL": database_url(), "LOG_LEVEL": "WARNING"}
        try:
            with CeleryWorkers(queues=queue, concurrency=options["workers"], env=env) as workers:
                # The wait ends a few seconds after enrollment's estimated end (see the module docstring).
                wake = timezone.now() + timedelta(seconds=n / 1000 + options["wait_seconds"])
                campaign = self._campaign(actor, journey_graph({"mode": "until", "at": wake.isoformat()}))
                enroll_rate = self._enroll(actor, campaign)
                signature = current_app.signature(PROCESS_EXECUTIONS_TASK)

                def send(chunk) -> None:
                    signature.apply_async(args=([list(item) for item in chunk],), queue=queue)

                executions = Execution.objects.filter(campaign=campaign)
                ticks, tick_seconds, all_parked = 0, 0.0, None
                started = time.perf_counter()
                wake_at = started + (wake - timezone.now()).total_seconds()  # the moment on this clock
                while True:
                    # A tick runs when some execution is due (the beat's tick comes every minute; ticking
                    # between the workers' batches with nothing due would only take their CPU).
                    if due_selection(campaign, timezone.now()).exists():
                        t = time.perf_counter()
                        report = tick(send=send)
                        tick_seconds += time.perf_counter() - t
                        ticks += 1
                        if report.claimed:
                            continue
                    if all_parked is None and executions.filter(status=ExecutionStatus.WAITING).count() == n:
                        all_parked = time.perf_counter()
                    if not executions.filter(status__in=LIVE_STATUSES).exists():
                        break
                    if not workers.alive():
                        raise CommandError("a Celery worker died:\n" + workers.tail())
                    if time.perf_counter() - started > options["timeout"]:
                        raise CommandError("timed out:\n" + workers.tail())
                    time.sleep(0.1)
                seconds = time.perf_counter() - started
        finally:
            delete_queue(queue)
        # Every execution parked before the moment: the clock only waited for it, no work could run.
        idle = max(0.0, wake_at - all_parked) if all_parked is not None else 0.0
        seconds -= idle
        self._check_done(campaign, n)
        parked = ExecutionEvent.objects.filter(campaign=campaign, type=EventType.WAIT_STARTED)
        parked = parked.values("execution_id").distinct().count()
        return {
            "steps": n * STEPS_PER_TARGET,
            "rate": n * STEPS_PER_TARGET / seconds,
            "seconds": seconds,
            "enroll_rate": enroll_rate,
            "ticks": ticks,
            "tick_seconds": tick_seconds,
            "work_seconds": seconds - tick_seconds,
            "parked": parked,
            "idle": idle,
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
        vacuum_analyze("bench_raw_exec", "bench_raw_attempt", "bench_raw_event")
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

        @shared_task(name="bench.naive_step")
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

        campaign = self._campaign(actor, GRAPH, "naive")
        self._enroll(actor, campaign)
        executions = list(Execution.objects.filter(campaign=campaign).values_list("id", flat=True))
        gc.collect()
        started = time.perf_counter()
        for step in range(STEPS_PER_TARGET):
            for execution_id in executions:
                naive_step.apply(args=(execution_id, step), countdown=86400 * step)
        seconds = time.perf_counter() - started
        return {"targets": len(executions), "rate": len(executions) * STEPS_PER_TARGET / seconds, "rss": rss_mb()}
