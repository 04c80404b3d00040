"""Benchmark the browser pipeline against a raw Playwright loop (same machine, same run).

python manage.py bench_browser --tasks 200 --accounts 10 --workers 2
"""

import os

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand
from django.utils.crypto import get_random_string

from campaigns.choices import Role
from campaigns.models import Membership, Workspace
from campaigns.platform.tenancy import Actor
from workers import conf
from workers.bench import LOGIN_CHECK, STEPS, WorkerPool, pipeline_run, raw_loop
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
        parser.add_argument("--skip-raw", action="store_true")
        parser.add_argument("--keep", action="store_true", help="keep the benchmark workspace")

    def handle(self, *args, **options):
        tasks, n_accounts = options["tasks"], options["accounts"]
        n_links = max(1, -(-tasks // n_accounts))
        total = n_accounts * n_links
        executable = os.environ.get("PLAYWRIGHT_CHROMIUM_PATH", conf.chromium_path())
        chromium_args = conf.chromium_args()
        with LocalSite() as site:
            links = [site.url(f"/post/bench-{i}") for i in range(n_links)]
            raw = None
            if not options["skip_raw"]:
                raw_links = [link for link in links for _ in range(n_accounts)]
                raw_cookies = [f"session=valid-raw-{i}" for _ in range(n_links) for i in range(n_accounts)]
                raw = raw_loop(executable_path=executable, args=chromium_args, links=raw_links, cookies=raw_cookies)
                self.stdout.write(
                    f"raw playwright loop : {raw.tasks} tasks in {raw.seconds:.2f}s = {raw.rate:.2f} tasks/s"
                )
            workspace, actor = self._workspace()
            try:
                accounts = [
                    BrowserAccount.objects.create(
                        workspace=workspace, label=f"bench-{i}", platform="bench", cookies=f"session=valid-bench-{i}"
                    )
                    for i in range(n_accounts)
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
                with WorkerPool(
                    size=options["workers"],
                    executable_path=executable,
                    args=chromium_args,
                    pool_size=options["pool_size"],
                ) as pool:
                    result = pipeline_run(pool=pool, campaign_id=campaign.pk, total=total, concurrency=concurrency)
                stats = CampaignStatistics.objects.get(campaign=campaign)
                self.stdout.write(
                    f"pipeline            : {result.tasks} tasks in {result.seconds:.2f}s = {result.rate:.2f} tasks/s "
                    f"({options['workers']} worker processes, warm contexts {options['pool_size']}, "
                    f"{stats.completed}/{stats.total} succeeded)"
                )
                self.stdout.write(
                    f"orchestration       : {1000 * result.orchestration_seconds / result.tasks:.1f} ms/task "
                    "(creation, dispatch, payloads, result service, statistics)"
                )
                if raw is not None:
                    self.stdout.write(f"ratio pipeline/raw  : {result.rate / raw.rate:.2f}x")
                likes = sum(site.state.like_count(f"bench-{i}") for i in range(n_links))
                self.stdout.write(f"likes counted by the site: {likes}")
            finally:
                if not options["keep"]:
                    BrowserTask.objects.filter(workspace=workspace).delete()
                    user = actor.user
                    workspace.delete()
                    user.delete()

    def _workspace(self):
        suffix = get_random_string(8).lower()
        workspace = Workspace.objects.create(name=f"bench-{suffix}", slug=f"bench-{suffix}")
        user = get_user_model().objects.create_user(f"bench-{suffix}")
        membership = Membership.objects.create(workspace=workspace, user=user, role=Role.OWNER)
        return workspace, Actor(user=user, workspace=workspace, membership=membership)
