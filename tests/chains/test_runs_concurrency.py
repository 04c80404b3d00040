"""Chain runs under real concurrency (PostgreSQL): two schedulers at once, pause at the claim boundary."""

from __future__ import annotations

import pytest
import time_machine
from django.db import connection
from django.utils import timezone

from campaigns.chains.run_models import CampaignRun, RunAudienceSnapshot
from campaigns.chains.runs import control, dispatch, scheduler
from campaigns.chains.runs.build import run_audience_build
from campaigns.chains.runs.choices import RunStatus, SkipReason
from campaigns.chains.services.approval import chain_control_set

from ..conftest import make_actor, make_workspace
from .runs_helpers import Recorder, approved_chain, at, root_run
from .test_concurrency import TIMEOUT, Hold, _runner, run_pair

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(connection.vendor != "postgresql", reason="row locks need PostgreSQL"),
]


def run_while_held(first, second, *, hold: Hold):
    """Run ``first`` up to the held call, run ``second`` to its end meanwhile (it skips locked rows, so it
    never waits), then let the first one finish."""
    results: dict[str, object] = {}
    t1 = _runner(results, "first", first)
    t1.start()
    try:
        assert hold.reached.wait(TIMEOUT), f"the first never reached the held call: {results.get('first')!r}"
        t2 = _runner(results, "second", second)
        t2.start()
        t2.join(TIMEOUT)
        assert not t2.is_alive(), "the second scheduler waited for the first one's locks"
    finally:
        hold.release.set()
        t1.join(TIMEOUT)
    return results["first"], results["second"]


def _chain():
    actor = make_actor(make_workspace("runs"))
    with time_machine.travel(at(2026, 9, 20), tick=False):
        nodes, _people = approved_chain(actor)
    return actor, nodes


def test_two_schedulers_at_once_build_a_run_once(monkeypatch):
    _actor, nodes = _chain()
    hold = Hold(monkeypatch, scheduler, "run_step")
    sent_one, sent_two = Recorder(), Recorder()
    with time_machine.travel(at(2026, 10, 1, 9, 0), tick=False):
        run_while_held(
            lambda: scheduler.chain_runs_tick(now=timezone.now(), send=sent_one),
            lambda: scheduler.chain_runs_tick(now=timezone.now(), send=sent_two),
            hold=hold,
        )
    builds = [s for s in sent_one.sent + sent_two.sent if s[0] == "build"]
    a10 = root_run(nodes["A"], at(2026, 10, 1))
    assert len(builds) == 1 and builds[0][1] == a10.id
    assert RunAudienceSnapshot.objects.filter(run=a10).count() == 1
    assert CampaignRun.objects.filter(campaign=nodes["A"]).count() == 2  # each once


def _ready_run(nodes):
    rec = Recorder()
    with time_machine.travel(at(2026, 10, 1, 9, 0), tick=False):
        scheduler.chain_runs_tick(now=timezone.now(), send=rec)
        _, run_id, build_id = rec.sent[0]
        run_audience_build(run_id=run_id, build_id=build_id, send=Recorder())
    return CampaignRun.objects.get(pk=run_id)


def test_claim_first_then_pause_the_run_keeps_sending(monkeypatch):
    actor, nodes = _chain()
    run = _ready_run(nodes)
    root = nodes["A"]
    hold = Hold(monkeypatch, dispatch, "_campaign_started")
    with time_machine.travel(at(2026, 10, 1, 9, 1), tick=False):
        _claimed, paused = run_pair(
            lambda: dispatch.run_claim(run.id, now=timezone.now()),
            lambda: chain_control_set(
                actor=actor,
                campaign_id=root.id,
                action="pause",
                expected_chain_revision=root.chain_revision,
            ),
            hold=hold,
        )
    run.refresh_from_db()
    assert run.status == RunStatus.DISPATCHING and run.started_at is not None
    # The claim bumped the root revision first: the pause with the old revision is refused, nothing skipped.
    assert isinstance(paused, Exception)


def test_pause_first_then_claim_the_run_is_skipped(monkeypatch):
    actor, nodes = _chain()
    run = _ready_run(nodes)
    root = nodes["A"]
    root.refresh_from_db()
    hold = Hold(monkeypatch, control, "run_skip")
    with time_machine.travel(at(2026, 10, 1, 9, 1), tick=False):
        paused, claimed = run_pair(
            lambda: chain_control_set(
                actor=actor, campaign_id=root.id, action="pause", expected_chain_revision=root.chain_revision
            ),
            lambda: dispatch.run_claim(run.id, now=timezone.now()),
            hold=hold,
        )
    assert claimed is None and not isinstance(paused, Exception)
    run.refresh_from_db()
    assert (run.status, run.skip_reason, run.started_at) == (RunStatus.SKIPPED, SkipReason.CHAIN_PAUSED, None)
