"""Model-level guarantees: immutability, the live unique key, append-only history."""

from types import SimpleNamespace

import pytest
from django.contrib.contenttypes.models import ContentType
from django.db import IntegrityError, transaction
from django.utils import timezone

from automation.choices import ExecutionStatus
from automation.models import Execution, ExecutionEvent, ImmutableError, WorkflowNode, WorkflowVersion
from automation.services.enrollment import enroll_subjects
from automation.services.executions import execution_control
from automation.services.workflows import workflow_create, workflow_graph_save, workflow_new_draft
from campaigns.models import Target
from campaigns.platform.errors import InvalidTransition
from tests.conftest import make_target

from .helpers import end_node, journey, linear_graph, publish, setup_sms, sms_node


@pytest.mark.django_db
def test_published_version_and_its_nodes_are_immutable(actor, workspace):
    workflow = publish(actor, linear_graph(sms_node("a"), end_node()))
    version = workflow.published_version
    version.settings = {"daily_limit": 5}
    with pytest.raises(ImmutableError):
        version.save()
    node = WorkflowNode.objects.filter(version=version).first()
    node.name = "changed"
    with pytest.raises(ImmutableError):
        node.save()
    with pytest.raises(ImmutableError):
        node.delete()
    assert WorkflowNode.objects.get(pk=node.pk).consumes_budget is (node.type == "action")


@pytest.mark.django_db
def test_at_most_one_draft_per_workflow(actor):
    workflow = workflow_create(actor=actor, name="w")
    with pytest.raises(IntegrityError), transaction.atomic():
        WorkflowVersion.objects.create(workspace=actor.workspace, workflow=workflow, version_number=2)


@pytest.mark.django_db
def test_new_draft_keeps_node_keys(actor):
    workflow = publish(actor, linear_graph(sms_node("a"), end_node()))
    draft = workflow_new_draft(actor=actor, workflow_id=workflow.id)
    keys = set(WorkflowNode.objects.filter(version=draft).values_list("node_key", flat=True))
    assert keys == {"start", "a", "end"}
    assert draft.version_number == 2
    workflow_graph_save(
        actor=actor, workflow_id=workflow.id, graph_data=linear_graph(end_node())
    )  # drafts change freely


@pytest.mark.django_db
def test_live_unique_key_is_enforced_by_the_database(actor, workspace):
    setup_sms(workspace)
    campaign = journey(actor, linear_graph(sms_node("a"), end_node()))
    target = make_target(workspace)
    enroll_subjects(actor=actor, campaign_id=campaign.id, target_ids=[target.id])
    live = Execution.objects.get(campaign=campaign)
    duplicate = Execution(
        workspace=workspace,
        campaign=campaign,
        workflow=live.workflow,
        version=live.version,
        subject_type=ContentType.objects.get_for_model(Target),
        subject_id=target.id,
        status=ExecutionStatus.WAITING,
    )
    with pytest.raises(IntegrityError), transaction.atomic():
        duplicate.save()
    Execution.objects.filter(pk=live.pk).update(status=ExecutionStatus.COMPLETED)
    duplicate.save()  # a finished execution does not block a new live one


@pytest.mark.django_db
def test_enrollment_reports_invalid_blacklisted_and_already_live(actor, workspace, other_workspace):
    from sms.models import BlacklistEntry

    setup_sms(workspace)
    campaign = journey(actor, linear_graph(sms_node("a"), end_node()))
    ok, landline, blocked = (
        make_target(workspace),
        make_target(workspace, landline="+982188776655"),
        make_target(workspace),
    )
    foreign = make_target(other_workspace)
    BlacklistEntry.objects.create(workspace=workspace, value=blocked.mobile)
    first = enroll_subjects(
        actor=actor, campaign_id=campaign.id, target_ids=[ok.id, landline.id, blocked.id, foreign.id]
    )
    assert first.added == [ok.id]
    assert first.invalid == {landline.id: "no_valid_mobile", foreign.id: "not_found"}
    assert first.blacklisted == [blocked.id]
    again = enroll_subjects(actor=actor, campaign_id=campaign.id, target_ids=[ok.id])
    assert again.already_live == [ok.id] and again.added == []


@pytest.mark.django_db
def test_events_are_append_only_and_transitions_are_checked(actor, workspace):
    setup_sms(workspace)
    campaign = journey(actor, linear_graph(sms_node("a"), end_node()))
    target = make_target(workspace)
    enroll_subjects(actor=actor, campaign_id=campaign.id, target_ids=[target.id])
    event = ExecutionEvent.objects.get(type="enrolled")
    event.message = "x"
    with pytest.raises(ImmutableError):
        event.save()
    with pytest.raises(ImmutableError):
        event.delete()
    execution = Execution.objects.get(campaign=campaign)
    paused = execution_control(actor=actor, execution_id=execution.id, action="pause")
    assert paused.status == ExecutionStatus.PAUSED and paused.revision == execution.revision + 1
    resumed = execution_control(actor=actor, execution_id=execution.id, action="resume")
    assert resumed.status == ExecutionStatus.ACTIVE
    with pytest.raises(InvalidTransition):
        execution_control(actor=actor, execution_id=execution.id, action="resume")
    removed = execution_control(actor=actor, execution_id=execution.id, action="remove")
    assert removed.status == ExecutionStatus.CANCELLED and removed.end_reason == "removed"
    types = list(ExecutionEvent.objects.filter(execution=execution).order_by("id").values_list("type", "actor_id"))
    assert types[-3:] == [("paused", actor.user.id), ("resumed", actor.user.id), ("removed", actor.user.id)]


@pytest.mark.django_db
def test_stale_revision_loses(actor, workspace):
    from automation.engine.transitions import PendingEvent, apply_transition

    setup_sms(workspace)
    campaign = journey(actor, linear_graph(sms_node("a"), end_node()))
    enroll_subjects(actor=actor, campaign_id=campaign.id, target_ids=[make_target(workspace).id])
    a = Execution.objects.get(campaign=campaign)
    b = Execution.objects.get(campaign=campaign)
    assert apply_transition(a, "pause", event=PendingEvent("paused"), extra={"paused_at": timezone.now()})
    assert not apply_transition(b, "cancel", event=PendingEvent("cancelled"))
    assert Execution.objects.get(pk=a.pk).status == ExecutionStatus.PAUSED
    assert not ExecutionEvent.objects.filter(execution=a, type="cancelled").exists()


@pytest.mark.django_db
def test_effective_window_campaign_then_version_then_workspace(actor, workspace):
    from automation.engine.context import automation_settings, effective_window

    settings = automation_settings(workspace)
    campaign_window = {"days": {"sat": [["10:00", "11:00"]]}}
    version_window = {"days": {"sun": [["12:00", "13:00"]]}}
    workspace_window = {"days": {"mon": [["14:00", "15:00"]]}}
    settings.default_send_window = workspace_window
    campaign = SimpleNamespace(send_window=campaign_window)
    assert effective_window(campaign, {"send_window": version_window}, settings, "Asia/Tehran").days["sat"]
    campaign.send_window = None
    assert effective_window(campaign, {"send_window": version_window}, settings, "Asia/Tehran").days["sun"]
    assert effective_window(campaign, {}, settings, "Asia/Tehran").days["mon"]
    settings.default_send_window = None
    assert effective_window(campaign, {}, settings, "Asia/Tehran") is None


@pytest.mark.django_db
@pytest.mark.parametrize("key", ["campaign_id", "version_id", "current_node_id"])
def test_an_execution_keeps_the_reference_checks_of_what_it_runs(actor, workspace, key):
    """The workspace, workflow and subject type are copies without a check of their own (the enrollment's
    insert skips three reference checks per row); the campaign, version and node keys still refuse a row
    pointing at nothing — they are what hold a workflow's deletion back while it runs."""
    from django.db import connection

    setup_sms(workspace)
    campaign = journey(actor, linear_graph(sms_node("a"), end_node()))
    target = make_target(workspace)
    enroll_subjects(actor=actor, campaign_id=campaign.id, target_ids=[target.id])
    execution = Execution.objects.get(campaign=campaign)
    with transaction.atomic():
        Execution.objects.filter(pk=execution.pk).update(workspace_id=10**9, workflow_id=10**9, subject_type_id=10**6)
        connection.check_constraints(table_names=[Execution._meta.db_table])  # the copies: nothing to refuse
        transaction.set_rollback(True)
    with pytest.raises(IntegrityError), transaction.atomic():
        Execution.objects.filter(pk=execution.pk).update(**{key: 10**9})
        connection.check_constraints(table_names=[Execution._meta.db_table])
