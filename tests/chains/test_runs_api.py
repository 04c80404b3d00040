"""Run API (list/detail/summary/export), conversion events, old pause/stop routing, status conversions,
and the child-parameter rule (story 446)."""

from __future__ import annotations

import io
from datetime import UTC, datetime, timedelta

import pytest
import time_machine
from django.utils import timezone
from openpyxl import load_workbook

from campaigns.chains.errors import ChainMemberControlled
from campaigns.chains.run_models import (
    CampaignRun,
    ConversionEvent,
    RunAudienceMember,
    RunAudienceSnapshot,
)
from campaigns.chains.runs.choices import ConversionSource, RunStatus, RunType, SkipReason, SnapshotStatus
from campaigns.chains.services.approval import campaign_submit
from campaigns.chains.tree import tree_reasons
from campaigns.choices import CampaignStatus, Role
from campaigns.platform.errors import ValidationFailed
from campaigns.services.campaigns import campaign_transition
from campaigns.services.targets import target_update
from tests.api_base import TenantIsolationCases
from tests.conftest import api_client_for, make_actor, make_campaign, make_member, make_target

from .conftest import make_chain
from .runs_helpers import approved_chain, at, root_run, runs_of, settle, tick

pytestmark = pytest.mark.django_db


@pytest.fixture
def seed_chain(actor):
    with time_machine.travel(at(2026, 9, 20), tick=False):
        return approved_chain(actor)


def _run_for(workspace) -> CampaignRun:
    campaign = make_campaign(workspace, chain_action=None)  # a campaign with its chains row (a run's is one)
    return CampaignRun.objects.create(
        workspace=workspace, campaign=campaign, run_type=RunType.SCHEDULED, planned_at=timezone.now()
    )


def _frozen_run(workspace, *names) -> CampaignRun:
    run = _run_for(workspace)
    snapshot = RunAudienceSnapshot.objects.create(
        workspace=workspace, run=run, attempt_no=1, status=SnapshotStatus.FROZEN, frozen_at=timezone.now()
    )
    for name in names or ("x",):
        RunAudienceMember.objects.create(
            snapshot=snapshot, build_id=snapshot.build_id, target=make_target(workspace, name=name)
        )
    CampaignRun.objects.filter(pk=run.pk).update(target_snapshot=snapshot)
    return run


# --------------------------------------------------------------------------- tenancy of every endpoint


class TestRunIsolation(TenantIsolationCases):
    list_url = "/api/v1/campaign-runs"
    detail_url = "/api/v1/campaign-runs/{id}"
    can_delete = False

    def make(self, workspace):
        return _run_for(workspace)


class TestCampaignRunListIsolation(TenantIsolationCases):
    detail_url = "/api/v1/campaign/{id}/runs"
    can_delete = False

    def make(self, workspace):
        return _run_for(workspace).campaign


class TestRunSummaryIsolation(TenantIsolationCases):
    detail_url = "/api/v1/campaign/{id}/run-summary"
    can_delete = False

    def make(self, workspace):
        return make_campaign(workspace)


class TestRunExportIsolation(TenantIsolationCases):
    detail_url = "/api/v1/campaign-runs/{id}/audience/export"
    can_delete = False

    def make(self, workspace):
        return _frozen_run(workspace)


class TestConversionEventIsolation(TenantIsolationCases):
    list_url = "/api/v1/conversion-events"
    detail_url = "/api/v1/conversion-events/{id}"
    can_delete = False

    def make(self, workspace):
        return ConversionEvent.objects.create(
            workspace=workspace, target=make_target(workspace), name="purchase", occurred_at=timezone.now()
        )


def test_recording_a_conversion_for_another_workspaces_target_is_404(api, other_workspace):
    foreign = make_target(other_workspace)
    body = {"target_id": foreign.id, "name": "purchase", "occurred_at": timezone.now().isoformat()}
    response = api.post("/api/v1/conversion-events", body, format="json")
    assert response.status_code == 404 and response.json()["error"]["code"] == "NOT_FOUND"
    assert not ConversionEvent.objects.exists()


# --------------------------------------------------------------------------- runs


def test_run_list_and_detail_carry_the_period_fields(api, seed_chain):
    nodes, _ = seed_chain
    tick(at(2026, 10, 1, 9, 0))
    tick(at(2026, 10, 1, 9, 5))
    a10 = root_run(nodes["A"], at(2026, 10, 1))
    b10 = CampaignRun.objects.get(campaign=nodes["B"], period_key=a10.id)

    page = api.get(f"/api/v1/campaign/{nodes['B'].id}/runs", {"page": 1, "size": 1}).json()
    assert (page["count"], page["page"], page["size"]) == (2, 1, 1)  # B-10 and the next period's B-11
    listed = api.get(f"/api/v1/campaign/{nodes['B'].id}/runs").json()["results"]
    row = next(r for r in listed if r["id"] == b10.id)
    assert row["run_type"] == "INHERITED" and row["period_key"] == a10.id
    assert row["source_run_id"] == a10.id and row["source_campaign_id"] == nodes["A"].id
    assert row["planned_at"] is not None and row["scheduled_at"] == row["planned_at"]
    assert row["wait_reason"] == "" and row["skip_reason"] == ""

    detail = api.get(f"/api/v1/campaign-runs/{a10.id}").json()
    assert detail["status"] == RunStatus.DISPATCHED and detail["expected_execution_count"] == 4
    assert detail["started_at"] is not None and detail["period_key"] == a10.id
    # a workspace without the Jalali calendar setting writes its times in Gregorian, in its own time zone
    assert detail["shown"]["planned_at"] == "2026-10-01 09:00" and detail["shown"]["completed_at"] is None

    in_period = api.get("/api/v1/campaign-runs", {"period_key": a10.id}).json()["results"]
    assert {r["campaign_id"] for r in in_period} == {nodes[k].id for k in "ABC"}
    bad = api.get("/api/v1/campaign-runs", {"period_key": "x"})
    assert bad.status_code == 400 and bad.json()["error"]["code"] == "VALIDATION_ERROR"


def test_child_summary_names_source_and_class_and_counts_only_the_latest_run_that_ran(api, seed_chain):
    nodes, people = seed_chain
    url = f"/api/v1/campaign/{nodes['B'].id}/run-summary"
    before = api.get(url).json()
    assert before["inheritance_label"] == f"ارث‌بری از «{nodes['A'].name}» – تبدیل‌نشده"
    assert before["source_campaign_id"] == nodes["A"].id and before["inherit_type"] == "NOT_CONVERTED"
    assert before["latest_run_count"] is None  # no count before it ran (never a guessed 0)

    tick(at(2026, 10, 1, 9, 0))
    a10 = root_run(nodes["A"], at(2026, 10, 1))
    settle(a10, {people[0].id: "failed"})
    tick(at(2026, 10, 1, 10, 0))
    tick(at(2026, 10, 3, 9, 0))
    b10 = CampaignRun.objects.get(campaign=nodes["B"], period_key=a10.id)
    assert b10.status == RunStatus.DISPATCHED
    after = api.get(url).json()
    assert after["latest_counted_run_id"] == b10.id and after["latest_run_count"] == 3
    # The newest run is the next period's, not yet run; the count is B-10's, not a sum of periods.
    assert after["latest_run"]["period_key"] != a10.id and after["latest_run"]["status"] == RunStatus.SCHEDULED

    root = api.get(f"/api/v1/campaign/{nodes['A'].id}/run-summary").json()
    assert root["inheritance_label"] is None and root["latest_run_count"] == 4


def test_export_reads_the_frozen_audience_and_writes_formulas_as_text(api, seed_chain):
    nodes, people = seed_chain
    people[1].name = '=HYPERLINK("http://evil")'
    people[1].save(update_fields=["name"])
    tick(at(2026, 10, 1, 9, 0))
    a10 = root_run(nodes["A"], at(2026, 10, 1))
    response = api.get(f"/api/v1/campaign-runs/{a10.id}/audience/export")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("application/vnd.openxmlformats")
    content = response.getvalue()  # streamed: read once
    rows = list(load_workbook(io.BytesIO(content)).active.iter_rows(min_row=3, values_only=True))
    assert sorted(r[0] for r in rows) == sorted(p.id for p in people)
    evil = next(r for r in rows if r[0] == people[1].id)
    assert evil[1] == '=HYPERLINK("http://evil")'
    cell = next(
        c for row in load_workbook(io.BytesIO(content)).active.iter_rows(min_row=3) for c in row if c.value == evil[1]
    )
    assert cell.data_type == "s"  # text, never a formula

    # Later changes to the list do not change an exported frozen audience.
    newcomer = make_target(nodes["A"].workspace)
    newcomer.lists.add(nodes["A"].source_target_list)
    again = load_workbook(io.BytesIO(api.get(f"/api/v1/campaign-runs/{a10.id}/audience/export").getvalue()))
    assert len(list(again.active.iter_rows(min_row=3))) == 4

    b10 = CampaignRun.objects.get(campaign=nodes["B"], period_key=a10.id)
    refused = api.get(f"/api/v1/campaign-runs/{b10.id}/audience/export")
    assert refused.status_code == 409 and refused.json()["error"]["code"] == "RUN_AUDIENCE_NOT_FROZEN"


def test_operator_exports_only_the_targets_they_own(workspace):
    operator = make_member(workspace, Role.OPERATOR)
    run = _frozen_run(workspace, "others")
    mine = make_target(workspace, name="mine", owner=operator)
    snapshot = run.snapshots.get()
    RunAudienceMember.objects.create(snapshot=snapshot, build_id=snapshot.build_id, target=mine)
    content = api_client_for(operator, workspace).get(f"/api/v1/campaign-runs/{run.id}/audience/export").getvalue()
    rows = list(load_workbook(io.BytesIO(content)).active.iter_rows(min_row=3, values_only=True))
    assert [r[0] for r in rows] == [mine.id]


# --------------------------------------------------------------------------- conversion events


def test_conversion_event_is_idempotent_by_external_id(api, workspace):
    target = make_target(workspace)
    body = {
        "target_id": target.id,
        "name": "purchase",
        "occurred_at": timezone.now().isoformat(),
        "data": {"amount": 120000},
        "external_id": "order-77",
    }
    first = api.post("/api/v1/conversion-events", body, format="json")
    assert first.status_code == 201, first.content
    again = api.post("/api/v1/conversion-events", {**body, "name": "other"}, format="json")
    assert again.status_code == 200 and again.json()["id"] == first.json()["id"]
    assert again.json()["name"] == "purchase" and ConversionEvent.objects.count() == 1
    assert first.json()["source"] == ConversionSource.API

    listed = api.get("/api/v1/conversion-events", {"target_id": target.id}).json()
    assert [e["id"] for e in listed["results"]] == [first.json()["id"]]
    assert api.get("/api/v1/conversion-events", {"target_id": target.id + 999}).json()["count"] == 0


def test_conversion_event_validation_and_permissions(api, workspace):
    target = make_target(workspace)
    future = (timezone.now() + timedelta(days=1)).isoformat()
    response = api.post(
        "/api/v1/conversion-events", {"target_id": target.id, "name": "x", "occurred_at": future}, format="json"
    )
    assert response.status_code == 400 and "occurred_at" in response.json()["error"]["details"]
    huge = {"target_id": target.id, "name": "x", "occurred_at": timezone.now().isoformat(), "data": {"k": "v" * 9000}}
    assert api.post("/api/v1/conversion-events", huge, format="json").status_code == 400
    viewer = api_client_for(make_member(workspace, Role.VIEWER), workspace)
    now = timezone.now().isoformat()
    denied = viewer.post(
        "/api/v1/conversion-events", {"target_id": target.id, "name": "x", "occurred_at": now}, format="json"
    )
    assert denied.status_code == 403 and denied.json()["error"]["code"] == "PERMISSION_DENIED"
    operator = api_client_for(make_member(workspace, Role.OPERATOR), workspace)
    other = operator.post(
        "/api/v1/conversion-events", {"target_id": target.id, "name": "x", "occurred_at": now}, format="json"
    )
    assert other.status_code == 404  # an operator records only for the targets they own
    assert not ConversionEvent.objects.exists()


def test_target_status_change_records_the_goal_conversion_at_once(actor, seed_chain):
    nodes, people = seed_chain
    tick(at(2026, 10, 1, 9, 0))
    outsider = make_target(actor.workspace)
    with time_machine.travel(at(2026, 10, 2, 12, 0), tick=False):
        target_update(actor=actor, target_id=people[2].id, data={"status": "converted"})
        target_update(actor=actor, target_id=outsider.id, data={"status": "converted"})
        target_update(actor=actor, target_id=people[3].id, data={"status": "interested"})  # not the goal
    events = list(ConversionEvent.objects.all())
    assert [(e.target_id, e.name, e.source) for e in events] == [
        (people[2].id, "target_status:converted", ConversionSource.TARGET_STATUS)
    ]
    assert events[0].occurred_at == at(2026, 10, 2, 12, 0)  # when it happened, not when a job looked
    with time_machine.travel(at(2026, 10, 2, 13, 0), tick=False):
        target_update(actor=actor, target_id=people[2].id, data={"status": "interested"})
        target_update(actor=actor, target_id=people[2].id, data={"status": "converted"})
    assert ConversionEvent.objects.count() == 1  # once per run window
    # The child built after it sees the conversion: NOT_CONVERTED excludes people[2].
    a10 = root_run(nodes["A"], at(2026, 10, 1))
    settle(a10)
    tick(at(2026, 10, 3, 9, 0))
    b10 = CampaignRun.objects.get(campaign=nodes["B"], period_key=a10.id)
    assert people[2].id not in set(b10.executions.values_list("target_id", flat=True))


# --------------------------------------------------------------------------- old pause/stop on chains


def test_old_pause_and_stop_route_a_root_to_chain_control(api, seed_chain):
    nodes, _ = seed_chain
    A = nodes["A"]
    response = api.post(f"/api/v1/campaigns/{A.id}/journey/pause", format="json")
    assert response.status_code == 200, response.content
    A.refresh_from_db()
    assert A.chain_control == "PAUSED"
    # Runs not started are skipped in the same transaction (descendants of a skipped source by source).
    assert [(r.status, r.skip_reason) for r in runs_of(A)] == [(RunStatus.SKIPPED, SkipReason.CHAIN_PAUSED)]
    assert {r.status for r in runs_of(nodes["B"]) + runs_of(nodes["C"])} == {RunStatus.SKIPPED}
    assert api.post(f"/api/v1/campaigns/{A.id}/journey/resume", format="json").status_code == 200
    A.refresh_from_db()
    assert A.chain_control == "NORMAL"
    assert api.post(f"/api/v1/campaigns/{A.id}/journey/cancel", format="json").status_code == 200
    A.refresh_from_db()
    assert A.chain_control == "STOPPED"


def test_old_pause_and_stop_on_a_child_answer_409_with_the_route(api, actor, seed_chain):
    nodes, _ = seed_chain
    B, A = nodes["B"], nodes["A"]
    for action in ("pause", "cancel", "resume"):
        response = api.post(f"/api/v1/campaigns/{B.id}/journey/{action}", format="json")
        assert response.status_code == 409, (action, response.content)
        error = response.json()["error"]
        assert error["code"] == "CHAIN_MEMBER" and error["details"]["root_campaign_id"] == A.id
        assert error["details"]["route"].startswith(f"/api/v1/campaign/{A.id}/chain/")
    with pytest.raises(ChainMemberControlled):
        campaign_transition(actor=actor, campaign_id=B.id, transition="cancel")
    B.refresh_from_db()
    A.refresh_from_db()
    assert B.status == CampaignStatus.SCHEDULED and A.chain_control == "NORMAL"


def test_late_approval_gives_the_current_period_no_run_and_starts_with_the_next(seed_chain):
    """Approved on 20 Sep: September's root time has passed, so September gets no run at all (nothing to send
    or skip); the first period is October's and every child has its run there."""
    nodes, _ = seed_chain
    runs = CampaignRun.objects.filter(campaign__in=nodes.values())
    assert not runs.filter(planned_at__lt=at(2026, 10, 1)).exists()
    a10 = root_run(nodes["A"], at(2026, 10, 1))
    assert set(runs.values_list("period_key", flat=True)) == {a10.id}


# --------------------------------------------------------------------------- the child-parameter rule


def test_child_message_may_only_use_data_the_inherited_audience_has(workspace):
    actor = make_actor(workspace)
    chain = make_chain(workspace, shape="A>B")
    B = chain["B"]
    B.chain_action = {"channel": "sms", "content": "{target.first_name} عزیز، کد سفارش {order.code}"}
    B.save(update_fields=["chain_action"])
    reasons = tree_reasons(list(chain.values()), timezone.get_current_timezone(), timezone.now())
    param = [r for r in reasons[B.id] if r["code"] == "PARAM_NOT_IN_SOURCE"]
    assert param and param[0]["params"] == ["order.code"] and param[0]["source_campaign_id"] == chain["A"].id
    with pytest.raises(ValidationFailed):
        campaign_submit(actor=actor, campaign_id=chain["A"].id, expected_chain_revision=chain["A"].chain_revision)
    B.chain_action = {"channel": "sms", "content": "{target.first_name} عزیز، {campaign.name}"}
    B.save(update_fields=["chain_action"])
    reasons = tree_reasons(list(chain.values()), timezone.get_current_timezone(), timezone.now())
    assert not [r for r in reasons.get(B.id, []) if r["code"] == "PARAM_NOT_IN_SOURCE"]


def test_the_runs_page_streams_the_frozen_audience_and_names_an_export_too_big(workspace, owner, settings):
    """The page's download is the API's workbook, streamed (members, then the lift sheet); past the export bound
    it goes back to the runs page with the message, never a broken file or a 500."""
    from django.test import Client

    run = _frozen_run(workspace, "الف", "ب")
    client = Client()
    client.force_login(owner)
    response = client.get(f"/chains/runs/{run.id}/audience.xlsx")
    assert response.status_code == 200 and response.streaming
    book = load_workbook(io.BytesIO(response.getvalue()))
    assert sorted(r[1] for r in book.worksheets[0].iter_rows(min_row=3, values_only=True)) == ["الف", "ب"]
    assert book.sheetnames[1] == "اثر پیام"
    settings.TARGETS_EXPORT_MAX_ROWS = 1
    refused = client.get(f"/chains/runs/{run.id}/audience.xlsx", follow=True)
    assert refused.redirect_chain[-1][0].endswith(f"/chains/campaigns/{run.campaign_id}/runs/")
    assert "در یک فایل صادر نمی‌شوند" in refused.content.decode()


def test_the_run_audience_export_stamps_the_freeze_in_the_workspace_time(workspace, owner, api):
    """16:08 UTC is read as 19:38 in Tehran, on the page's download and the API's."""
    from django.test import Client

    workspace.time_zone = "Asia/Tehran"
    workspace.save(update_fields=["time_zone"])
    run = _frozen_run(workspace, "الف")
    RunAudienceSnapshot.objects.filter(run=run).update(frozen_at=datetime(2026, 12, 4, 16, 8, tzinfo=UTC))
    client = Client()
    client.force_login(owner)
    for response in (
        client.get(f"/chains/runs/{run.id}/audience.xlsx"),
        api.get(f"/api/v1/campaign-runs/{run.id}/audience/export"),
    ):
        first = next(load_workbook(io.BytesIO(response.getvalue())).worksheets[0].iter_rows(values_only=True))
        assert first[2] == "1405/09/13 19:38"
