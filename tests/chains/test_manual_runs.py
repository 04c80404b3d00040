"""Manual runs (chains.md "Runs": run_type MANUAL): the chain root sent now to its audience of the moment;
no child inherits from it; a child is never run on its own."""

from __future__ import annotations

import pytest
import time_machine

from campaigns.chains.errors import (
    ChainControlInvalid,
    ChildRunsWithItsSource,
    RunInProgress,
    RunNotFinished,
    ScheduleEnded,
    StaleChainRevision,
)
from campaigns.chains.run_models import CampaignRun, RunExecution
from campaigns.chains.runs.choices import RunStatus, RunType
from campaigns.chains.runs.manual import manual_run_create, rerun_create
from campaigns.chains.services.approval import chain_control_set
from campaigns.choices import Role
from tests.conftest import api_client_for, make_member, make_workspace

from .runs_helpers import Recorder, approved_chain, at, runs_of, settle, tick

pytestmark = pytest.mark.django_db


def _chain(actor, **kwargs):
    with time_machine.travel(at(2026, 9, 20), tick=False):
        return approved_chain(actor, **kwargs)


def _run_now(actor, campaign, when, revision=None):
    campaign.refresh_from_db()
    with time_machine.travel(when, tick=False):
        return manual_run_create(
            actor=actor,
            campaign_id=campaign.id,
            expected_chain_revision=campaign.chain_revision if revision is None else revision,
        )


def test_a_manual_run_sends_the_root_now_and_no_child_inherits_from_it(actor):
    nodes, people = _chain(actor)
    children_before = {r.id for r in runs_of(nodes["B"]) + runs_of(nodes["C"])}
    run = _run_now(actor, nodes["A"], at(2026, 9, 25, 11))
    assert (run.run_type, run.status, run.period_key) == (RunType.MANUAL, RunStatus.SCHEDULED, None)
    tick(at(2026, 9, 25, 11, 1))
    run.refresh_from_db()
    assert run.status == RunStatus.DISPATCHED and run.started_at == at(2026, 9, 25, 11, 1)
    sent = set(RunExecution.objects.filter(run=run, execution_id__isnull=False).values_list("target_id", flat=True))
    assert sent == {p.id for p in people}
    settle(run)
    tick(at(2026, 9, 25, 11, 5))
    run.refresh_from_db()
    assert run.status == RunStatus.COMPLETED
    # No child run was created for it: B and C keep only the runs of the scheduled period.
    assert {r.id for r in runs_of(nodes["B"]) + runs_of(nodes["C"])} == children_before
    assert not CampaignRun.objects.filter(source_run=run).exists()


def test_a_child_is_never_run_on_its_own(actor):
    nodes, _ = _chain(actor)
    with pytest.raises(ChildRunsWithItsSource):
        _run_now(actor, nodes["B"], at(2026, 9, 25, 11), revision=nodes["A"].chain_revision)
    assert not CampaignRun.objects.filter(run_type=RunType.MANUAL).exists()


def test_refused_while_paused_on_a_stale_revision_and_while_another_run_is_being_built(actor):
    nodes, _ = _chain(actor)
    root = nodes["A"]
    with pytest.raises(StaleChainRevision):
        _run_now(actor, root, at(2026, 9, 25, 11), revision=root.chain_revision + 5)
    first = _run_now(actor, root, at(2026, 9, 25, 11))
    tick(at(2026, 9, 25, 11, 1), send=Recorder())  # the build is handed to a worker that has not run yet
    first.refresh_from_db()
    assert first.status == RunStatus.BUILDING
    with pytest.raises(RunInProgress):
        _run_now(actor, root, at(2026, 9, 25, 11, 2))
    root.refresh_from_db()
    chain_control_set(actor=actor, campaign_id=root.id, action="pause", expected_chain_revision=root.chain_revision)
    with pytest.raises(ChainControlInvalid):
        _run_now(actor, root, at(2026, 9, 25, 12))
    assert CampaignRun.objects.filter(run_type=RunType.MANUAL).count() == 1


def test_refused_after_the_schedule_ended(actor):
    nodes, _ = _chain(
        actor, shape="A>B", root_schedule={"type": "MONTHLY", "day": 1, "time": "09:00", "end_date": "2026-10-15"}
    )
    with pytest.raises(ScheduleEnded):
        _run_now(actor, nodes["A"], at(2026, 10, 20, 9))


def test_run_now_api(actor, workspace):
    nodes, _ = _chain(actor)
    root, child = nodes["A"], nodes["B"]
    client = api_client_for(actor.user, workspace)
    with time_machine.travel(at(2026, 9, 25, 11), tick=False):
        response = client.post(
            f"/api/v1/campaign/{root.id}/run-now", {"expected_chain_revision": root.chain_revision}, format="json"
        )
        assert response.status_code == 201, response.content
        body = response.json()
        assert body["run"]["run_type"] == "MANUAL" and body["children_triggered"] is False and body["message"]
        refused = client.post(f"/api/v1/campaign/{child.id}/run-now", {"expected_chain_revision": 1}, format="json")
        assert refused.status_code == 409
        assert refused.json()["error"]["code"] == "CHAIN_CHILD_RUNS_WITH_ITS_SOURCE"
        missing = client.post(f"/api/v1/campaign/{root.id}/run-now", {}, format="json")
        assert missing.status_code == 400
        viewer = api_client_for(make_member(workspace, Role.VIEWER), workspace)
        assert viewer.post(f"/api/v1/campaign/{root.id}/run-now", {"expected_chain_revision": 1}).status_code == 403


def test_run_now_on_another_workspaces_campaign_is_404_and_creates_nothing(actor):
    nodes, _ = _chain(actor)
    other = make_workspace("other")
    stranger = api_client_for(make_member(other, Role.OWNER), other)
    response = stranger.post(f"/api/v1/campaign/{nodes['A'].id}/run-now", {"expected_chain_revision": 1}, format="json")
    assert response.status_code == 404
    assert not CampaignRun.objects.filter(run_type=RunType.MANUAL).exists()


def test_a_rerun_sends_the_earlier_runs_frozen_audience_again(actor):
    nodes, people = _chain(actor)
    root = nodes["A"]
    first = _run_now(actor, root, at(2026, 9, 25, 11))
    tick(at(2026, 9, 25, 11, 1))
    settle(first)
    tick(at(2026, 9, 25, 11, 5))
    first.refresh_from_db()
    assert first.status == RunStatus.COMPLETED
    people[0].lists.clear()  # left the list since: a rerun still sends to whom the earlier run sent
    root.refresh_from_db()
    with time_machine.travel(at(2026, 9, 26, 10), tick=False):
        again = rerun_create(actor=actor, run_id=first.id, expected_chain_revision=root.chain_revision)
    assert (again.run_type, again.source_run_id, again.period_key) == (RunType.RERUN, first.id, None)
    tick(at(2026, 9, 26, 10, 1))
    again.refresh_from_db()
    assert again.status == RunStatus.DISPATCHED
    assert again.selection_rule_snapshot["rerunOfRunId"] == first.id
    sent = set(RunExecution.objects.filter(run=again, execution_id__isnull=False).values_list("target_id", flat=True))
    assert sent == {p.id for p in people}
    assert not CampaignRun.objects.filter(source_run=again).exists()


def test_a_rerun_needs_a_finished_run_of_the_root(actor):
    nodes, _ = _chain(actor)
    root = nodes["A"]
    pending = runs_of(root)[0]  # the scheduled run of October: not run yet
    child_run = runs_of(nodes["B"])[0]
    root.refresh_from_db()
    with time_machine.travel(at(2026, 9, 25, 11), tick=False):
        with pytest.raises(RunNotFinished):
            rerun_create(actor=actor, run_id=pending.id, expected_chain_revision=root.chain_revision)
        with pytest.raises(ChildRunsWithItsSource):
            rerun_create(actor=actor, run_id=child_run.id, expected_chain_revision=root.chain_revision)
        client = api_client_for(actor.user, root.workspace)
        response = client.post(
            f"/api/v1/campaign-runs/{pending.id}/rerun", {"expected_chain_revision": root.chain_revision}, format="json"
        )
        assert response.status_code == 409 and response.json()["error"]["code"] == "RUN_NOT_FINISHED"
    other = make_workspace("other")
    stranger = api_client_for(make_member(other, Role.OWNER), other)
    assert stranger.post(f"/api/v1/campaign-runs/{pending.id}/rerun", {"expected_chain_revision": 1}).status_code == 404
    assert not CampaignRun.objects.filter(run_type=RunType.RERUN).exists()
