"""Load demo data for the embedded default (idempotent).

Creates the "demo" workspace, an admin user (password generated once, kept in
var/demo-credentials.txt and printed on every run), a few hundred targets in
lists; then every channel adds its part through the demo registry
(``campaigns.platform.registry.register_demo``): a console SMS provider, a
published journey with a draft campaign, a browser-task campaign against the
local demo site that `make run` serves. Refuses to run when DEBUG is off
unless --force is given, so production never gets a known account.
"""

import random
import secrets

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError
from django.db import transaction

from campaigns.choices import Role, TargetStatus
from campaigns.models import Target, TargetList, Workspace
from campaigns.platform.registry import demo_contributors
from campaigns.platform.tenancy import Actor
from campaigns.services.workspaces import membership_set, workspace_create

FIRST = ["علی", "مریم", "رضا", "زهرا", "حسین", "فاطمه", "محمد", "سارا", "امیر", "نگار", "مهدی", "الهام"]
LAST = ["احمدی", "محمدی", "رضایی", "کریمی", "حسینی", "موسوی", "جعفری", "نوری", "صادقی", "رحیمی"]
PLACES = [("تهران", "تهران", "21"), ("اصفهان", "اصفهان", "31"), ("فارس", "شیراز", "71"), ("خراسان رضوی", "مشهد", "51")]
PREFIXES = ["912", "935", "901", "919", "937", "990"]
APPROVER = "approver"


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
            self._second_approver(workspace, credentials)
            self._targets(workspace, user, options["targets"])
            actor = Actor(user=user, workspace=workspace, membership=user.memberships.get(workspace=workspace))
            for contributor in demo_contributors():
                contributor.contribute(workspace=workspace, user=user, actor=actor, stdout=self.stdout)
        lines = credentials.read_text(encoding="utf-8").splitlines() if credentials.exists() else []
        shown = dict(line.split(" ", 1) for line in lines if " " in line)
        self.stdout.write(
            self.style.SUCCESS(f"Demo login: username=admin password={shown.get('admin', '(unchanged)')}")
        )
        self.stdout.write(
            self.style.SUCCESS(
                f"Second approver (four-eyes approval: the submitter may not approve their own package): "
                f"username={APPROVER} password={shown.get(APPROVER, '(unchanged)')}"
            )
        )

    def _second_approver(self, workspace, credentials) -> None:
        """A second admin, so one person can try four-eyes approval: submit as admin, approve as this one."""
        User = get_user_model()
        approver = User.objects.filter(username=APPROVER).first()
        if approver is None:
            password = secrets.token_urlsafe(9)
            approver = User.objects.create_user(APPROVER, "approver@example.com", password)
            with credentials.open("a", encoding="utf-8") as out:
                out.write(f"{APPROVER} {password}\n")
        if not approver.memberships.filter(workspace=workspace).exists():
            membership_set(workspace=workspace, user=approver, role=Role.ADMIN)

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
        Target.objects.bulk_create([t.refresh_search_text() for t in targets])
        through = Target.lists.through
        links = [
            through(target_id=t.id, targetlist_id=lists[j].id)
            for t in Target.objects.filter(workspace=workspace)
            for j in range(3)
            if (t.id + j) % 3 == 0 or (j == 2 and t.id % 7 == 0)
        ]
        through.objects.bulk_create(links, ignore_conflicts=True)
