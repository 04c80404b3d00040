"""Control groups and lift: the control share is set per node in the API, CONTROL members are held out and
recorded per run, and the lift report compares treated and control conversions (API, export)."""

import io
import math
from datetime import timedelta

import pytest
import time_machine
from openpyxl import load_workbook

from campaigns.chains.run_models import ConversionEvent, RunExecution
from campaigns.chains.runs.lift import NOT_ENOUGH, lift_numbers
from campaigns.models import Target

from ..conftest import api_client_for
from .conftest import ACTION, GOAL, audience_list, make_group
from .runs_helpers import approved_chain, at, root_run, tick

pytestmark = pytest.mark.django_db


def test_the_control_share_is_set_per_node_and_bounded(api, workspace):
    group = make_group(workspace)
    body = {
        "name": "ریشه",
        "campaign_group_id": group.id,
        "when": {"type": "MONTHLY", "day": "1", "time": "09:00"},
        "goal": GOAL,
        "source_target_list_id": audience_list(workspace).id,
        "chain_action": {**ACTION, "control_percent": 10},
    }
    root = api.post("/api/v1/campaign", body, format="json")
    assert root.status_code == 201, root.content
    assert root.json()["chain_action"]["control_percent"] == 10
    child = {
        "name": "دنباله",
        "parent_campaign_id": root.json()["id"],
        "expected_chain_revision": 1,
        "inheritance": {
            "type": "NOT_CONVERTED",
            "schedule": {"type": "AFTER_INTERVAL", "offset_days": 2, "run_time": "09:00"},
        },
        "chain_action": {**ACTION, "control_percent": 20},
    }
    made = api.post("/api/v1/campaign", child, format="json")
    assert made.status_code == 201 and made.json()["chain_action"]["control_percent"] == 20
    too_big = api.put(
        f"/api/v1/campaign/{made.json()['id']}",
        {"chain_action": {**ACTION, "control_percent": 60}, "expected_chain_revision": 2},
        format="json",
    )
    assert too_big.status_code == 400


def test_lift_numbers_difference_and_95_interval():
    result = lift_numbers(100, 30, 100, 10)
    margin = 1.959964 * math.sqrt(0.3 * 0.7 / 100 + 0.1 * 0.9 / 100)
    assert result["enough_data"] and result["difference"] == pytest.approx(0.2)
    assert (result["ci_low"], result["ci_high"]) == (pytest.approx(0.2 - margin), pytest.approx(0.2 + margin))
    assert "مثبت معنادار" in result["message"]
    small = lift_numbers(29, 10, 100, 1)
    assert not small["enough_data"] and small["difference"] is None and small["message"] == NOT_ENOUGH


def test_a_runs_lift_compares_treated_and_control_conversions_in_the_window(actor):
    with time_machine.travel(at(2026, 9, 20), tick=False):
        nodes, _ = approved_chain(
            actor, shape="A>B", targets=120, chain_action={"channel": "sms", "content": "سلام", "control_percent": 40}
        )
    root = nodes["A"]
    tick(at(2026, 10, 1, 9, 0))
    run = root_run(root, at(2026, 10, 1))
    members = dict(run.target_snapshot.members.values_list("target_id", "is_control"))
    control = sorted(t for t, c in members.items() if c)
    treated = sorted(t for t, c in members.items() if not c)
    assert len(control) >= 30 and len(treated) >= 30 and run.control_count == len(control)
    assert not set(control) & set(RunExecution.objects.filter(run=run).values_list("target_id", flat=True))
    started = run.started_at
    # 20 treated and 3 control members convert inside the window; one control member after it (not counted)
    for target_id in treated[:20] + control[:3]:
        ConversionEvent.objects.create(
            workspace=actor.workspace, target_id=target_id, name="target_status:converted", occurred_at=started
        )
    late = started + timedelta(days=root.attribution_window_days + 1)
    ConversionEvent.objects.create(
        workspace=actor.workspace, target_id=control[3], name="target_status:converted", occurred_at=late
    )
    api = api_client_for(actor.user, actor.workspace)
    body = api.get(f"/api/v1/campaign-runs/{run.id}/lift").json()
    assert (body["treated"], body["treated_conversions"]) == (len(treated), 20)
    assert (body["control"], body["control_conversions"]) == (len(control), 3)
    assert body["enough_data"] and body["difference"] == pytest.approx(20 / len(treated) - 3 / len(control))
    node = api.get(f"/api/v1/campaign/{root.id}/lift").json()
    assert node["run_id"] is None and node["treated_conversions"] == 20 and node["control"] == len(control)
    # the export carries the same report
    export = api.get(f"/api/v1/campaign-runs/{run.id}/audience/export")
    sheet = load_workbook(io.BytesIO(export.getvalue()))["اثر پیام"]
    lines = {row[0]: row[1] for row in sheet.iter_rows(values_only=True)}
    assert lines["دریافت‌کنندگان"].endswith("۲۰ تبدیل") and lines["گروه کنترل"].endswith("۳ تبدیل")


def test_status_goal_conversions_are_recorded_for_control_members_too(actor):
    from campaigns.chains.runs.audience import conversions_from_target_status

    with time_machine.travel(at(2026, 9, 20), tick=False):
        nodes, _ = approved_chain(
            actor, shape="A>B", targets=10, chain_action={"channel": "sms", "content": "سلام", "control_percent": 50}
        )
    tick(at(2026, 10, 1, 9, 0))
    run = root_run(nodes["A"], at(2026, 10, 1))
    control = list(run.target_snapshot.members.filter(is_control=True).values_list("target_id", flat=True))
    assert control
    with time_machine.travel(at(2026, 10, 2, 9, 0), tick=False):
        Target.objects.filter(pk__in=control).update(status="converted", updated_at=at(2026, 10, 2, 9, 0))
        conversions_from_target_status(run, now=at(2026, 10, 2, 9, 0))
    recorded = set(ConversionEvent.objects.filter(name="target_status:converted").values_list("target_id", flat=True))
    assert recorded == set(control)


def test_lift_is_tenant_scoped(actor, other_workspace):
    from ..conftest import make_member

    with time_machine.travel(at(2026, 9, 20), tick=False):
        nodes, _ = approved_chain(actor, shape="A>B", targets=2)
    tick(at(2026, 10, 1, 9, 0))
    run = root_run(nodes["A"], at(2026, 10, 1))
    stranger = api_client_for(make_member(other_workspace), other_workspace)
    assert stranger.get(f"/api/v1/campaign-runs/{run.id}/lift").status_code == 404
    assert stranger.get(f"/api/v1/campaign/{nodes['A'].id}/lift").status_code == 404
