"""Celery entry points of chain runs (take ids, call one service). Imported by ``campaigns.chains.tasks``."""

from celery import shared_task

from campaigns.chains.runs.build import run_audience_build
from campaigns.chains.runs.conversions import conversions_evaluate
from campaigns.chains.runs.dispatch import run_dispatch
from campaigns.chains.runs.scheduler import chain_runs_tick as tick
from campaigns.chains.runs.transitions import RUN_TASKS


@shared_task(name="campaigns.chain_runs_tick", soft_time_limit=240, time_limit=280)
def chain_runs_tick() -> None:
    tick()


@shared_task(name=RUN_TASKS["build"], acks_late=True, soft_time_limit=1500, time_limit=1600)
def chain_run_build(run_id: int, build_id: str) -> None:
    run_audience_build(run_id=run_id, build_id=build_id)


@shared_task(name=RUN_TASKS["dispatch"], acks_late=True, soft_time_limit=1500, time_limit=1600)
def chain_run_dispatch(run_id: int) -> None:
    run_dispatch(run_id=run_id)


@shared_task(name="campaigns.chain_run_conversions", soft_time_limit=240, time_limit=280)
def chain_run_conversions() -> None:
    conversions_evaluate()
