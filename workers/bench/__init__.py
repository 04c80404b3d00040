"""Benchmark code of the browser channel: the raw-loop and pipeline runs (``browser``) and the local site
they drive, which also serves ``manage.py demo_site`` and the tests (``localsite``). Nothing of the
channel's product code imports it."""
