"""create_followup: one activity per execution + cycle + node, templated, due relative to now, notifies the
assignee, consumes no budget and runs while the SMS channel is paused."""

from datetime import UTC, datetime, timedelta
from types import SimpleNamespace

import pytest
import time_machine

from automation.actions.followup import CreateFollowupAction
from automation.engine.registry import ACTIONS, ResultStatus
from automation.models import DailyCounter, Execution
from automation.services.enrollment import enroll_subjects
from campaigns.choices import Role
from campaigns.models import Activity, Notification
from sms.models import SmsAttempt, SmsSettings
from tests.conftest import api_client_for, make_member, make_target

from .helpers import Driver, end_node, journey, linear_graph, setup_sms

pytestmark = pytest.mark.django_db
T0 = datetime(2030, 1, 1, 8, 0, tzinfo=UTC)


def followup_node(key="f", **config):
    return {
        "node_key": key,
        "type": "action",
        "subtype": "create_followup",
        "name": key,
        "config": {
            "title": "تماس با {target.name}",
            "description": "از کمپین {campaign.name}",
            "activity_type": "call",
            "due_in": {"value": 2, "unit": "hours"},
            **config,
        },
    }


def test_followup_is_registered_in_the_engine():
    assert isinstance(ACTIONS.get("create_followup"), CreateFollowupAction)
    assert ACTIONS.get("create_followup").consumes_budget is False


def test_followup_creates_activity_for_owner_while_sms_paused_without_budget(actor, workspace):
    setup_sms(workspace)
    SmsSettings.objects.filter(workspace=workspace).update(paused_until=T0 + timedelta(days=1), pause_reason="credit")
    salesperson = make_member(workspace, Role.OPERATOR)
    target = make_target(workspace, name="علی", owner=salesperson)
    with time_machine.travel(T0, tick=False):
        campaign = journey(actor, linear_graph(followup_node(), end_node()))
        enroll_subjects(actor=actor, campaign_id=campaign.id, target_ids=[target.id])
    Driver().tick(T0 + timedelta(minutes=1))
    activity = Activity.objects.get()
    assert (activity.title, activity.description) == ("تماس با علی", f"از کمپین {campaign.name}")
    assert activity.assignee == salesperson and activity.kind == "call" and activity.status == "open"
    assert activity.due_at == T0 + timedelta(minutes=1, hours=2)
    assert Execution.objects.get().status == "completed"
    assert SmsAttempt.objects.count() == 0
    assert not DailyCounter.objects.filter(used__gt=0).exists()
    assert Notification.objects.get(recipient=salesperson).kind == "activity_assigned"
    # the salesperson sees it in "my follow-ups" and closes it; the target page lists it
    client = api_client_for(salesperson, workspace)
    mine = client.get("/api/v1/activities?mine=true").json()
    assert [a["id"] for a in mine["results"]] == [activity.id]
    assert client.post(f"/api/v1/activities/{activity.id}/done").json()["status"] == "done"
    assert client.post(f"/api/v1/activities/{activity.id}/done").status_code == 409
    assert client.post(f"/api/v1/activities/{activity.id}/reopen").json()["status"] == "open"


def test_followup_replay_creates_one_activity(actor, workspace):
    target = make_target(workspace)
    chosen = make_member(workspace, Role.MANAGER)
    campaign = SimpleNamespace(id=None, name="ک", created_by_id=actor.user.id)
    ctx = SimpleNamespace(
        workspace=workspace,
        subject=target,
        campaign=campaign,
        execution=SimpleNamespace(id=987, cycle=1, metadata={}),
        node=SimpleNamespace(id=55, config={"title": "پیگیری {target.name}", "assignee": chosen.id}),
        now=T0,
        cache={},
    )
    action = ACTIONS.get("create_followup")
    first = action.execute(ctx)
    replay = action.execute(ctx)  # the same step run again (a job delivered twice, a worker that died)
    assert first.status == replay.status == ResultStatus.SUCCESS
    assert replay.data == {"activity_id": first.data["activity_id"], "duplicate": True}
    assert Activity.objects.count() == 1 and Activity.objects.get().assignee == chosen
    assert Notification.objects.filter(kind="activity_assigned").count() == 1
    ctx.execution.cycle = 2  # the journey came round again: a new activity
    assert action.execute(ctx).data["duplicate"] is False
    assert Activity.objects.count() == 2


def test_followup_config_is_checked_at_publish():
    action = ACTIONS.get("create_followup")
    assert action.validate_config({"title": "x"}) == []
    assert len(action.validate_config({"title": "", "due_in": {"value": -1}, "assignee": "someone"})) == 3


def test_target_page_and_my_followups_list_the_activity(client, actor, workspace):
    salesperson = make_member(workspace, Role.OPERATOR)
    target = make_target(workspace, owner=salesperson)
    from campaigns.notifications.services import activity_create

    activity_create(workspace_id=workspace.id, target=target, title="دیدار حضوری", assignee_id=salesperson.id)
    client.force_login(salesperson)
    assert "دیدار حضوری" in client.get(f"/targets/{target.id}/edit/").content.decode()
    assert "دیدار حضوری" in client.get("/followups/").content.decode()
    activity = Activity.objects.get()
    client.post("/followups/", {"action": "done", "id": activity.id})
    activity.refresh_from_db()
    assert activity.status == "done"
    assert "دیدار حضوری" not in client.get("/followups/").content.decode()  # open ones by default


def test_followup_in_a_batch_links_each_activity_to_its_target(actor, workspace):
    """The batched job reads subjects as column values; the activity still gets the target itself."""
    setup_sms(workspace)
    owners = [make_member(workspace, Role.OPERATOR) for _ in range(2)]
    targets = [make_target(workspace, name=f"مخاطب {i}", owner=owner) for i, owner in enumerate(owners)]
    with time_machine.travel(T0, tick=False):
        campaign = journey(actor, linear_graph(followup_node(), end_node()))
        enroll_subjects(actor=actor, campaign_id=campaign.id, target_ids=[t.id for t in targets])
    Driver().tick(T0 + timedelta(minutes=1))
    activities = {a.target_id: a for a in Activity.objects.all()}
    assert set(activities) == {t.id for t in targets}
    for target, owner in zip(targets, owners, strict=True):
        assert activities[target.id].assignee == owner
        assert activities[target.id].title == f"تماس با {target.name}"
    assert set(Execution.objects.values_list("status", flat=True)) == {"completed"}
