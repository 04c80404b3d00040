"""Celery entry points of chains, found by Celery's autodiscovery of the installed apps (the run tasks)."""

from campaigns.chains.runs.tasks import chain_run_build, chain_run_conversions, chain_run_dispatch, chain_runs_tick

__all__ = ["chain_run_build", "chain_run_conversions", "chain_run_dispatch", "chain_runs_tick"]
