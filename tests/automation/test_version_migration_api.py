"""Live edits over the API: dry run, commit, progress, stale version, isolation."""

import pytest

from automation.models import Execution
from tests.conftest import api_client_for, make_member

from .test_version_migrations import V2_TEXT, _ids, publish_v2, running_at_wait, v1_graph


def _setup(actor, workspace, n=3):
    campaign, _ = running_at_wait(actor, workspace, n=n)
    new = publish_v2(actor, campaign, v1_graph(second_text=V2_TEXT))
    workflow_id, old = _ids(campaign)
    return campaign, workflow_id, old, new


@pytest.mark.django_db
def test_dry_run_then_commit(api, actor, workspace):
    _, workflow_id, old, new = _setup(actor, workspace)
    body = {"from_version_id": old.id, "to_version_id": new.id}
    preview = api.post(f"/api/v1/workflows/{workflow_id}/migrations/preview", body, format="json")
    assert preview.status_code == 200, preview.content
    data = preview.json()
    assert data["text_only"] is True and data["text_fix_count"] == 3
    assert {n["node_key"]: n["live"] for n in data["nodes"]}["w"] == 3
    assert Execution.objects.filter(version_id=new.id).count() == 0  # a dry run writes nothing
    commit = api.post(
        f"/api/v1/workflows/{workflow_id}/migrations",
        {**body, "choices": [{"node_key": "w", "choice": "move", "to_node_key": "w"}]},
        format="json",
    )
    assert commit.status_code == 200, commit.content
    out = commit.json()
    assert out["status"] == "done" and out["result"]["moved"] == 3 and out["processed"] == 3
    again = api.get(f"/api/v1/workflow-migrations/{out['id']}")
    assert again.status_code == 200 and again.json()["id"] == out["id"]
    assert Execution.objects.filter(version_id=new.id).count() == 3


@pytest.mark.django_db
def test_stale_version_is_a_409_and_a_bad_choice_a_400(api, actor, workspace):
    campaign, workflow_id, old, new = _setup(actor, workspace, n=1)
    bad = api.post(
        f"/api/v1/workflows/{workflow_id}/migrations",
        {
            "from_version_id": old.id,
            "to_version_id": new.id,
            "choices": [{"node_key": "w", "choice": "move", "to_node_key": "nope"}],
        },
        format="json",
    )
    assert bad.status_code == 400 and bad.json()["error"]["code"] == "VALIDATION_ERROR"
    publish_v2(actor, campaign, v1_graph(second_text="دیگر"))
    stale = api.post(
        f"/api/v1/workflows/{workflow_id}/migrations",
        {"from_version_id": old.id, "to_version_id": new.id},
        format="json",
    )
    assert stale.status_code == 409 and stale.json()["error"]["code"] == "STALE_VERSION"
    assert stale.json()["error"]["message"] == "نسخهٔ منتشرشدهٔ این گردش‌کار عوض شده است؛ صفحه را دوباره باز کنید."
    english = api.post(
        f"/api/v1/workflows/{workflow_id}/migrations",
        {"from_version_id": old.id, "to_version_id": new.id},
        format="json",
        HTTP_ACCEPT_LANGUAGE="en",
    )
    assert english.status_code == 409 and english.json()["error"] == {
        "code": "STALE_VERSION",
        "message": "The workflow's published version changed since the dry run; preview the migration again.",
        "details": english.json()["error"]["details"],
    }


@pytest.mark.django_db
def test_other_workspace_gets_404(actor, workspace, other_workspace):
    _, workflow_id, old, new = _setup(actor, workspace, n=1)
    stranger = api_client_for(make_member(other_workspace), other_workspace)
    body = {"from_version_id": old.id, "to_version_id": new.id}
    assert stranger.post(f"/api/v1/workflows/{workflow_id}/migrations/preview", body, format="json").status_code == 404
    assert stranger.post(f"/api/v1/workflows/{workflow_id}/migrations", body, format="json").status_code == 404
    api_of_owner = api_client_for(actor.user, workspace)
    made = api_of_owner.post(f"/api/v1/workflows/{workflow_id}/migrations", body, format="json").json()
    assert stranger.get(f"/api/v1/workflow-migrations/{made['id']}").status_code == 404
    assert Execution.objects.get().version_id == new.id  # moved by its own workspace only
