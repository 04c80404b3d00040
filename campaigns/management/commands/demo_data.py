"""Load demo data for the embedded default (idempotent).

Creates the "demo" workspace, an admin user (password generated once, kept in
var/demo-credentials.txt and printed on every run), a few hundred targets in
lists, a published journey with a draft campaign, and a browser-task campaign
against the local demo site that `make run` serves. Refuses to run when DEBUG is off
unless --force is given, so production never gets a known account.
"""

import random
import secrets

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError
from django.db import transaction

from automation.services.campaigns import journey_campaign_create
from automation.services.workflows import workflow_create, workflow_publish
from campaigns.choices import Role, TargetStatus
from campaigns.models import Campaign, Target, TargetList, Workspace
from campaigns.platform.tenancy import Actor
from campaigns.services.workspaces import membership_set, workspace_create
from workers.management.commands.demo_site import DEMO_SITE_PORT
from workers.services.accounts import account_create
from workers.services.action_configs import action_config_create
from workers.services.campaigns import browser_campaign_create

FIRST = ["علی", "مریم", "رضا", "زهرا", "حسین", "فاطمه", "محمد", "سارا", "امیر", "نگار", "مهدی", "الهام"]
LAST = ["احمدی", "محمدی", "رضایی", "کریمی", "حسینی", "موسوی", "جعفری", "نوری", "صادقی", "رحیمی"]
PLACES = [("تهران", "تهران", "21"), ("اصفهان", "اصفهان", "31"), ("فارس", "شیراز", "71"), ("خراسان رضوی", "مشهد", "51")]
PREFIXES = ["912", "935", "901", "919", "937", "990"]


class Command(BaseCommand):
    help = "Create the demo workspace, admin user and a few hundred targets (idempotent)."

    def add_arguments(self, parser):
        parser.add_argument("--targets", type=int, default=300)
        parser.add_argument("--force", action="store_true", help="allow with DEBUG off")

    def handle(self, *args, **options):
        if not settings.DEBUG and not options["force"]:
            raise CommandError("demo_data is for the embedded development default (DEBUG=1) or use --force.")
        credentials = settings.VAR_DIR / "demo-credentials.txt"
        User = get_user_model()
        with transaction.atomic():
            user = User.objects.filter(username="admin").first()
            if user is None:
                password = secrets.token_urlsafe(9)
                user = User.objects.create_superuser("admin", "admin@example.com", password)
                credentials.write_text(f"admin {password}\n", encoding="utf-8")
                credentials.chmod(0o600)
            workspace = Workspace.objects.filter(slug="demo").first() or workspace_create(
                name="فروشگاه نمونه", slug="demo", owner=user
            )
            membership_set(workspace=workspace, user=user, role=Role.OWNER)
            self._targets(workspace, user, options["targets"])
            if not Campaign.objects.filter(workspace=workspace).exists():
                actor = Actor(user=user, workspace=workspace, membership=user.memberships.get(workspace=workspace))
                self._journey(actor)
                self._browser(actor)
        shown = credentials.read_text(encoding="utf-8").split() if credentials.exists() else ["admin", "(unchanged)"]
        self.stdout.write(self.style.SUCCESS(f"Demo login: username={shown[0]} password={shown[1]}"))

    def _journey(self, actor):
        """A published three-step journey and a draft campaign on it (enroll a list, then activate)."""
        workflow = workflow_create(actor=actor, name="معرفی سه‌مرحله‌ای", template="three_step_intro")
        workflow_publish(actor=actor, workflow_id=workflow.id)
        journey_campaign_create(
            actor=actor,
            name="جشنواره پاییز",
            workflow_id=workflow.id,
            daily_limit=100,
            source_target_list_id=TargetList.objects.get(workspace=actor.workspace, name="مشتریان وفادار").id,
        )

    def _browser(self, actor):
        """Accounts logged in to the local demo site (`make run` serves it) and a Like campaign on it."""
        site = f"http://127.0.0.1:{DEMO_SITE_PORT}"
        accounts = [
            account_create(actor=actor, label=f"حساب نمونه {i}", platform="demo", cookies=f"session=valid-demo-{i}")
            for i in range(1, 4)
        ]
        action_config_create(
            actor=actor,
            platform="demo",
            action_type="like",
            steps=[
                {"action": "goto"},
                {"action": "click", "selector": "#like"},
                {"action": "verify", "selector": ".liked"},
            ],
            login_check={"login_url_patterns": ["/login"], "logged_in_selector": "#me"},
        )
        browser_campaign_create(
            actor=actor,
            name="پسندیدن پست‌های سایت نمونه",
            platform="demo",
            action="like",
            accounts=[a.id for a in accounts],
            target_links=[f"{site}/post/{n}" for n in (1, 2)],
        )

    def _targets(self, workspace, user, count):
        if Target.objects.filter(workspace=workspace).exists():
            return
        rng = random.Random(1405)
        lists = [
            TargetList.objects.get_or_create(workspace=workspace, name=name)[0]
            for name in ("مشتریان تهران", "نمایشگاه ۱۴۰۵", "مشتریان وفادار")
        ]
        statuses = TargetStatus.values
        targets = []
        for i in range(count):
            first, last = rng.choice(FIRST), rng.choice(LAST)
            province, city, area = rng.choice(PLACES)
            has_mobile = i % 10 != 0
            targets.append(
                Target(
                    workspace=workspace,
                    name=f"{first} {last}",
                    first_name=first,
                    last_name=last,
                    mobile=f"+98{rng.choice(PREFIXES)}{1000000 + i:07d}" if has_mobile else None,
                    landline=f"+98{area}{30000000 + i:08d}" if (not has_mobile or i % 3 == 0) else None,
                    status=rng.choice(statuses),
                    owner=user,
                    province=province,
                    city=city,
                    priority=rng.randint(0, 5),
                )
            )
        Target.objects.bulk_create(targets)
        through = Target.lists.through
        links = [
            through(target_id=t.id, targetlist_id=lists[j].id)
            for t in Target.objects.filter(workspace=workspace)
            for j in range(3)
            if (t.id + j) % 3 == 0 or (j == 2 and t.id % 7 == 0)
        ]
        through.objects.bulk_create(links, ignore_conflicts=True)
