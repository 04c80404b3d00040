"""Loaded by every Python process of the chaos run (this folder is first on their PYTHONPATH): the run's
calendar clock replaces ``django.utils.timezone.now`` before anything imports it (tests/platform/chaos/clock.py)."""

import os

if os.environ.get("CHAOS_CLOCK"):
    from tests.platform.chaos.clock import install

    install()
