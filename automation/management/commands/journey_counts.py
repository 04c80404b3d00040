"""Check or repair journey campaigns' kept numbers: `manage.py journey_counts [--check] [--campaign ID]`.

The numbers are kept by database triggers with every execution and event write (``automation.journey_counts``);
this counts them again from the executions and the history still kept. ``--check`` only compares and exits 1
when a number differs; without it each campaign's numbers are rebuilt (safe while the engine runs).
"""

import sys

from django.core.management.base import BaseCommand

from automation import journey_counts
from automation.models import Execution, JourneyCount


class Command(BaseCommand):
    help = "Count journey campaigns' numbers again; --check reports differences without storing."

    def add_arguments(self, parser):
        parser.add_argument("--check", action="store_true", help="only compare; exit 1 when a number differs")
        parser.add_argument("--campaign", type=int, help="one campaign's id (default: every campaign)")

    def handle(self, *args, check: bool, campaign: int | None, **options):
        if campaign is not None:
            ids = [campaign]
        else:
            ids = sorted(
                {*Execution.objects.values_list("campaign_id", flat=True).distinct().order_by()}
                | {*JourneyCount.objects.values_list("campaign_id", flat=True).distinct().order_by()}
            )
        wrong = 0
        for campaign_id in ids:
            differences = journey_counts.differences(campaign_id=campaign_id)
            for key, (stored, counted) in differences.items():
                self.stdout.write(f"campaign {campaign_id}: {key} stored {stored}, counted {counted}")
            if differences:
                wrong += 1
                if not check:
                    journey_counts.recount(campaign_id=campaign_id)
        verb = "differ" if check else "corrected"
        self.stdout.write(f"{len(ids)} campaigns counted, {wrong} {verb}")
        if check and wrong:
            sys.exit(1)
