"""Migration automation 0025: steps saved with the old schema default ``on_unknown_outcome: "continue"`` follow
the workflow's default from their next draft on, and nothing any version runs today changes."""

from importlib import import_module

import pytest
from django.apps import apps

from automation.engine.graph import graph_of_version, with_workflow_defaults
from automation.models import WorkflowTemplate, WorkflowVersion
from automation.services.workflows import workflow_defaults_save, workflow_new_draft, workflow_publish

from .helpers import end_node, linear_graph, publish, sms_node

pytestmark = pytest.mark.django_db

forward = import_module("automation.migrations.0025_steps_follow_unknown_outcome_default").forward


def _unknown(version: WorkflowVersion, key: str = "a"):
    return graph_of_version(version).by_key[key].config.get("on_unknown_outcome")


def test_old_continue_steps_follow_the_default_and_run_the_same(actor, workspace):
    plain = publish(actor, linear_graph(sms_node("a", on_unknown_outcome="continue"), end_node()))
    chosen = publish(
        actor,
        linear_graph(sms_node("a", on_unknown_outcome="continue"), end_node(), settings={"on_unknown_outcome": "hold"}),
    )
    holding = publish(actor, linear_graph(sms_node("a", on_unknown_outcome="hold"), end_node()))
    template = WorkflowTemplate.objects.create(
        workspace=workspace,
        name="قالب",
        definition=linear_graph(sms_node("a", on_unknown_outcome="continue"), end_node()),
    )
    forward(apps, None)

    old = plain.published_version
    assert _unknown(old) is None  # follows the workflow …
    assert with_workflow_defaults(graph_of_version(old)).by_key["a"].config.get("on_unknown_outcome", "continue") == (
        "continue"  # … which has no default: the version runs exactly as before
    )
    assert _unknown(chosen.published_version) == "continue"  # set against a "hold" default: kept
    assert _unknown(holding.published_version) == "hold"
    template.refresh_from_db()
    assert "on_unknown_outcome" not in template.definition["nodes"][1]["config"]

    # The workflow gets a "hold" default: the old step's next version holds like any step without its own.
    workflow_new_draft(actor=actor, workflow_id=plain.id)
    workflow_defaults_save(actor=actor, workflow_id=plain.id, daily_limit=None, retry=None, on_unknown_outcome="hold")
    new = workflow_publish(actor=actor, workflow_id=plain.id)
    assert with_workflow_defaults(graph_of_version(new)).by_key["a"].config["on_unknown_outcome"] == "hold"
