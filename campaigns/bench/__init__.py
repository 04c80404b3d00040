"""Benchmark code of the campaigns package: the harness every ``bench_*`` command shares (``harness``).

Nothing of the product imports it; the commands (``<app>/management/commands/bench_*.py``) do.
"""
