"""Serve the local demo site for browser tasks (the embedded default's target pages) and a demo proxy in
front of it (the demo data's «پراکسی نمونه», with a user name and password, so staff can try proxies)."""

import time

from django.core.management.base import BaseCommand

from workers.localsite import LocalProxy, LocalSite

DEMO_SITE_PORT = 8766
DEMO_PROXY_PORT = 8767
DEMO_PROXY_CREDENTIALS = ("demo", "demo-proxy")  # a demo's secret, printed by demo_data too


class Command(BaseCommand):
    help = "Serve the local demo site (post pages with Like/comment, login page) on 127.0.0.1."

    def add_arguments(self, parser):
        parser.add_argument("--port", type=int, default=DEMO_SITE_PORT)
        parser.add_argument("--proxy-port", type=int, default=DEMO_PROXY_PORT)

    def handle(self, *args, **options):
        with (
            LocalSite(port=options["port"]) as site,
            LocalProxy(credentials=DEMO_PROXY_CREDENTIALS, port=options["proxy_port"]) as proxy,
        ):
            self.stdout.write(f"Demo site for browser tasks: {site.url('/post/1')}; demo proxy: 127.0.0.1:{proxy.port}")
            try:
                while True:
                    time.sleep(3600)
            except KeyboardInterrupt:
                pass
