"""Benchmark the browser pipeline against a raw Playwright loop (same machine, same run).

    python manage.py bench_browser --tasks 200 --accounts 10 --workers 2 [--min-ratio 1.0]
    python manage.py bench_browser --broker --tasks 200 --workers 2 [--min-ratio 1.0]

Default: the browser workers are processes of this command fed by multiprocessing queues. ``--broker``:
real ``celery -A config worker -Q browser-<run> -c <workers>`` processes (as the Procfile's ``browser``
line, on a queue of this run) started here on CELERY_BROKER_URL, results read back from a results queue of
the run and applied here. The rows live in a database of the run (``tests.bench.harness``),
dropped at the end.
"""

import os
import uuid

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand
from django.utils.crypto import get_random_string

from campaigns.choices import Role
from campaigns.models import Membership, Workspace
from campaigns.platform.tenancy import Actor
from tests.bench.browser import LOGIN_CHECK, STEPS, BrokerResults, WorkerPool, pipeline_run, raw_loop
from tests.bench.harness import (
    CeleryWorkers,
    GoalTable,
    bench_database,
    database_url,
    delete_queue,
    vacuum_analyze,
)
from workers import conf
from workers.localsite import LocalSite
from workers.models import BrowserAccount, BrowserTask, CampaignStatistics
from workers.services.campaigns import browser_campaign_create


class Command(BaseCommand):
    help = "Whole browser pipeline vs a raw Playwright loop against the local site; prints tasks/s and the ratio."

    def add_arguments(self, parser):
        parser.add_argument("--tasks", type=int, default=200)
        parser.add_argument("--accounts", type=int, default=10, help="tasks = accounts × links")
        parser.add_argument("--workers", type=int, default=2, help="browser worker processes")
        parser.add_argument(
            "--pool-size",
            type=int,
            default=conf.setting("CONTEXT_POOL_SIZE"),
            help="warm contexts per worker (0 = a new context per task)",
        )
        parser.add_argument("--concurrency", type=int, default=0, help="tasks in flight (default 4 × workers)")
        parser.add_argument("--broker", action="store_true", help="real Celery workers through the broker")
        parser.add_argument("--skip-raw", action="store_true")
        parser.add_argument("--min-ratio", type=float, help="fail (exit 1) when pipeline / raw is below this")

    def handle(self, *args, **options):
        tasks, n_accounts = options["tasks"], options["accounts"]
        n_links = max(1, -(-tasks // n_accounts))
        total = n_accounts * n_links
        executable = os.environ.get("PLAYWRIGHT_CHROMIUM_PATH", conf.chromium_path())
        chromium_args = conf.chromium_args()
        out = self.stdout.write
        with LocalSite() as site:
            # the local site is a private address: the workers (spawned or Celery) may reach it
            site_host = site.url("/").split("/")[2]
            allowed = ",".join([*settings.BROWSER_ALLOWED_PRIVATE_HOSTS, site_host])
            os.environ["BROWSER_ALLOWED_PRIVATE_HOSTS"] = allowed
            settings.BROWSER_ALLOWED_PRIVATE_HOSTS = allowed.split(",")
            links = [site.url(f"/post/bench-{i}") for i in range(n_links)]
            raw = None
            if not options["skip_raw"]:
                raw_links = [link for link in links for _ in range(n_accounts)]
                raw_cookies = [f"session=valid-raw-{i}" for _ in range(n_links) for i in range(n_accounts)]
                raw = raw_loop(executable_path=executable, args=chromium_args, links=raw_links, cookies=raw_cookies)
                out(f"raw playwright loop : {raw.tasks} tasks in {raw.seconds:.2f}s = {raw.rate:.2f} tasks/s")
            with bench_database():
                result, stats = self._pipeline(options, links, total, executable, chromium_args, allowed)
            mode = "Celery workers through the broker" if options["broker"] else "worker processes"
            out(
                f"pipeline            : {result.tasks} tasks in {result.seconds:.2f}s = {result.rate:.2f} tasks/s "
                f"({options['workers']} {mode}, warm contexts {options['pool_size']}, "
                f"{stats.completed}/{stats.total} succeeded)"
            )
            out(
                f"orchestration       : {1000 * result.orchestration_seconds / result.tasks:.1f} ms/task "
                "(creation, dispatch, payloads, result service, statistics)"
            )
            likes = sum(site.state.like_count(f"bench-{i}") for i in range(n_links))
            out(f"likes counted by the site: {likes}")
        if raw is None:
            return
        out(f"ratio pipeline/raw  : {result.rate / raw.rate:.2f}x")
        goals = GoalTable()
        target = ">= 1.00× (stretch 1.50×)"
        label = "pipeline (broker) / raw loop" if options["broker"] else "pipeline (in process) / raw loop"
        goals.add(label, result.rate / raw.rate, target, options["min_ratio"], percent=False)
        goals.report(out, self.stderr)

    def _pipeline(self, options, links, total, executable, chromium_args, allowed):
        workspace, actor = self._workspace()
        accounts = [
            BrowserAccount.objects.create(
                workspace=workspace,
                label=f"bench-{i}",
                platform="bench",
                cookies=f"session=valid-bench-{i}",
                cookie_domain="127.0.0.1",  # the local site's host
            )
            for i in range(options["accounts"])
        ]
        concurrency = options["concurrency"] or 4 * options["workers"]
        campaign = browser_campaign_create(
            actor=actor,
            name="bench",
            platform="bench",
            accounts=[a.pk for a in accounts],
            target_links=links,
            action="like",
            steps=STEPS,
            login_check=LOGIN_CHECK,
            concurrency_cap=concurrency,
            max_attempts=1,
        )
        vacuum_analyze(BrowserTask._meta.db_table, BrowserAccount._meta.db_table)
        run = {"campaign_id": campaign.pk, "total": total, "concurrency": concurrency}
        if options["broker"]:
            result = self._through_broker(options, run, allowed)
        else:
            with WorkerPool(
                size=options["workers"], executable_path=executable, args=chromium_args, pool_size=options["pool_size"]
            ) as pool:
                result = pipeline_run(**run, next_result=lambda t: pool.results.get(timeout=t), publisher=pool.publish)
        return result, CampaignStatistics.objects.get(campaign=campaign)

    def _through_broker(self, options, run: dict, allowed: str):
        suffix = uuid.uuid4().hex[:8]
        queue, results_queue = f"browser-bench-{suffix}", f"results-bench-{suffix}"
        env = {
            "DATABASE_URL": database_url(),
            "BROWSER_QUEUE": queue,
            "BROWSER_RESULTS_QUEUE": results_queue,
            "BROWSER_ALLOWED_PRIVATE_HOSTS": allowed,
            "BROWSER_CONTEXT_POOL_SIZE": str(options["pool_size"]),
        }
        previous = settings.BROWSER_TASKS
        settings.BROWSER_TASKS = {**previous, "QUEUE": queue}  # where this process's dispatch publishes
        results = BrokerResults(results_queue)  # declared before any worker can answer
        try:
            with CeleryWorkers(queues=queue, concurrency=options["workers"], env=env, ready="browser started"):
                return pipeline_run(**run, next_result=results.get)
        finally:
            settings.BROWSER_TASKS = previous
            results.close()
            delete_queue(queue)
            delete_queue(results_queue)

    def _workspace(self):
        suffix = get_random_string(8).lower()
        workspace = Workspace.objects.create(name=f"bench-{suffix}", slug=f"bench-{suffix}")
        user = get_user_model().objects.create_user(f"bench-{suffix}")
        membership = Membership.objects.create(workspace=workspace, user=user, role=Role.OWNER)
        return workspace, Actor(user=user, workspace=workspace, membership=membership)
