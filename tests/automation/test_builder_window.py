"""The builder's send-window editor (Saturday → Friday), without a browser: saved into the draft's settings
through the workflow service; a window closed on every day is refused."""

import pytest

from automation.engine.window import SendWindow
from automation.models import Workflow
from automation.services import workflows
from campaigns.choices import Role
from campaigns.platform.errors import ValidationFailed

from ..conftest import make_actor, make_member

pytestmark = pytest.mark.django_db

DAYS = ("sat", "sun", "mon", "tue", "wed", "thu", "fri")


def _form(**days: str) -> dict[str, str]:
    data = {"window_enabled": "on"}
    data |= {f"day_{d}": days.get(d, "") for d in DAYS}
    return data


@pytest.fixture
def setup(client, workspace):
    user = make_member(workspace, Role.MANAGER)
    client.force_login(user)
    client.post("/automation/workflows/new/", {"name": "سفر", "template": "blank"})
    workflow = Workflow.objects.get(workspace=workspace)
    return client, workflow, f"/automation/workflows/{workflow.id}/builder/"


def _settings(workflow):
    return workflows.draft_of(workflow).settings


def test_builder_saves_the_journey_send_window(setup):
    client, workflow, base = setup
    form = _form(sat="09:00-12:00, ۱۴:۰۰-۱۸:۰۰", sun="08:30-17:00", thu="10:00-13:00")
    response = client.post(base + "window/", form)
    assert response.status_code == 302
    window = SendWindow.from_config(_settings(workflow)["send_window"])
    assert [(s.strftime("%H:%M"), e.strftime("%H:%M")) for s, e in window.days["sat"]] == [
        ("09:00", "12:00"),
        ("14:00", "18:00"),
    ]
    assert window.days["fri"] == () and window.days["sun"]
    page = client.get(base).content.decode()
    assert 'value="09:00-12:00, 14:00-18:00"' in page and 'name="day_fri" value=""' in page
    # Saturday comes first in the editor.
    assert page.index("win-sat") < page.index("win-sun") < page.index("win-fri")


def test_builder_refuses_a_window_closed_every_day(setup):
    client, workflow, base = setup
    client.post(base + "window/", _form(mon="09:00-17:00"))
    before = _settings(workflow)["send_window"]
    html = client.post(base + "window/", _form(), HTTP_HX_REQUEST="true").content.decode()
    assert "دست‌کم یک روز باید باز باشد" in html
    assert _settings(workflow)["send_window"] == before


def test_builder_refuses_a_malformed_interval(setup):
    client, workflow, base = setup
    html = client.post(base + "window/", _form(sat="18:00-09:00"), HTTP_HX_REQUEST="true").content.decode()
    assert 'data-testid="builder-error"' in html
    html = client.post(base + "window/", _form(sat="nine"), HTTP_HX_REQUEST="true").content.decode()
    assert 'data-testid="builder-error"' in html
    assert "send_window" not in _settings(workflow)


def test_builder_clears_the_journey_window(setup):
    client, workflow, base = setup
    client.post(base + "window/", _form(sat="09:00-18:00"))
    assert "send_window" in _settings(workflow)
    client.post(base + "window/", {"day_sat": "09:00-18:00"})  # box unticked: no journey window
    assert "send_window" not in _settings(workflow)


def test_send_window_service_refuses_every_day_closed(workspace):
    actor = make_actor(workspace)
    workflow = workflows.workflow_create(actor=actor, name="سفر")
    with pytest.raises(ValidationFailed) as exc:
        workflows.workflow_send_window_save(actor=actor, workflow_id=workflow.id, window={"days": dict.fromkeys(DAYS)})
    assert "send_window" in exc.value.details


def test_viewer_cannot_edit_the_window(client, workspace):
    workflow = workflows.workflow_create(actor=make_actor(workspace), name="سفر")
    client.force_login(make_member(workspace, Role.VIEWER))
    response = client.post(f"/automation/workflows/{workflow.id}/builder/window/", _form(sat="09:00-18:00"))
    assert response.status_code == 403
    assert "send_window" not in workflows.draft_of(workflow).settings
