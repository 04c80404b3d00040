"""Benchmark SMS throughput against a provider that answers across the internet (PostgreSQL + Redis).

    python manage.py bench_sms --targets 100000 [--provider kavenegar --latency-ms 100 --workers 1 --concurrency 4]
    python manage.py bench_sms --targets 20000 --account-rate 300      # the account limited to 300 parts/s
    python manage.py bench_sms --targets 20000 --workers 2 --scaling   # 1 worker process, then 2: the ratio

A local fake Kavenegar or Melipayamak (the tests' fake, ``tests/sms/fake_provider.py``: threaded, on 127.0.0.1)
answers every request after ``--latency-ms`` and keeps idle connections open ``--keep-alive`` seconds (HTTP/1.1,
like a provider's front end); it takes the batches the provider takes (Kavenegar ``sms/send`` ≤ 200 receptors,
``sms/sendarray`` ≤ 200 rows of equal lengths, else 419; Melipayamak ``SendSMS`` ≤ 100 numbers), refuses a
request over its rate cap (``--cap-requests`` / ``--cap-messages`` per second) with the provider's own "too
many" answer, and logs every message it accepts. A one-SMS journey (start → SMS → end, one single-part Persian
text) goes to N targets; real ``celery -A config worker -c <concurrency>`` processes (``--workers`` of them, the
Procfile's worker shape, on a queue of this run) run the engine's batches through Redis and this process ticks
whenever an execution is due (beat's tick comes once a minute). ``--texts distinct`` gives every target a text
of its own (Kavenegar's rows of ``sms/sendarray`` instead of one text for a whole request).

Printed: messages/s from the arrival of the first accepted send request to the last accepted message, the bound
of the run — min(provider cap, account limit, worker slots × largest batch / latency) — and the ratio, the
requests the provider refused (for rate, for batch limits), duplicates (a number messaged twice), lost (an
execution completed without a message) and the projected time for 1,000,000 messages. Exit 1 on any duplicate,
loss or unfinished execution, or below ``--min-ratio``
(``--min-scaling``: N worker processes / one, with ``--scaling``). Runs in a database of its own, dropped at the end.
"""

from __future__ import annotations

import logging
import sys
import time
import uuid
from collections import Counter

from celery import current_app
from django.core.management.base import BaseCommand, CommandError
from django.db import connection
from django.db.models import CharField, Value
from django.db.models.functions import Cast, Concat
from django.utils import timezone

from automation.choices import LIVE_STATUSES, ExecutionStatus
from automation.engine.scheduler import PROCESS_EXECUTIONS_TASK, due_selection, tick
from automation.models import Execution
from campaigns.models import Target
from sms import rate_limits
from sms.models import SmsAttempt, SmsProviderAccount
from sms.providers.base import national
from tests.bench.harness import CeleryWorkers, GoalTable, bench_database, database_url, delete_queue
from tests.bench.management.commands.bench_engine import Command as EngineBench
from tests.sms.fake_provider import FakeProvider

ONE_SMS = {
    "nodes": [
        {"node_key": "start", "type": "start", "subtype": "manual", "config": {}},
        {"node_key": "sms1", "type": "action", "subtype": "send_sms", "config": {"body": "سلام {first_name}"}},
        {"node_key": "end", "type": "end", "subtype": "complete", "config": {"behavior": "complete"}},
    ],
    "edges": [{"from": "start", "to": "sms1"}, {"from": "sms1", "to": "end"}],
    "settings": {},
}
CREDENTIALS = {"kavenegar": {"api_key": "BENCH"}, "melipayamak": {"username": "bench", "password": "bench"}}
URL_SETTING = {"kavenegar": "SMS_KAVENEGAR_URL", "melipayamak": "SMS_MELIPAYAMAK_URL"}
PROJECTED = 1_000_000


def duration(seconds: float) -> str:
    hours, rest = divmod(round(seconds), 3600)
    return f"{hours} h {rest // 60:02d} min" if hours else f"{rest // 60} min {rest % 60:02d} s"


class Command(BaseCommand):
    help = "SMS throughput: a one-SMS journey through real workers to a fake provider with latency and caps."

    def add_arguments(self, parser):
        parser.add_argument("--targets", type=int, default=100_000)
        parser.add_argument("--provider", choices=sorted(CREDENTIALS), default="kavenegar")
        parser.add_argument("--latency-ms", type=float, default=100, help="the provider answers this long after")
        parser.add_argument(
            "--keep-alive",
            type=float,
            default=30,
            help="the provider keeps an idle connection open this many seconds (0: one request per connection)",
        )
        parser.add_argument("--workers", type=int, default=1, help="worker processes (hosts' worth)")
        parser.add_argument("--concurrency", type=int, default=4, help="-c of each worker (the Procfile's 4)")
        parser.add_argument("--cap-requests", type=float, help="provider: send requests per second, then refused")
        parser.add_argument("--cap-messages", type=float, help="provider: messages per second, then refused")
        parser.add_argument(
            "--account-rate",
            type=float,
            help="the account's limit in message parts per second (its messages/minute); also the provider's "
            "messages cap unless --cap-messages is given",
        )
        parser.add_argument(
            "--texts",
            choices=("same", "distinct"),
            default="same",
            help="one text for everyone (one text per request) or a text per target (rows of their own)",
        )
        parser.add_argument("--scaling", action="store_true", help="run with one worker process, then --workers")
        parser.add_argument("--timeout", type=float, default=7200, help="give up after this many seconds")
        parser.add_argument("--min-ratio", type=float, help="fail (exit 1) when measured / bound is below this")
        parser.add_argument("--min-scaling", type=float, help="--scaling: fail when N workers / 1 is below this")

    def handle(self, *args, **options):
        if connection.vendor != "postgresql":
            raise CommandError("bench_sms needs PostgreSQL (DATABASE_URL=postgres://…).")
        if not current_app.conf.broker_url.startswith("redis"):
            raise CommandError("bench_sms needs Redis (CELERY_BROKER_URL=redis://…).")
        if options["scaling"] and options["workers"] < 2:
            raise CommandError("--scaling compares --workers N (≥ 2) with one worker process.")
        logging.getLogger("celery.app.trace").setLevel(logging.WARNING)
        goals, problems, rates = GoalTable(), [], {}
        for workers in (1, options["workers"]) if options["scaling"] else (options["workers"],):
            rates[workers], found = self._measure({**options, "workers": workers}, goals)
            problems += found
        if options["scaling"]:
            scale = rates[options["workers"]] / rates[1] if rates[1] else 0.0
            label = f"{options['workers']} worker processes / 1"
            goals.add(
                label,
                scale,
                f">= {0.85 * options['workers']:.2f}× below every cap",
                options["min_scaling"],
                percent=False,
            )
        for line in goals.lines():
            self.stdout.write(line)
        problems += [f"below the goal: {g.label}" for g in goals.failures()]
        if problems:
            self.stderr.write("; ".join(problems))
            sys.exit(1)

    def _measure(self, options: dict, goals: GoalTable) -> tuple[float, list[str]]:
        """One run in a fresh database against a fresh fake provider: its rate and what went wrong."""
        cap_messages = options["cap_messages"] or options["account_rate"]
        fake = FakeProvider(
            latency=options["latency_ms"] / 1000,
            max_requests_per_second=options["cap_requests"],
            max_messages_per_second=cap_messages,
            keep_alive=options["keep_alive"],
        )
        try:
            with bench_database():
                run = self._run(fake, options)
        finally:
            fake.close()
        return self._report(fake, run, options, cap_messages, goals)

    # --- the run ----------------------------------------------------------------------------------------
    def _run(self, fake, options: dict) -> dict:
        n, provider = options["targets"], options["provider"]
        bench = EngineBench()
        actor = bench._setup(n, provider=provider, credentials=CREDENTIALS[provider])
        account = SmsProviderAccount.objects.get(workspace=actor.workspace, provider=provider)
        if options["account_rate"]:
            account.max_messages_per_minute = round(options["account_rate"] * 60)
            account.save(update_fields=["max_messages_per_minute"])
        rate_limits.reset(account)  # the buckets of an earlier run's account with the same id
        if options["texts"] == "distinct":  # «سلام علی<id>»: still one UCS-2 part
            names = Concat(Value("علی"), Cast("id", output_field=CharField()))
            Target.objects.filter(workspace=actor.workspace).update(first_name=names)
        queue = f"sms-bench-{uuid.uuid4().hex[:8]}"  # a worker of a running site never takes these batches
        env = {"DATABASE_URL": database_url(), URL_SETTING[provider]: fake.url, "LOG_LEVEL": "WARNING"}
        workers_n, concurrency = options["workers"], options["concurrency"]
        try:
            with CeleryWorkers(queues=queue, concurrency=concurrency, count=workers_n, env=env) as workers:
                campaign = bench._campaign(actor, ONE_SMS)
                bench._enroll(actor, campaign)
                signature = current_app.signature(PROCESS_EXECUTIONS_TASK)

                def send(chunk) -> None:
                    signature.apply_async(args=([list(item) for item in chunk],), queue=queue)

                executions = Execution.objects.filter(campaign=campaign)
                started = last_progress = time.monotonic()
                while True:
                    if due_selection(campaign, timezone.now()).exists() and tick(send=send).claimed:
                        continue
                    if not executions.filter(status__in=LIVE_STATUSES).exists():
                        break
                    if not workers.alive():
                        raise CommandError("a Celery worker died:\n" + workers.tail())
                    if time.monotonic() - started > options["timeout"]:
                        self.stderr.write(f"timed out after {options['timeout']:.0f} s:\n" + workers.tail())
                        break
                    if time.monotonic() - last_progress > 30:
                        last_progress = time.monotonic()
                        self.stderr.write(f"  … {len(fake.log)} of {n} messages accepted")
                    time.sleep(0.1)
        finally:
            delete_queue(queue)
            rate_limits.reset(account)
        statuses = Counter(executions.values_list("status", flat=True))
        completed = executions.filter(status=ExecutionStatus.COMPLETED).values("subject_id")
        completed_numbers = {
            national(m) for m in Target.objects.filter(id__in=completed).values_list("mobile", flat=True)
        }
        attempts = Counter(SmsAttempt.objects.filter(campaign=campaign).values_list("status", flat=True))
        return {"statuses": statuses, "completed_numbers": completed_numbers, "attempts": attempts}

    # --- the report -------------------------------------------------------------------------------------
    def _report(self, fake, run: dict, options: dict, cap_messages: float | None, goals: GoalTable) -> tuple:
        out = self.stdout.write
        n, latency = options["targets"], options["latency_ms"] / 1000
        slots = options["workers"] * options["concurrency"]
        per_number = Counter(receptor for receptor, _ in fake.log)
        messages = len(fake.log)
        duplicates = sum(1 for count in per_number.values() if count > 1)
        lost = len(run["completed_numbers"] - set(per_number))
        unfinished = n - run["statuses"].get(ExecutionStatus.COMPLETED, 0)
        seconds = (max(at for _, at in fake.log) - fake.first_arrival) if messages else 0.0
        rate = messages / seconds if seconds > 0 else 0.0
        batch = max(fake.batches, default=1)
        bounds = {f"worker slots × batch / latency ({slots} × {batch} / {latency:g} s)": slots * batch / latency}
        if cap_messages:
            bounds["provider cap"] = cap_messages
        if options["cap_requests"]:
            bounds[f"provider requests cap × batch ({options['cap_requests']:g} × {batch})"] = (
                options["cap_requests"] * batch
            )
        if options["account_rate"]:
            bounds["account limit"] = options["account_rate"]
        bound = min(bounds.values())
        shape = f"{options['workers']} worker process(es) × -c {options['concurrency']}"
        texts = "one text for all" if options["texts"] == "same" else "a text per target"
        fake_line = f"{options['provider']} fake answering after {latency * 1000:g} ms"
        out(f"targets: {n}; one-SMS journey, {texts}; {fake_line}; {shape}")
        out(f"executions: {dict(sorted(run['statuses'].items()))}; attempts: {dict(sorted(run['attempts'].items()))}")
        sizes = f"mean {messages / max(len(fake.batches), 1):.1f}, largest {batch}" if fake.batches else "none"
        out(f"send requests accepted: {len(fake.batches)} (messages per request: {sizes})")
        out(f"messages accepted: {messages} in {seconds:.1f} s → {rate:.1f} messages/s (first to last accepted send)")
        terms = ", ".join(f"{label}: {value:,.0f}" for label, value in bounds.items())
        out(f"bound of the run: {bound:,.0f} messages/s = min({terms})")
        out(f"measured / bound: {100 * rate / bound:.0f} %")
        refused = dict(sorted(fake.refused.items()))
        rate_refused = sum(v for k, v in refused.items() if k.startswith("rate_"))
        out(f"requests refused by the provider for rate: {rate_refused}; all refusals: {refused or 0}")
        out(f"duplicates (a number messaged twice): {duplicates}")
        out(f"lost (completed without a message): {lost}; not completed: {unfinished}")
        projected = duration(PROJECTED / rate) if rate else "-"
        out(f"projected time for {PROJECTED:,} messages: {projected}")
        label = f"measured / bound ({options['workers']} worker process(es))"
        goals.add(label, rate / bound if bound else 0.0, "80–100 % under a cap", options["min_ratio"])
        problems = [
            f"{k}={v}" for k, v in (("duplicates", duplicates), ("lost", lost), ("unfinished", unfinished)) if v
        ]
        return rate, problems
