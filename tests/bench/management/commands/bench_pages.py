"""Benchmark what staff feel: every page pattern and API list at the size of a year's workspace (PostgreSQL).

    python manage.py bench_pages [--scale 0.1] [--repeat 20] [--max-p95-ms 300] [--rebuild]

Builds one workspace (at ``--scale 1``: 1,000,000 targets in 20 lists, 50 journey campaigns, 2,000,000
executions in every status, 10,000,000 execution events, 3,000,000 SMS attempts, 5 chains with 200 runs each,
20 browser campaigns with 200,000 tasks, 100,000 blacklist rows) with COPY, then VACUUM ANALYZE, into a data
template of its own (``tests.bench.harness``: built once per scale and state of the migrations, kept;
``--rebuild`` writes it again). Each run clones it into a fresh database, requests every pattern through the
Django test client as the workspace's owner (one warm-up, then ``--repeat`` times), prints p50 / p95 / max and
the query count of each, the same for a minimal authenticated request (the floor of the run) and the web
process's RSS before and after; ``--max-p95-ms`` fails (exit 1) when a pattern's p95 is above it.
"""

from __future__ import annotations

import hashlib
import logging
import math
import statistics
import sys
import time
from datetime import timedelta
from pathlib import Path

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.contenttypes.models import ContentType
from django.core.management.base import BaseCommand, CommandError
from django.db import connection
from django.db.models import Max, Min
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from automation.choices import EventType, ExecutionStatus
from automation.journey_counts import fold
from automation.models import EnrollmentItem, Execution, ExecutionEvent, JourneyCount, WorkflowNode
from automation.services.campaigns import journey_campaign_create, journey_campaign_transition
from automation.services.workflows import workflow_create, workflow_graph_save, workflow_publish
from campaigns.chains.models import CampaignRun, ChainNode, ConversionEvent, RunAudienceMember
from campaigns.choices import CampaignStatus, Role, TargetStatus
from campaigns.models import Campaign, Target, TargetImportRow, TargetList, TargetListSize, Workspace
from campaigns.models.core import target_search_text
from campaigns.notifications.models import Activity, Notification
from campaigns.platform.collector import freeze_loaded
from campaigns.platform.partitions import partitions_ensure
from campaigns.platform.tenancy import Actor
from campaigns.services.workspaces import membership_set
from sms.choices import AttemptStatus
from sms.inbound.models import InboundSms
from sms.models import BlacklistEntry, SmsAttempt, SmsProviderAccount, SmsSettings
from tests.bench.harness import bench_database, vacuum_analyze
from tests.bench.management.commands.bench_engine import GRAPH
from tests.bench.pages_patterns import BASE_MOBILE, patterns_of, unmeasured
from tests.bench.pages_world import PagesWorld
from workers.models import BrowserTask, CampaignPlatform, CampaignStatistics

SEED_VERSION = 8  # raised whenever the rows a template holds change (a template of another version is rebuilt)
SLUG = "bench-pages"
OWNER = "bench-pages-owner"
FULL = {  # rows at --scale 1
    "targets": 1_000_000,
    "executions": 2_000_000,
    "events": 10_000_000,
    "attempts": 3_000_000,
    "tasks": 200_000,
    "blacklist": 100_000,
}
LISTS, JOURNEYS, CHAINS, RUNS_PER_CHAIN, BROWSER_CAMPAIGNS = 20, 50, 5, 200, 20
EXPORT_ROWS = 20_000  # the first list holds this many targets (scaled): the export's size
TIMELINE_EVENTS = 500  # the first target's history
HISTORY_DAYS = 90
FIRST_NAMES = ["علی", "مریم", "رضا", "زهرا", "حسین", "فاطمه", "محمد", "سارا", "امیر", "نگار"]
LAST_NAMES = ["رضایی", "محمدی", "حسینی", "کریمی", "احمدی", "جعفری", "موسوی", "کاظمی", "نوری", "صادقی"]


def rss_mb() -> float:
    """The process's resident set now (not the peak)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def copy_rows(model, columns: list[str], rows, *, now) -> None:
    """COPY generated rows into the model's table; every other column gets its field's default."""
    fields = {f.attname: f for f in model._meta.concrete_fields if not f.primary_key and not f.generated}
    fixed = [name for name in fields if name not in columns]
    values = []
    for name in fixed:
        field = fields[name]
        if getattr(field, "auto_now", False) or getattr(field, "auto_now_add", False):
            value = now
        elif field.has_default():
            value = field.get_db_prep_save(field.get_default(), connection)
        elif field.null:
            value = None
        else:
            value = field.get_db_prep_save(field.get_default(), connection)  # "" for text
        values.append(value)
    tail = tuple(values)
    names = ", ".join(f'"{fields[c].column}"' for c in [*columns, *fixed])
    with (
        connection.cursor() as cursor,
        cursor.cursor.copy(f'COPY "{model._meta.db_table}" ({names}) FROM STDIN') as out,
    ):
        for row in rows:
            out.write_row(row + tail)


class Seed:
    """Writes the workspace of one scale (runs inside the data template being built)."""

    def __init__(self, scale: float, stdout) -> None:
        self.scale = scale
        self.n = {key: max(1, int(value * scale)) for key, value in FULL.items()}
        self.n["export"] = max(1, min(int(EXPORT_ROWS * scale), self.n["targets"] // 2))
        self.out = stdout.write

    def __call__(self) -> None:
        started = time.perf_counter()
        now = timezone.now()
        workspace = Workspace.objects.create(name="بنچ صفحه‌ها", slug=SLUG)
        user = get_user_model().objects.create_user(OWNER, is_staff=True)  # the admin too, for the workspace
        membership = membership_set(workspace=workspace, user=user, role=Role.OWNER)
        actor = Actor(user=user, workspace=workspace, membership=membership)
        partitions_ensure(now=now, since=now - timedelta(days=HISTORY_DAYS))  # the months the history covers
        account = SmsProviderAccount.objects.create(
            workspace=workspace, name="console", provider="console", senders=["1000"]
        )
        SmsSettings.objects.create(workspace=workspace, primary_account=account)
        targets = self._targets(workspace, now)
        journeys = self._journeys(actor)
        executions = self._executions(workspace, journeys, targets, now)
        self._events(workspace, executions, now)
        self._limit_deferred(journeys[0], now)
        self._attempts(workspace, executions, now)
        self._chains(workspace, now)
        self._browser(workspace, user, now)
        self._blacklist(workspace, now)
        fold()  # the journey numbers the COPYs' triggers wrote, one row each (as the beat job keeps them)
        vacuum_analyze(*self.big_tables)  # what a year of autovacuum knows: the services below plan with it
        PagesWorld(self.scale, copy_rows)(actor, targets, self.lists, self.workflow_id, now)
        vacuum_analyze(*self.big_tables, *self.world_tables)
        self.out(f"built the workspace in {time.perf_counter() - started:.0f} s: " + self.sizes())

    big_tables = [m._meta.db_table for m in (Target, Execution, ExecutionEvent, SmsAttempt, BlacklistEntry)] + [
        JourneyCount._meta.db_table,
        TargetListSize._meta.db_table,
        Target.lists.through._meta.db_table,
        BrowserTask._meta.db_table,
        CampaignRun._meta.db_table,
    ]
    world_tables = [
        m._meta.db_table for m in (TargetImportRow, EnrollmentItem, Activity, Notification, ConversionEvent, InboundSms)
    ] + [RunAudienceMember._meta.db_table]

    def sizes(self) -> str:
        n = self.n
        return (
            f"{n['targets']:,} targets, {n['executions']:,} executions, {n['events']:,} events, "
            f"{n['attempts']:,} SMS attempts, {n['tasks']:,} browser tasks, {n['blacklist']:,} blacklist rows"
        )

    def _targets(self, workspace, now) -> range:
        count = self.n["targets"]
        statuses = TargetStatus.values

        def rows():
            for i in range(count):
                first, last = FIRST_NAMES[i % 10], LAST_NAMES[(i // 10) % 10]
                created = now - timedelta(seconds=(count - i) * HISTORY_DAYS * 86400 // count)
                name, mobile = f"{first} {last} {i}", f"+98{BASE_MOBILE + i}"
                search = target_search_text(name=name, first_name=first, last_name=last, phones=(mobile,))
                yield (workspace.id, name, first, last, mobile, statuses[i % len(statuses)], created, search)

        columns = ["workspace_id", "name", "first_name", "last_name", "mobile", "status", "created_at", "search_text"]
        copy_rows(Target, columns, rows(), now=now)
        ids = Target.objects.filter(workspace=workspace).aggregate(first=Min("id"), last=Max("id"))
        if ids["last"] - ids["first"] + 1 != count:
            raise CommandError("target ids are not contiguous")
        lists = self.lists = TargetList.objects.bulk_create(
            [TargetList(workspace=workspace, name=f"فهرست {k + 1}") for k in range(LISTS)]
        )
        export = self.n["export"]  # the first list: the export's rows; the rest spread over the others

        def members():
            for i in range(count):
                k = 0 if i < export else 1 + i % (LISTS - 1)
                yield (ids["first"] + i, lists[k].id)

        through = Target.lists.through
        copy_rows(through, ["target_id", "targetlist_id"], members(), now=now)
        return range(ids["first"], ids["last"] + 1)

    def _journeys(self, actor) -> list:
        workflow = workflow_create(actor=actor, name="بنچ")
        workflow_graph_save(actor=actor, workflow_id=workflow.id, graph_data=GRAPH)
        version_id = workflow_publish(actor=actor, workflow_id=workflow.id).id
        campaigns = []
        for k in range(JOURNEYS):
            campaign = journey_campaign_create(actor=actor, name=f"سفر {k + 1}", workflow_id=workflow.id)
            journey_campaign_transition(actor=actor, campaign_id=campaign.id, action="activate")
            campaigns.append(campaign)
        node = WorkflowNode.objects.filter(version_id=version_id, node_key="sms1").values_list("id", flat=True).get()
        self.version_id, self.workflow_id, self.sms_node_id = version_id, workflow.id, node
        return campaigns

    def _executions(self, workspace, journeys, targets: range, now) -> dict:
        count, t = self.n["executions"], len(targets)
        subject_type = ContentType.objects.get_for_model(Target).id
        statuses = ExecutionStatus.values
        ids = [c.id for c in journeys]

        def campaign_of(j: int) -> int:  # a target's executions are in different campaigns
            return ids[(j % t + (j // t) * 7) % len(ids)]

        def rows():
            for j in range(count):
                status = statuses[(j // len(ids)) % len(statuses)]  # every campaign holds every status
                yield (
                    workspace.id,
                    campaign_of(j),
                    self.workflow_id,
                    self.version_id,
                    subject_type,
                    targets[j % t],
                    status,
                    now + timedelta(seconds=j % 86400),
                    now - timedelta(seconds=(count - j) * HISTORY_DAYS * 86400 // count),
                )

        columns = [
            "workspace_id",
            "campaign_id",
            "workflow_id",
            "version_id",
            "subject_type_id",
            "subject_id",
            "status",
            "next_run_at",
            "created_at",
        ]
        copy_rows(Execution, columns, rows(), now=now)
        first = Execution.objects.filter(workspace=workspace).aggregate(first=Min("id"))["first"]
        return {"first": first, "count": count, "campaign_of": campaign_of, "targets": targets, "type": subject_type}

    def _events(self, workspace, ex: dict, now) -> None:
        count, e, t = self.n["events"], ex["count"], len(ex["targets"])
        types = EventType.values
        timeline = min(TIMELINE_EVENTS, count)

        def rows():
            for j in range(count):
                k = 0 if j < timeline else j % e  # the first target's first execution: its long history
                yield (
                    workspace.id,
                    ex["first"] + k,
                    ex["campaign_of"](k),
                    ex["type"],
                    ex["targets"][k % t],
                    self.sms_node_id,
                    types[j % len(types)],
                    now - timedelta(seconds=(count - j) * HISTORY_DAYS * 86400 // count),
                )

        columns = [
            "workspace_id",
            "execution_id",
            "campaign_id",
            "subject_type_id",
            "subject_id",
            "node_id",
            "type",
            "occurred_at",
        ]
        copy_rows(ExecutionEvent, columns, rows(), now=now)

    def _limit_deferred(self, campaign, now) -> None:
        """The first journey sends under a daily limit: its live executions wait for tomorrow's budget, each with
        the limit's deferral as its last event (the dashboard's "queued for sending")."""
        tomorrow = now + timedelta(days=1)
        deferred = Execution.objects.filter(
            campaign=campaign, status__in=[ExecutionStatus.PENDING, ExecutionStatus.QUEUED, ExecutionStatus.WAITING]
        )
        deferred.update(status=ExecutionStatus.WAITING, needs_budget=True, deferred_by_limit=True, next_run_at=tomorrow)
        events = ExecutionEvent._meta.db_table
        with connection.cursor() as cursor:
            cursor.execute(
                f"INSERT INTO {events} (workspace_id, execution_id, campaign_id, subject_type_id, subject_id, "
                "node_id, type, from_status, to_status, message, data, occurred_at) "
                "SELECT workspace_id, id, campaign_id, subject_type_id, subject_id, %s, %s, %s, %s, '', '{}', %s "
                f"FROM {Execution._meta.db_table} WHERE campaign_id = %s AND deferred_by_limit",
                [
                    self.sms_node_id,
                    EventType.DEFERRED_LIMIT,
                    ExecutionStatus.PROCESSING,
                    ExecutionStatus.WAITING,
                    now - timedelta(hours=1),
                    campaign.id,
                ],
            )

    def _attempts(self, workspace, ex: dict, now) -> None:
        count, e, t = self.n["attempts"], ex["count"], len(ex["targets"])
        statuses = AttemptStatus.values

        def rows():
            for j in range(count):
                k = j % e
                target = k % t
                yield (
                    workspace.id,
                    ex["first"] + k,
                    self.workflow_id,
                    ex["campaign_of"](k),
                    ex["type"],
                    ex["targets"][target],
                    self.sms_node_id,
                    f"+98{BASE_MOBILE + target}",
                    f"سلام {FIRST_NAMES[target % 10]}",
                    "console",
                    f"bench:{j}",
                    statuses[j % len(statuses)],
                    now - timedelta(seconds=(count - j) * HISTORY_DAYS * 86400 // count),
                )

        columns = [
            "workspace_id",
            "execution_id",
            "workflow_id",
            "campaign_id",
            "subject_type_id",
            "subject_id",
            "node_id",
            "phone",
            "message",
            "provider",
            "idempotency_key",
            "status",
            "request_at",
        ]
        copy_rows(SmsAttempt, columns, rows(), now=now)

    def _chains(self, workspace, now) -> None:
        from campaigns.chains.models import CampaignGroup
        from campaigns.chains.text import name_key, search_text

        name = "گروه بنچ"
        group = CampaignGroup.objects.create(
            workspace=workspace, name=name, name_key=name_key(name), name_search=search_text(name)
        )
        goal = {"type": "TARGET_STATUS", "statuses": ["converted"]}
        runs = []
        statuses = ["COMPLETED", "DISPATCHED", "SKIPPED", "FAILED", "SCHEDULED"]
        for c in range(CHAINS):
            root = ChainNode.objects.create(
                workspace=workspace,
                group=group,
                name=f"زنجیره {c + 1}",
                status=CampaignStatus.ACTIVE,
                root_schedule={"type": "MONTHLY", "day": 1, "time": "09:00"},
                goal=goal,
                chain_action={"channel": "sms", "content": "سلام"},
            )
            root.root = root
            root.save(update_fields=["root"])
            for r in range(RUNS_PER_CHAIN):
                at = now - timedelta(days=RUNS_PER_CHAIN - r)
                runs.append(
                    CampaignRun(
                        workspace=workspace,
                        campaign=root,
                        root=root,
                        run_type="SCHEDULED",
                        status=statuses[r % len(statuses)],
                        planned_at=at,
                        scheduled_at=at,
                        audience_count=1000,
                    )
                )
        CampaignRun.objects.bulk_create(runs, batch_size=1000)

    def _browser(self, workspace, user, now) -> None:
        accounts = PagesWorld(self.scale, copy_rows).browser_accounts(workspace)  # a busy team's accounts
        platforms = []
        for c in range(BROWSER_CAMPAIGNS):
            campaign = Campaign.objects.create(
                workspace=workspace, name=f"مرورگر {c + 1}", kind="browser", status=CampaignStatus.COMPLETED
            )
            platforms.append(
                CampaignPlatform.objects.create(
                    workspace=workspace,
                    campaign=campaign,
                    platform="demo",
                    start_date=now,
                    metadata={"account_ids": [a.id for a in accounts[c::BROWSER_CAMPAIGNS]], "action_type": "like"},
                    is_tasks_created=True,
                )
            )
            CampaignStatistics.objects.create(workspace=workspace, campaign=campaign)
        count = self.n["tasks"]
        statuses = ["COMPLETED", "FAILED", "PENDING", "DISPATCHED"]

        def rows():
            for j in range(count):
                platform = platforms[j % len(platforms)]
                link = f"https://example.com/post/{j}"
                yield (
                    workspace.id,
                    platform.campaign_id,
                    platform.id,
                    accounts[(j // len(platforms)) % len(accounts)].id,
                    link,
                    f"{j:064x}",
                    "like",
                    statuses[j % len(statuses)],
                    now - timedelta(seconds=(count - j) * 60),
                )

        columns = [
            "workspace_id",
            "campaign_id",
            "platform_id",
            "account_id",
            "link",
            "link_hash",
            "action_type",
            "status",
            "start_date",
        ]
        copy_rows(BrowserTask, columns, rows(), now=now)

    def _blacklist(self, workspace, now) -> None:
        count = self.n["blacklist"]
        rows = ((workspace.id, f"+98{BASE_MOBILE + 5_000_000 + j}", j % 7 != 0) for j in range(count))
        copy_rows(BlacklistEntry, ["workspace_id", "value", "is_active"], rows, now=now)


class Command(BaseCommand):
    help = "Staff pages and API lists at a year's size: p50/p95/max and queries per pattern against a floor."

    def add_arguments(self, parser):
        parser.add_argument("--scale", type=float, default=1.0, help="1 = a million targets; 0.1 for a quick run")
        parser.add_argument("--repeat", type=int, default=20, help="measured requests per pattern (after a warm-up)")
        parser.add_argument("--max-p95-ms", type=float, help="fail (exit 1) when a pattern's p95 is above this")
        parser.add_argument(
            "--only", default="", help="run only the patterns whose label contains this (alternatives split by |)"
        )
        parser.add_argument("--rebuild", action="store_true", help="write the data template again")

    def handle(self, *args, **options):
        if connection.vendor != "postgresql":
            raise CommandError("bench_pages needs PostgreSQL (DATABASE_URL=postgres://…).")
        logging.getLogger("django.request").setLevel(logging.ERROR)
        scale = options["scale"]
        seed = Seed(scale, self.stdout)
        # One data template per scale, version of the rows and encryption key (its accounts' cookies are encrypted).
        key = f"p{round(scale * 100000)}v{SEED_VERSION}k{encryption_fingerprint()}"
        with bench_database(data=(key, seed), rebuild=options["rebuild"]):
            results, rss = self._measure(options)
        out = self.stdout.write
        out(f"bench_pages at scale {scale}: {seed.sizes()} (one workspace; the database is dropped)")
        out(f"each pattern: 1 warm-up + {options['repeat']} requests, Django test client, signed in as the owner")
        out("a streamed response (an export) is timed to its first bytes; its whole time in the last column")
        rows = [("pattern", "p50 ms", "p95 ms", "max ms", "queries", "status", "", "streamed: whole p95 ms")]
        limit = options["max_p95_ms"]
        failures = []
        for label, _url, times, queries, status, wholes in results:
            p95 = percentile(times, 95)
            verdict = ""
            if limit is not None:
                verdict = "ok" if p95 <= limit and status < 400 else "FAIL"
                if verdict == "FAIL":
                    failures.append(label)
            rows.append(
                (
                    label,
                    f"{statistics.median(times):.0f}",
                    f"{p95:.0f}",
                    f"{max(times):.0f}",
                    str(queries),
                    str(status),
                    verdict,
                    f"{percentile(wholes, 95):.0f}" if wholes else "",
                )
            )
        widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
        for row in rows:
            out("  ".join(cell.ljust(widths[i]) for i, cell in enumerate(row)).rstrip())
        out(f"web-process RSS: {rss[0]:.0f} MB before the first request → {rss[1]:.0f} MB after the last")
        if limit is not None:
            out(f"goal: every pattern p95 <= {limit:.0f} ms: {'met' if not failures else 'NOT met'}")
        if failures:
            self.stderr.write("above the goal: " + ", ".join(failures))
            sys.exit(1)

    def _measure(self, options) -> tuple[list, tuple[float, float]]:
        settings.ALLOWED_HOSTS = [*settings.ALLOWED_HOSTS, "testserver"]
        client = Client()
        client.force_login(get_user_model().objects.get(username=OWNER))
        patterns = patterns_of(Workspace.objects.get(slug=SLUG))
        missing = unmeasured(client, patterns)
        if missing:
            raise CommandError(
                "GET patterns neither measured nor named in tests.bench.pages_patterns.NOT_MEASURED: "
                + ", ".join(sorted(missing))
            )
        wanted = options["only"].split("|")
        patterns = [p for p in patterns if any(text in p.label for text in wanted)]
        freeze_loaded()  # as a web process does once it has loaded (config.wsgi)
        rss_before = rss_mb()
        results = []
        for pattern in patterns:
            label, url = pattern.label, pattern.url
            times, wholes, queries, status = [], [], 0, 0
            for i in range(options["repeat"] + 1):
                connection.queries_log.clear()  # the log keeps 9,000 queries: count each request alone
                with CaptureQueriesContext(connection) as captured:
                    started = time.perf_counter()
                    response = client.get(url) if pattern.post is None else client.post(url, pattern.post)
                    elapsed = whole = (time.perf_counter() - started) * 1000
                    if getattr(response, "streaming", False):
                        # A streamed export is timed to its first bytes (when the download starts and the browser
                        # shows its progress); its whole time is printed beside it.
                        for n, _ in enumerate(response.streaming_content):
                            if n == 0:
                                elapsed = (time.perf_counter() - started) * 1000
                        whole = (time.perf_counter() - started) * 1000
                if i:  # the first one warms caches
                    times.append(elapsed)
                    if getattr(response, "streaming", False):
                        wholes.append(whole)
                queries, status = len(captured), response.status_code
            results.append((label, url, times, queries, status, wholes))
        return results, (rss_before, rss_mb())


def encryption_fingerprint() -> str:
    """Three hex digits of the key that encrypts the template's secrets (a template under another key is another)."""
    secret = f"{settings.FIELD_ENCRYPTION_KEY}|{settings.SECRET_KEY}".encode()
    return hashlib.sha256(secret).hexdigest()[:3]


def percentile(values: list[float], p: float) -> float:
    """The nearest-rank percentile: the smallest value with at least ``p`` % of the values at or below it (p95 of
    20 requests is the 19th slowest-but-one, not the slowest)."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, math.ceil(p / 100 * len(ordered)) - 1))]
