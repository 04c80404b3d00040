"""Workflow pages without a browser: permission, builder edits through the graph service, archive."""

import pytest

from automation.builder.sequence import try_decompile
from automation.choices import VersionStatus, WorkflowStatus
from automation.engine.graph import graph_of_version
from automation.models import Workflow
from automation.services import workflows
from campaigns.choices import Role

from ..conftest import make_actor, make_member, make_target

pytestmark = pytest.mark.django_db


def _sequence(workflow):
    draft = workflows.draft_of(workflow)
    sequence, reason = try_decompile(graph_of_version(draft))
    assert reason is None
    return sequence


def test_viewer_gets_403_and_no_automation_menu(client, workspace):
    owner = make_actor(workspace)
    workflow = workflows.workflow_create(actor=owner, name="سفر")
    client.force_login(make_member(workspace, Role.VIEWER))
    assert client.get("/automation/workflows/").status_code == 403
    assert client.get(f"/automation/workflows/{workflow.id}/builder/").status_code == 403
    assert (
        client.post(f"/automation/workflows/{workflow.id}/builder/add/", {"at": "0", "kind": "wait"}).status_code == 403
    )
    assert "اتوماسیون" not in client.get("/").content.decode()


def test_another_workspaces_workflow_is_404(client, workspace, other_workspace):
    foreign = workflows.workflow_create(actor=make_actor(other_workspace), name="دیگری")
    client.force_login(make_member(workspace, Role.MANAGER))
    assert client.get(f"/automation/workflows/{foreign.id}/").status_code == 404
    assert client.get(f"/automation/workflows/{foreign.id}/builder/").status_code == 404


def test_builder_pages_edit_the_draft_through_the_graph_service(client, workspace):
    user = make_member(workspace, Role.MANAGER)
    make_target(workspace, name="سارا", first_name="سارا")
    client.force_login(user)
    response = client.post("/automation/workflows/new/", {"name": "خوش‌آمد", "template": "blank"})
    workflow = Workflow.objects.get(workspace=workspace)
    assert response.status_code == 302
    base = f"/automation/workflows/{workflow.id}/builder/"
    assert client.get(base).status_code == 200
    client.post(base + "add/", {"at": "0", "kind": "send_sms"}, HTTP_HX_REQUEST="true")
    sequence = _sequence(workflow)
    sms = sequence.steps[0]
    page = client.get(base).content.decode()
    assert "متن پیامک لازم است" in page  # a draft saves incomplete; the problem is listed
    assert 'href="#step-0"' in page
    html = client.post(
        base + "step/",
        {
            "path": "0",
            "key": sms.key,
            "name": "سلام",
            "enabled_present": "1",
            "enabled": "on",
            "cfg_present": ["body", "send_only_in_window"],
            "cfg_body": "سلام {target.first_name}",
            "cfg_send_only_in_window": "on",
            "retry_present": "1",
            "retry_enabled": "on",
            "retry_strategy": "fixed",
            "retry_max_attempts": "۲",
            "retry_interval_minutes": "15",
            "retry_on_exhausted": "continue",
        },
        HTTP_HX_REQUEST="true",
    ).content.decode()
    assert 'id="builder"' in html and "<html" not in html
    sms = _sequence(workflow).steps[0]
    assert sms.config["body"] == "سلام {target.first_name}"
    assert sms.retry.max_attempts == 2 and sms.retry.interval_seconds == 900
    preview = client.post(
        base + "preview/", {"step_action": "send_sms", "cfg_body": "سلام {target.first_name}"}
    ).content.decode()
    assert "سلام سارا" in preview and "۱ پیامک" in preview
    published = client.post(f"/automation/workflows/{workflow.id}/publish/", {"note": "اول"})
    assert published.status_code == 302
    workflow.refresh_from_db()
    assert workflow.published_version.status == VersionStatus.PUBLISHED


def test_publish_with_problems_is_refused_by_the_service(client, workspace):
    client.force_login(make_member(workspace, Role.MANAGER))
    client.post("/automation/workflows/new/", {"name": "ناقص", "template": "blank"})
    workflow = Workflow.objects.get(workspace=workspace)
    client.post(f"/automation/workflows/{workflow.id}/builder/add/", {"at": "0", "kind": "send_sms"})
    client.post(f"/automation/workflows/{workflow.id}/publish/", {})
    workflow.refresh_from_db()
    assert workflow.published_version_id is None


def test_archive_is_refused_while_a_campaign_uses_the_workflow(workspace):
    from automation.errors import WorkflowInUse
    from automation.models import CampaignJourney
    from campaigns.models import Campaign

    actor = make_actor(workspace)
    workflow = workflows.workflow_create(actor=actor, name="سفر", template="single_message")
    version = workflows.workflow_publish(actor=actor, workflow_id=workflow.id)
    campaign = Campaign.objects.create(workspace=workspace, name="کمپین", kind="journey")
    CampaignJourney.objects.create(campaign=campaign, workspace=workspace, workflow=workflow, workflow_version=version)
    with pytest.raises(WorkflowInUse):
        workflows.workflow_archive(actor=actor, workflow_id=workflow.id)
    Campaign.objects.filter(pk=campaign.pk).update(status="completed")
    assert workflows.workflow_archive(actor=actor, workflow_id=workflow.id).status == WorkflowStatus.ARCHIVED


def test_workflows_are_filed_by_category_and_the_list_filters_by_it(client, workspace, api):
    owner = make_actor(workspace)
    client.force_login(owner.user)
    response = client.post("/automation/workflows/new/", {"name": "خوش‌آمد", "category": " فروش ", "template": "blank"})
    assert response.status_code == 302
    workflows.workflow_create(actor=owner, name="یادآوری قسط", category="وصول")
    workflows.workflow_create(actor=owner, name="بی‌دسته")
    assert Workflow.objects.get(name="خوش‌آمد").category == "فروش"  # trimmed

    page = client.get("/automation/workflows/?category=فروش").content.decode()
    assert "خوش‌آمد" in page and "یادآوری قسط" not in page and "بی‌دسته" not in page
    listing = client.get("/automation/workflows/").content.decode()
    assert '<option value="فروش">فروش</option>' in listing and '<option value="وصول">وصول</option>' in listing
    assert "یادآوری قسط" in listing and "بی‌دسته" in listing
    assert 'list="workflow-categories"' in client.get("/automation/workflows/new/").content.decode()

    names = [w["name"] for w in api.get("/api/v1/workflows", {"category": "وصول"}).json()["results"]]
    assert names == ["یادآوری قسط"]
    created = api.post("/api/v1/workflows", {"name": "تازه", "category": "فروش"}, format="json")
    assert created.status_code == 201 and created.json()["category"] == "فروش"
    too_long = api.post("/api/v1/workflows", {"name": "بلند", "category": "ک" * 31}, format="json")
    assert too_long.status_code == 400
