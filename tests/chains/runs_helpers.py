"""Helpers for chain run tests: an approved A>B>C chain, simulated engine results, ticks that run workers inline."""

from __future__ import annotations

import contextlib
from datetime import datetime
from zoneinfo import ZoneInfo

import time_machine
from django.contrib.contenttypes.models import ContentType
from django.test import TestCase
from django.utils import timezone

from automation.choices import EventType, ExecutionStatus
from automation.models import Execution, ExecutionEvent
from campaigns.chains.run_models import CampaignRun, RunExecution
from campaigns.chains.runs.build import run_audience_build
from campaigns.chains.runs.choices import RunType
from campaigns.chains.runs.dispatch import run_dispatch
from campaigns.chains.runs.scheduler import chain_runs_tick
from campaigns.chains.services.approval import campaign_submit, package_approve
from campaigns.models import Target
from tests.conftest import make_list, make_target

from .conftest import make_chain

TEHRAN = ZoneInfo("Asia/Tehran")


def at(year, month, day, hour=9, minute=0) -> datetime:
    return datetime(year, month, day, hour, minute, tzinfo=TEHRAN)


class Inline:
    """A ``send`` that runs builds and dispatches right after the scheduler's commit (a worker, inline)."""

    def __init__(self):
        self.sent: list[tuple] = []

    def __call__(self, kind: str, *args) -> None:
        self.sent.append((kind, *args))
        if kind == "build":
            run_audience_build(run_id=args[0], build_id=args[1], send=self)
        else:
            run_dispatch(run_id=args[0])


class Recorder:
    """A ``send`` that only records (a lost trigger / a worker that never ran)."""

    def __init__(self):
        self.sent: list[tuple] = []

    def __call__(self, kind: str, *args) -> None:
        self.sent.append((kind, *args))


def tick(when: datetime, send=None):
    """One scheduler tick at ``when``; after-commit hand-overs run as they would after a real commit."""
    with time_machine.travel(when, tick=False), TestCase.captureOnCommitCallbacks(execute=True):
        return chain_runs_tick(now=timezone.now(), send=send or Inline())


def approved_chain(actor, *, shape="A>B>C", targets=4, child_schedules=None, approve_at=None, **root_kwargs):
    """A monthly (1st 09:00) root with a list of ``targets``; B 2 days after A, C 1 day after B.

    Submitted now and approved at once, or at ``approve_at`` (time travel: a late approval).
    """
    workspace = actor.workspace
    lst = make_list(workspace)
    people = [make_target(workspace) for _ in range(targets)]
    for person in people:
        person.lists.add(lst)
    root_kwargs.setdefault("source_target_list", lst)
    nodes = make_chain(workspace, shape=shape, **root_kwargs)
    schedules = child_schedules or {
        "B": {"type": "NOT_CONVERTED", "schedule": {"type": "AFTER_INTERVAL", "offset_days": 2, "run_time": "09:00"}},
        "C": {"type": "NOT_CONVERTED", "schedule": {"type": "AFTER_INTERVAL", "offset_days": 1, "run_time": "09:00"}},
    }
    for key, inheritance in schedules.items():
        if key in nodes:
            nodes[key].inheritance = inheritance
            nodes[key].save(update_fields=["inheritance"])
    root = nodes["A"]
    _, package = campaign_submit(actor=actor, campaign_id=root.id, expected_chain_revision=root.chain_revision)
    later = time_machine.travel(approve_at, tick=False) if approve_at else contextlib.nullcontext()
    with later, TestCase.captureOnCommitCallbacks(execute=True):  # the approval seam fires after commit
        package_approve(actor=actor, package_id=package.id, expected_submitted_revision=package.submitted_revision)
    for node in nodes.values():
        node.refresh_from_db()
    return nodes, people


def runs_of(campaign, **filters):
    return list(CampaignRun.objects.filter(campaign=campaign, **filters).order_by("id"))


def root_run(root, planned_at):
    return CampaignRun.objects.get(campaign=root, run_type=RunType.SCHEDULED, planned_at=planned_at)


def settle(run: CampaignRun, results: dict[int, str] | None = None, default: str = "success") -> None:
    """Simulate the engine finishing every execution of a run: per target "success" / "failed" / "unknown"."""
    results = results or {}
    ct = ContentType.objects.get_for_model(Target)
    for link in RunExecution.objects.filter(run=run, execution_id__isnull=False):
        result = results.get(link.target_id, default)
        ex = Execution.objects.get(pk=link.execution_id)
        status = ExecutionStatus.FAILED if result in ("failed", "rejected") else ExecutionStatus.COMPLETED
        Execution.objects.filter(pk=ex.pk).update(status=status, completed_at=timezone.now())
        ExecutionEvent.objects.create(
            workspace_id=ex.workspace_id,
            execution=ex,
            campaign_id=ex.campaign_id,
            subject_type=ct,
            subject_id=ex.subject_id,
            type=EventType.ACTION_RESULT,
            data={"result": result},
            occurred_at=timezone.now(),
        )
