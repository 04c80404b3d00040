"""Check or repair the stored size of every target list: `manage.py target_list_sizes [--check] [--workspace slug]`.

The sizes are kept by database triggers with every write (``campaigns.platform.list_sizes``); this counts the
members again. ``--check`` only compares and exits 1 when a stored size differs; without it the counts are
stored. Exact when run while nothing writes memberships of the lists it counts.
"""

import sys

from django.core.management.base import BaseCommand, CommandError
from django.db import transaction

from campaigns.models import Workspace
from campaigns.platform import list_sizes


class Command(BaseCommand):
    help = "Count every target list's live members again; --check reports differences without storing."

    def add_arguments(self, parser):
        parser.add_argument("--check", action="store_true", help="only compare; exit 1 when a size differs")
        parser.add_argument("--workspace", default="", help="the workspace's slug (default: every workspace)")

    def handle(self, *args, check: bool, workspace: str, **options):
        workspace_id = None
        if workspace:
            workspace_id = Workspace.objects.filter(slug=workspace).values_list("id", flat=True).first()
            if workspace_id is None:
                raise CommandError(f"no workspace {workspace!r}")
        with transaction.atomic():
            stored = list_sizes.stored_sizes(workspace_id=workspace_id)
            counted = list_sizes.recount(workspace_id=workspace_id)
            if check:
                transaction.set_rollback(True)
        wrong = {pk: (stored.get(pk), n) for pk, n in counted.items() if stored.get(pk) != n}
        for pk, (was, now) in sorted(wrong.items()):
            self.stdout.write(f"list {pk}: stored {was}, counted {now}")
        verb = "differ" if check else "corrected"
        self.stdout.write(f"{len(counted)} lists counted, {len(wrong)} {verb}")
        if check and wrong:
            sys.exit(1)
