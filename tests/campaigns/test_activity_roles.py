"""Who closes and reopens a follow-up: its assignee, or a role that manages targets — never any viewer."""

import pytest

from campaigns.choices import Role
from campaigns.notifications.models import Activity, ActivityStatus
from campaigns.notifications.services import activity_create
from tests.conftest import api_client_for, make_member, make_target

pytestmark = pytest.mark.django_db


@pytest.fixture
def assigned(workspace):
    """An open follow-up of a salesperson's target, assigned to them."""
    salesperson = make_member(workspace, Role.OPERATOR)
    target = make_target(workspace, owner=salesperson)
    activity, _ = activity_create(workspace_id=workspace.id, target=target, title="تماس", assignee_id=salesperson.id)
    return salesperson, target, activity


def _status(activity) -> str:
    return Activity.objects.get(pk=activity.pk).status


def test_viewer_may_not_close_or_reopen_someone_elses_followup(workspace, assigned):
    _, _, activity = assigned
    viewer = api_client_for(make_member(workspace, Role.VIEWER), workspace)

    refused = viewer.post(f"/api/v1/activities/{activity.id}/done")
    assert refused.status_code == 403
    assert refused.json()["error"]["code"] == "PERMISSION_DENIED"
    assert _status(activity) == ActivityStatus.OPEN

    Activity.objects.filter(pk=activity.pk).update(status=ActivityStatus.DONE)
    assert viewer.post(f"/api/v1/activities/{activity.id}/reopen").status_code == 403
    assert _status(activity) == ActivityStatus.DONE


def test_assignee_even_a_viewer_closes_their_own_followup(workspace):
    viewer = make_member(workspace, Role.VIEWER)
    activity, _ = activity_create(
        workspace_id=workspace.id, target=make_target(workspace), title="x", assignee_id=viewer.id
    )
    client = api_client_for(viewer, workspace)
    assert client.post(f"/api/v1/activities/{activity.id}/done").json()["status"] == "done"
    assert client.post(f"/api/v1/activities/{activity.id}/reopen").json()["status"] == "open"


def test_a_role_managing_targets_closes_anyones_followup(workspace, assigned):
    _, _, activity = assigned
    manager = api_client_for(make_member(workspace, Role.MANAGER), workspace)
    assert manager.post(f"/api/v1/activities/{activity.id}/done").json()["status"] == "done"


def test_viewer_on_the_pages_gets_no_buttons_and_changes_nothing(client, workspace, assigned):
    _, target, activity = assigned
    client.force_login(make_member(workspace, Role.VIEWER))

    page = client.get(f"/targets/{target.id}/edit/").content.decode()
    assert "تماس" in page  # the follow-up is listed
    assert 'value="done"' not in page

    response = client.post("/followups/", {"action": "done", "id": activity.id}, follow=True)
    assert _status(activity) == ActivityStatus.OPEN
    assert "فقط مسئول این پیگیری یا مدیران مخاطبان" in response.content.decode()


def test_assignee_gets_the_buttons_on_the_target_page(client, workspace, assigned):
    salesperson, target, _ = assigned
    client.force_login(salesperson)
    assert 'value="done"' in client.get(f"/targets/{target.id}/edit/").content.decode()
