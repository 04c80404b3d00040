"""Serve the local demo site for browser tasks (the embedded default's target pages)."""

import time

from django.core.management.base import BaseCommand

from workers.localsite import LocalSite

DEMO_SITE_PORT = 8766


class Command(BaseCommand):
    help = "Serve the local demo site (post pages with Like/comment, login page) on 127.0.0.1."

    def add_arguments(self, parser):
        parser.add_argument("--port", type=int, default=DEMO_SITE_PORT)

    def handle(self, *args, **options):
        with LocalSite(port=options["port"]) as site:
            self.stdout.write(f"Demo site for browser tasks: {site.url('/post/1')}")
            try:
                while True:
                    time.sleep(3600)
            except KeyboardInterrupt:
                pass
