"""Celery entry points of chain runs (take ids, call one service). Imported by ``campaigns.tasks``."""

from celery import shared_task


@shared_task(name="campaigns.chain_runs_tick", soft_time_limit=240, time_limit=280)
def chain_runs_tick() -> None:
    from campaigns.chains.runs.scheduler import chain_runs_tick as tick

    tick()


@shared_task(name="campaigns.chain_run_build", acks_late=True, soft_time_limit=1500, time_limit=1600)
def chain_run_build(run_id: int, build_id: str) -> None:
    from campaigns.chains.runs.build import run_audience_build

    run_audience_build(run_id=run_id, build_id=build_id)


@shared_task(name="campaigns.chain_run_dispatch", acks_late=True, soft_time_limit=1500, time_limit=1600)
def chain_run_dispatch(run_id: int) -> None:
    from campaigns.chains.runs.dispatch import run_dispatch

    run_dispatch(run_id=run_id)


@shared_task(name="campaigns.chain_run_conversions", soft_time_limit=240, time_limit=280)
def chain_run_conversions() -> None:
    from campaigns.chains.runs.conversions import conversions_evaluate

    conversions_evaluate()


def send_task(kind: str, *args) -> None:
    """The scheduler's default way to hand work to a worker (never inside the scheduler itself)."""
    {"build": chain_run_build, "dispatch": chain_run_dispatch}[kind].delay(*args)
