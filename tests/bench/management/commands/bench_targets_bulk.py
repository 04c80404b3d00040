"""Benchmark the bulk target upsert (PostgreSQL): ``POST /api/v1/targets/bulk`` end to end, next to a bare
``bulk_create`` of the same targets.

    python manage.py bench_targets_bulk --rows 10000 [--calls 3] [--min-ratio 0.2]

In a database of its own (``tests.bench.harness``), an owner's API client sends ``--calls`` requests of
``--rows`` new targets each (numbers written the way people type them: ``0912 …``), then the same requests
again (every row ``unchanged``: the idempotent repeat) and once more with a changed city (every row
``updated``). Each call goes through the whole API — JSON parsing, the row validation, the service, the
answer — in process. The baseline writes the same number of ``Target`` rows with one ``bulk_create`` each
(no parsing, no matching). Goal: ≥ 5,000 rows/s for the create; ``--min-ratio`` exits 1 when the create's
rate is below that ratio of the baseline's.
"""

from __future__ import annotations

import time
import uuid

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError
from rest_framework.test import APIClient

from campaigns.choices import Role
from campaigns.models import Target, Workspace
from campaigns.platform.database import is_postgresql
from campaigns.platform.tokens import api_token_create
from campaigns.services.workspaces import membership_set
from tests.bench.harness import GoalTable, bench_database, vacuum_analyze

GOAL_RATE = 5000  # rows/s


class Command(BaseCommand):
    help = "Bulk target upsert: rows/s through POST /api/v1/targets/bulk vs a bare bulk_create."

    def add_arguments(self, parser):
        parser.add_argument("--rows", type=int, default=10000, help="rows per call (at most 10,000)")
        parser.add_argument("--calls", type=int, default=3)
        parser.add_argument("--min-ratio", type=float, help="fail (exit 1) when create / bulk_create is below this")

    def handle(self, *args, **options):
        if not is_postgresql():
            raise CommandError("bench_targets_bulk needs PostgreSQL (DATABASE_URL=postgres://…).")
        rows, calls = options["rows"], options["calls"]
        result: dict = {}
        with bench_database():
            self._run(rows, calls, result)
        total = rows * calls
        out = self.stdout.write
        out(f"rows: {calls} calls × {rows:,} (in a database of the run, dropped: no rows left)")
        rates = {}
        for phase in ("create", "repeat", "update", "baseline"):
            rates[phase] = total / result[phase]
            label = {
                "create": "bulk upsert, new targets",
                "repeat": "the same calls again (unchanged)",
                "update": "the same numbers with a new city (updated)",
                "baseline": "bare bulk_create of the same rows",
            }[phase]
            out(f"{label}: {result[phase]:.2f} s → {rates[phase]:,.0f} rows/s")
        out(f"  [goal ≥ {GOAL_RATE:,} rows/s: {'met' if rates['create'] >= GOAL_RATE else 'NOT met'} (create)]")
        goals = GoalTable()
        goals.add("create / bare bulk_create", rates["create"] / rates["baseline"], ">= 20 %", options["min_ratio"])
        goals.add("update / bare bulk_create", rates["update"] / rates["baseline"], ">= 20 %", options["min_ratio"])
        goals.report(out, self.stderr)

    def _run(self, rows: int, calls: int, result: dict) -> None:
        slug = f"bench-{uuid.uuid4().hex[:8]}"
        workspace = Workspace.objects.create(name=slug, slug=slug)
        user = get_user_model().objects.create_user(slug)
        membership_set(workspace=workspace, user=user, role=Role.OWNER)
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=f"Token {api_token_create(user=user, workspace=workspace)[1]}")
        client.defaults["HTTP_X_WORKSPACE"] = slug
        bodies = [
            [{"name": f"مخاطب {c}-{i}", "mobile": f"0912 {c:03d} {i:04d}", "city": "شیراز"} for i in range(rows)]
            for c in range(calls)
        ]
        vacuum_analyze(Target._meta.db_table)

        def send(phase: str, expected: str, city: str | None = None) -> None:
            started = time.perf_counter()
            for body in bodies:
                sent = [{**r, "city": city} for r in body] if city else body
                response = client.post("/api/v1/targets/bulk", {"rows": sent}, format="json")
                if response.status_code != 200 or response.json()[expected] != rows:
                    raise CommandError(f"{phase}: {response.status_code} {str(response.content)[:300]}")
            result[phase] = time.perf_counter() - started

        send("create", "created")
        send("repeat", "unchanged")
        send("update", "updated", city="تهران")

        started = time.perf_counter()
        for c in range(calls):
            Target.objects.bulk_create(
                [
                    Target(workspace=workspace, name=f"پایه {c}-{i}", mobile=f"+98913{c:03d}{i:04d}", city="شیراز")
                    for i in range(rows)
                ],
                batch_size=1000,
            )
        result["baseline"] = time.perf_counter() - started
