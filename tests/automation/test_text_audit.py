"""Audit of message text changes: each draft save that changes a step's text leaves one row (who, old, new)."""

import pytest
from django.core.exceptions import ValidationError

from automation.models import ImmutableError, WorkflowTextChange
from automation.services import workflows
from campaigns.choices import Role

from ..conftest import make_actor, make_member

pytestmark = pytest.mark.django_db


def _graph(body: str, *, name: str = "خوش‌آمد") -> dict:
    return {
        "nodes": [
            {"node_key": "start", "type": "start", "subtype": "manual", "name": "شروع", "config": {}},
            {"node_key": "sms1", "type": "action", "subtype": "send_sms", "name": name, "config": {"body": body}},
            {"node_key": "wait1", "type": "wait", "subtype": "delay", "config": {"amount": 1, "unit": "days"}},
            {"node_key": "end", "type": "end", "subtype": "complete", "config": {"behavior": "complete"}},
        ],
        "edges": [
            {"from": "start", "to": "sms1", "port": "default"},
            {"from": "sms1", "to": "wait1", "port": "default"},
            {"from": "wait1", "to": "end", "port": "default"},
        ],
        "settings": {},
    }


def test_changed_sms_text_is_audited_once_with_old_new_and_user(workspace):
    actor = make_actor(workspace)
    workflow = workflows.workflow_create(actor=actor, name="سفر")
    workflows.workflow_graph_save(actor=actor, workflow_id=workflow.id, graph_data=_graph("سلام"))
    # A new step is not a text edit: nothing audited yet.
    assert not WorkflowTextChange.objects.exists()
    workflows.workflow_graph_save(actor=actor, workflow_id=workflow.id, graph_data=_graph("سلام {first_name}"))
    change = WorkflowTextChange.objects.get()
    assert (change.node_key, change.old_text, change.new_text) == ("sms1", "سلام", "سلام {first_name}")
    assert change.user == actor.user
    assert change.workspace_id == workspace.id and change.workflow_id == workflow.id
    assert change.version == workflows.draft_of(workflow)


def test_unchanged_text_save_is_not_audited(workspace):
    actor = make_actor(workspace)
    workflow = workflows.workflow_create(actor=actor, name="سفر")
    workflows.workflow_graph_save(actor=actor, workflow_id=workflow.id, graph_data=_graph("سلام"))
    workflows.workflow_graph_save(actor=actor, workflow_id=workflow.id, graph_data=_graph("سلام", name="نام تازه"))
    assert not WorkflowTextChange.objects.exists()


def test_text_audit_rows_are_append_only(workspace):
    actor = make_actor(workspace)
    workflow = workflows.workflow_create(actor=actor, name="سفر")
    workflows.workflow_graph_save(actor=actor, workflow_id=workflow.id, graph_data=_graph("الف"))
    workflows.workflow_graph_save(actor=actor, workflow_id=workflow.id, graph_data=_graph("ب"))
    change = WorkflowTextChange.objects.get()
    change.new_text = "دستکاری"
    with pytest.raises(ImmutableError):
        change.save()
    with pytest.raises(ImmutableError):
        change.delete()


def test_text_audit_version_of_another_workflow_is_refused(workspace):
    actor = make_actor(workspace)
    one = workflows.workflow_create(actor=actor, name="یک")
    two = workflows.workflow_create(actor=actor, name="دو")
    row = WorkflowTextChange(workspace=workspace, workflow=one, version=workflows.draft_of(two), node_key="x")
    with pytest.raises(ValidationError) as exc:
        row.clean()
    assert "version" in exc.value.message_dict


def test_workflow_page_shows_the_text_changes(client, workspace):
    user = make_member(workspace, Role.MANAGER, username="editor")
    actor = make_actor(workspace, user=user)
    workflow = workflows.workflow_create(actor=actor, name="سفر")
    workflows.workflow_graph_save(actor=actor, workflow_id=workflow.id, graph_data=_graph("متن کهنه"))
    workflows.workflow_graph_save(actor=actor, workflow_id=workflow.id, graph_data=_graph("متن نو"))
    client.force_login(user)
    html = client.get(f"/automation/workflows/{workflow.id}/").content.decode()
    assert "تغییرات متن پیامک" in html
    assert "<del>متن کهنه</del>" in html and "<ins>متن نو</ins>" in html
    assert actor.user.get_username() in html
    assert '<td data-label="گام">خوش‌آمد</td>' in html and "sms1" not in html  # the step's name, never its internal key


def test_text_changes_name_an_untitled_step_by_its_kind_and_read_right_to_left(client, workspace):
    user = make_member(workspace, Role.MANAGER, username="editor")
    actor = make_actor(workspace, user=user)
    workflow = workflows.workflow_create(actor=actor, name="سفر")
    key = "n_56eb87f2"
    for body in ("متن کهنه", "متن نو"):
        graph = _graph(body, name="")
        graph["nodes"][1]["node_key"] = key
        graph["edges"][0]["to"] = graph["edges"][1]["from"] = key
        workflows.workflow_graph_save(actor=actor, workflow_id=workflow.id, graph_data=graph)
    client.force_login(user)
    html = client.get(f"/automation/workflows/{workflow.id}/").content.decode()
    assert '<td data-label="گام">ارسال پیامک</td>' in html  # the step's kind, not «گام بی‌نام» and never its key
    assert key not in html
    assert "<del>متن کهنه</del> ← <ins>متن نو</ins>" in html  # old on the right, the arrow points to the new
