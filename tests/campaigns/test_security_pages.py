"""Redirects through next= (workspace switcher, my follow-ups), export formulas and bounds, API docs behind login."""

import io

import pytest
from openpyxl import load_workbook

from campaigns.choices import Role

from ..conftest import api_client_for, make_member, make_target

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("target", ["https://evil.example/", "//evil.example/x", "javascript:alert(1)"])
def test_open_redirect_through_next_in_the_workspace_switcher_is_refused(client, workspace, target):
    user = make_member(workspace, Role.VIEWER)
    client.force_login(user)
    response = client.post("/workspace/switch/", {"workspace": workspace.id, "next": target})
    assert response.status_code == 302
    assert response["Location"] == "/"


def test_workspace_switcher_still_follows_a_local_next(client, workspace):
    user = make_member(workspace, Role.VIEWER)
    client.force_login(user)
    response = client.post("/workspace/switch/", {"workspace": workspace.id, "next": "/targets/?city=x"})
    assert response["Location"] == "/targets/?city=x"


def _followup(workspace):
    from campaigns.notifications.services import activity_create

    operator = make_member(workspace, Role.OPERATOR)
    target = make_target(workspace, owner=operator)
    activity_create(workspace_id=workspace.id, target=target, title="تماس", assignee_id=operator.id)
    return operator, target, target.activities.get()


@pytest.mark.parametrize("target", ["https://evil.example/", "//evil.example/x", "javascript:alert(1)"])
def test_my_followups_does_not_follow_next_off_site(client, workspace, target):
    operator, _, activity = _followup(workspace)
    client.force_login(operator)
    response = client.post("/followups/", {"action": "done", "id": activity.id, "next": target})
    assert response.status_code == 302
    assert response["Location"] == "/followups/"


def test_my_followups_follows_a_same_site_next(client, workspace):
    operator, target, activity = _followup(workspace)
    client.force_login(operator)
    response = client.post("/followups/", {"action": "done", "id": activity.id, "next": f"/targets/{target.id}/edit/"})
    assert response["Location"] == f"/targets/{target.id}/edit/"


@pytest.mark.parametrize("value", ["=1+1", "+1+1", "-1+1", "@SUM(A1)", "\t=1", "\r=1"])
def test_spreadsheet_formula_injection_in_exports_is_written_as_text(workspace, value):
    owner = make_member(workspace, Role.OWNER)
    make_target(workspace, name=value, city='=HYPERLINK("http://x")')
    response = api_client_for(owner, workspace).get("/api/v1/targets/export")
    cells = next(load_workbook(io.BytesIO(response.getvalue())).active.iter_rows(min_row=2))
    name, city = cells[0], cells[7]
    assert name.data_type == "s" and name.value[1:] == value[1:]  # (XML stores a CR as a line feed)
    assert name.quotePrefix
    assert city.data_type == "s"


def test_targets_export_over_the_bound_asks_for_a_narrower_filter(client, workspace, settings):
    settings.TARGETS_EXPORT_MAX_ROWS = 2
    owner = make_member(workspace, Role.OWNER)
    for city in ("a", "a", "b"):
        make_target(workspace, city=city)
    api = api_client_for(owner, workspace)
    refused = api.get("/api/v1/targets/export")
    assert refused.status_code == 400 and refused.json()["error"]["code"] == "VALIDATION_ERROR"
    assert api.get("/api/v1/targets/export", {"city": "a"}).status_code == 200
    client.force_login(owner)
    page = client.get("/targets/", {"export": "xlsx"}, follow=True)
    assert page["Content-Type"].startswith("text/html") and "فیلتر" in page.content.decode()


def test_api_schema_and_docs_need_login(client, workspace):
    schema = client.get("/api/schema/")
    assert schema.status_code == 401
    docs = client.get("/api/docs/")
    assert docs.status_code == 302 and "/login/" in docs["Location"]
    client.force_login(make_member(workspace))
    assert client.get("/api/schema/").status_code == 200
    assert client.get("/api/docs/").status_code == 200
