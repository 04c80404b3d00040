"""The chaos run (``make chaos``): every part of the platform at once, under seeded random faults.

    python -m tests.platform.chaos --minutes 30 --seed 7

A private PostgreSQL cluster and a private Redis on free loopback ports (never the machine's shared
ones), gunicorn, two prefork engine workers, a browser worker and beat (tests/platform/chaos/stack.py),
a fake Kavenegar and Melipayamak with a bad day (provider.py), the workload of workload.py and the faults of
faults.py, all on the run's calendar clock (clock.py).
After ``--minutes`` the faults stop, the run settles, the checks (checks.py) run and one line is printed;
the exit status is 1 (with the seed to replay) if any promise was broken.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import socket
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

LEASE_SECONDS = 8
LEAD_SECONDS = 90  # the processes start and get ready inside the first stretch (before the window opens)


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _wait_http(url: str, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(url, timeout=3):
                return True
        except OSError:
            time.sleep(0.5)
    return False


def _wait_ready(stack, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    names = ("engine1", "engine2", "browser")
    while time.monotonic() < deadline:
        if all(" ready." in stack.procs[n].tail(200_000) for n in names):
            return True
        time.sleep(0.5)
    return False


def _ops_view(metrics: dict) -> dict:
    wanted = ("sms_sends_total", "automation_claims_total", "automation_reaped_total", "platform_tasks_total")
    wanted += ("celery_queue_depth", "django_http_responses_total_by_status_total", "error")
    return {k: v for k, v in metrics.items() if k.startswith(wanted)}


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--minutes", type=float, default=float(os.environ.get("CHAOS_MINUTES", "30")))
    parser.add_argument("--seed", type=int, default=int(os.environ.get("CHAOS_SEED") or random.randrange(1, 10**6)))
    parser.add_argument("--targets", type=int, default=int(os.environ.get("CHAOS_TARGETS", "8000")))
    parser.add_argument("--settle", type=float, default=float(os.environ.get("CHAOS_SETTLE_SECONDS", "240")))
    parser.add_argument("--keep", action="store_true", help="keep the logs folder")
    args = parser.parse_args()

    root = Path(__file__).resolve().parents[3]
    work = Path(tempfile.mkdtemp(prefix=f"chaos-{args.seed}-"))
    pg_port, redis_port, site_port = _free_port(), _free_port(), _free_port()
    provider_port, meli_port = _free_port(), _free_port()
    # Settings are read from the environment once, at the first use: every address is known before.
    env = {
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "PYTHONPATH": str(root),
        "DEBUG": "1",
        "DATABASE_URL": f"postgres://postgres@127.0.0.1:{pg_port}/faults",
        "CELERY_BROKER_URL": f"redis://127.0.0.1:{redis_port}/0",
        "REDIS_URL": f"redis://127.0.0.1:{redis_port}/1",
        "SMS_KAVENEGAR_URL": f"http://127.0.0.1:{provider_port}",
        "SMS_MELIPAYAMAK_URL": f"http://127.0.0.1:{meli_port}",
        "SMS_HTTP_TIMEOUT": "3",
        "SMS_UNKNOWN_SETTLE_SECONDS": "2",
        "SMS_CIRCUIT_PAUSE_MINUTES": "1",
        "SMS_DELIVERY_POLL_INTERVAL_SECONDS": "10",
        "AUTOMATION_LEASE_SECONDS": str(LEASE_SECONDS),
        "AUTOMATION_TICK_SECONDS": "3",
        "AUTOMATION_TICK_MAX_CLAIMS": "300",
        "AUTOMATION_DISPATCH_BATCH": "20",
        # What the two engine workers (2 processes each, a batch of 20 sends at 0–300 ms each) start within the
        # 8 s lease: a tick claims nothing more while this many wait for a worker (the engine's back-pressure).
        "AUTOMATION_MAX_QUEUED": "120",
        "BEAT_SCHEDULE_SCALE": "0.05",  # the tick every 3 s instead of every minute
        "THROTTLE_USER": "100000/min",
        "LOG_LEVEL": "WARNING",
        "VAR_DIR": str(work / "var"),
        "METRICS_TOKEN": "chaos-metrics",
        "BROWSER_ALLOWED_PRIVATE_HOSTS": f"127.0.0.1:{site_port}",  # the local demo site below
        "BROWSER_LEASE_SECONDS": "30",
        "BROWSER_BACKOFF_SECONDS": "5",
        # What one browser worker (one process, 1–9 s a task on a loaded machine) starts within a 30 s lease: more would
        # wait in the broker until their leases ran out (docs/reliability.md "The chaos run", browser tasks).
        "BROWSER_MAX_IN_FLIGHT": "4",
        "PROMETHEUS_MULTIPROC_DIR": str(work / "metrics"),
    }
    (work / "metrics").mkdir()
    os.environ.update(env)

    from tests.platform.faults.processes import PostgresCluster, RedisServer

    from .provider import ChaoticProvider
    from .site import ChaosSite

    cluster, redis = PostgresCluster(), RedisServer(work)
    cluster.port, redis.port = pg_port, redis_port
    if cluster.bin is None or redis.binary is None:
        print("chaos: initdb/pg_ctl or redis-server is not installed", file=sys.stderr)
        return 2
    provider = ChaoticProvider(args.seed, port=provider_port)
    meli = ChaoticProvider(args.seed + 1, kind="melipayamak", port=meli_port)
    providers = {"kavenegar": provider, "melipayamak": meli}
    site = ChaosSite(port=site_port)
    stack = None
    started = time.monotonic()
    try:
        cluster.init()
        redis.start()
        import django

        django.setup()
        from django.core.management import call_command

        call_command("migrate", verbosity=0, interactive=False)
        from . import checks, workload
        from . import clock as chaos_clock
        from .faults import Faults
        from .stack import Stack

        world = workload.setup(targets=args.targets, seed=args.seed, site=site)
        # The calendar clock from here on, the same in every process (clock.py): the workspace's days pass in
        # stretches around the window's opening and closing; the lead covers the processes starting.
        run_clock = chaos_clock.Clock(chaos_clock.plan(start=time.time(), minutes=args.minutes, lead=LEAD_SECONDS))
        os.environ[chaos_clock.ENV] = env[chaos_clock.ENV] = run_clock.to_env()
        chaos_clock.install()
        stack_env = dict(os.environ, PYTHONPATH=f"{Path(chaos_clock.__file__).parent / 'clockhook'}:{root}")
        stack = Stack(stack_env, work)
        stack.start()
        if not _wait_http(stack.web_url + "/healthz", 120) or not _wait_ready(stack, 180):
            raise RuntimeError("the stack did not start:\n" + "\n".join(p.tail() for p in stack.procs.values()))
        print(f"chaos: seed {args.seed}, logs {work}, web {stack.web_url}", flush=True)

        deadline = time.monotonic() + args.minutes * 60
        activity = workload.Activity(world=world, web_url=stack.web_url, seed=args.seed, deadline=deadline)
        faults = Faults(stack, redis, cluster, list(providers.values()), args.seed, LEASE_SECONDS)
        activity.start(list(providers.values()))
        fault_thread = threading.Thread(target=faults.run, args=(deadline,), kwargs={"stop": activity.stop})
        fault_thread.start()
        for _ in range(int(args.minutes * 60) + 10):
            if time.monotonic() >= deadline:
                break
            stack.supervise()
            time.sleep(1)
        activity.stop.set()
        fault_thread.join(timeout=60)
        for fake in providers.values():
            fake.calm()

        from django.db import DatabaseError, InterfaceError, connection

        settle_deadline = time.monotonic() + args.settle
        state: dict = {}
        quiet_since = None
        for _ in range(int(args.settle) + 10):
            stack.supervise()
            try:
                done, state = checks.settled(world.workspace_id)
            except (DatabaseError, InterfaceError):
                connection.close()
                done = False
            quiet_since = (quiet_since or time.monotonic()) if done else None
            if (quiet_since and time.monotonic() - quiet_since > 10) or time.monotonic() > settle_deadline:
                break
            time.sleep(1)
        # The ticks go on after the settle (the calendar clock does): claims and sends made meanwhile are work in
        # flight; only a claim held unchanged for checks.STUCK_AFTER is lost, only a send open all along is
        # unsettled. Measured first, the snapshots below after it.
        stuck, open_ids = checks.lingering(world.workspace_id)
        # The ops' counters against what happened, read at one moment: every send the platform counted as
        # accepted reached the provider (a send is counted after the provider's answer, so never more than the
        # providers hold just after the scrape); what the providers held just before it beyond the count is
        # what a kill or a lost answer left uncounted, plus the answers on their way (one per engine process).
        accepted_before = checks.accepted_total(providers)
        try:
            metrics = checks.scrape(stack.web_url, env["METRICS_TOKEN"])
        except OSError as exc:
            metrics = {"error": str(exc)}
        accepted_after = checks.accepted_total(providers)
        answers = checks.replies(world, activity.replies, run_clock)
        opt_outs = checks.earliest(activity.opt_outs, answers["opt_outs"])
        result = checks.evaluate(world, providers, opt_outs, run_clock, stuck=stuck, open_ids=open_ids)
        clicks = checks.browser(world, site)
        chain = checks.chain(world)
        counted = metrics.get("sms_sends_total{result=submitted}", 0)
        in_flight = 4  # two engine workers of two processes, one answer each on its way
        # A send the provider accepted whose answer was lost (a timeout, a killed job) is counted as
        # result=unknown, and since sends go in batches one such call holds up to a batch of messages.
        counted_unknown = metrics.get("sms_sends_total{result=unknown}", 0)
        timeouts = sum(p.counts["accept_timeouts"] for p in providers.values())
        uncounted_allowed = timeouts + len(faults.done) + in_flight + counted_unknown
        metrics_ok = (
            "error" not in metrics and counted <= accepted_after and accepted_before - counted <= uncounted_allowed
        )
        api_5xx, unexpected = checks.api_errors(activity.calls, faults.db_down)
        failures = [
            k
            for k in (
                "duplicates",
                "lost",
                "unknown_unsettled",
                "limit_breaches",
                "window_breaches",
                "opt_out_breaches",
                "period_duplicates",
            )
            if result[k]
        ]
        if answers["replies_stored_twice"]:
            failures.append("replies_stored_twice")
        if clicks["double_clicks"]:
            failures.append("double_clicks")
        if unexpected:
            failures.append("api_5xx")
        if not metrics_ok:
            failures.append("metrics")
        print(
            f"chaos minutes={args.minutes:g} faults={len(faults.done)} sms={result['sms']} "
            f"duplicates={result['duplicates']} lost={result['lost']} unknown_unsettled={result['unknown_unsettled']} "
            f"limit_breaches={result['limit_breaches']} window_breaches={result['window_breaches']} "
            f"double_clicks={clicks['double_clicks']} period_duplicates={result['period_duplicates']} "
            f"api_5xx={api_5xx} (unexpected {len(unexpected)}) "
            f"opt_out_breaches={result['opt_out_breaches']} unknown_held_by_limit={result['unknown_held_by_limit']} "
            f"replies={answers['replies']} replies_stored={answers['replies_stored']} "
            f"replies_stored_twice={answers['replies_stored_twice']} reply_opt_outs={answers['reply_opt_outs']} "
            f"metrics_sms={counted:g} sms_kavenegar={result['sms_kavenegar']} "
            f"sms_melipayamak={result['sms_melipayamak']} chain_sms={result['chain_sms']} "
            f"chain_periods={chain['periods']} seed={args.seed}",
            flush=True,
        )
        print(
            f"chaos detail: faults {faults.counts()}, restarts {stack.restarts}, "
            f"providers { {k: p.counts for k, p in providers.items()} }, unknown decided {result['unknown_decided']}, "
            f"late landings {result['late_landings']}, "
            f"chain runs {chain['runs']}, chain executions {chain['executions']}, clock {run_clock.describe()}, "
            f"api calls {len(activity.calls)} (no answer {sum(1 for c in activity.calls if c.status == 0)}), "
            f"batches {len(activity.batches)}, opt-outs {len(activity.opt_outs)}, "
            f"replies not stored yet {answers['replies_unstored']}, settle {state}, "
            f"attempts {result['attempts']}, executions {result['executions']}, "
            f"browser: likes {clicks['likes']}, tasks {clicks['tasks']}, "
            f"metrics {_ops_view(metrics)}, {time.monotonic() - started:.0f} s",
            flush=True,
        )
        for call in unexpected[:20]:
            print(f"chaos unexpected 5xx: {call.method} {call.path} {call.status} at {call.at:.1f}", flush=True)
        for line in result["limit_over"]:
            print(f"chaos limit: {line}", flush=True)
        if failures:
            for line in checks.diagnose(world):
                print(f"chaos diagnose: {line}", flush=True)
            print(f"chaos FAILED ({', '.join(failures)}): replay with CHAOS_SEED={args.seed}; logs in {work}")
            args.keep = True
            return 1
        return 0
    finally:
        if stack is not None:
            stack.stop()
        redis.stop()
        cluster.destroy()
        provider.close()
        meli.close()
        site.close()
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
