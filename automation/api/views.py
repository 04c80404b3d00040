"""Engine API: catalog, workflows, graph get/put/validate/publish, new draft, journey campaign control,
enrollment, executions."""

from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework.response import Response

from automation import journey_stats, selectors
from automation.api.launch_serializers import LaunchCheckOutput, PackageLaunchCheckOutput
from automation.api.serializers import (
    AutoEnrollCountInput,
    AutoEnrollCountOutput,
    AutoEnrollRuleInput,
    AutoEnrollRuleOutput,
    BulkControlInput,
    BulkControlOutput,
    CatalogOutput,
    EnrollmentBatchOutput,
    EnrollmentDecisionsInput,
    EnrollmentInput,
    EnrollmentItemOutput,
    EnrollmentOutput,
    EnrollmentPreviewInput,
    ExecutionControlInput,
    ExecutionEventOutput,
    ExecutionOutput,
    GraphInput,
    GraphOutput,
    JourneyCampaignUpdateInput,
    PublishInput,
    TargetExecutionOutput,
    ValidationOutput,
    WorkflowDefaultsInput,
    WorkflowDefaultsOutput,
    WorkflowInput,
    WorkflowOutput,
    WorkflowVersionOutput,
)
from automation.api.stats_serializers import JourneyStatsOutput, TargetTimelineOutput
from automation.engine.graph import graph_of_version
from automation.engine.nodes import NODE_TYPES
from automation.engine.registry import (
    ACTIONS,
    FACTS,
    GUARDS,
    OPERATORS,
    RETRY_STRATEGIES,
    VARIABLES,
    fact_operators,
)
from automation.engine.validator import validate_graph
from automation.errors import NoDraftVersion
from automation.filters import EnrollmentItemFilter, ExecutionFilter, WorkflowFilter
from automation.launch_check import journey_launch_check, package_launch_check
from automation.models import EnrollmentItem, Execution, ExecutionEvent, Workflow
from automation.services import auto_enroll, enrollment, enrollment_batches, executions, workflows
from automation.services import campaigns as campaign_services
from campaigns.api.serializers import CampaignOutput
from campaigns.platform.api.base import WorkspaceAPIView, takes_no_body
from campaigns.platform.api.pagination import PAGE_PARAMETERS, HistoryPagination
from campaigns.platform.api.schema import errors, launch_errors
from campaigns.platform.permissions import Perm


class CatalogApi(WorkspaceAPIView):
    @extend_schema(operation_id="automation_catalog", responses={200: CatalogOutput, **errors(404)})
    def get(self, request):
        data = {
            "actions": [
                {
                    "key": key,
                    "label": action.label,
                    "consumes_budget": action.consumes_budget,
                    "guards": list(action.guards),
                    "config_schema": action.config_schema,
                }
                for key, action in ACTIONS
            ],
            "operators": OPERATORS.keys(),
            "facts": [
                {
                    "key": key,
                    "label": fact.label,
                    "kind": fact.kind,
                    "operators": list(fact_operators(fact)),
                    "ends_wait": fact.ends_wait,
                    "stop_label": fact.stop_label,
                }
                for key, fact in FACTS
            ],
            "variables": [{"key": v.key, "label": v.label, "aliases": list(v.aliases)} for _, v in VARIABLES],
            "guards": GUARDS.keys(),
            "retry_strategies": [{"key": k, "label": s.label} for k, s in RETRY_STRATEGIES],
            "node_types": [handler.as_catalog() for _, handler in NODE_TYPES],
            "templates": workflows.workflow_templates(actor=self.actor),
        }
        return Response(CatalogOutput(data).data)


class WorkflowListApi(WorkspaceAPIView):
    write_permission = Perm.MANAGE_WORKFLOWS
    filterset_class = WorkflowFilter
    serializer_class = WorkflowOutput
    queryset = Workflow.objects.none()

    def scoped_queryset(self):
        return selectors.workflow_queryset(actor=self.actor)

    @extend_schema(operation_id="workflows_list", responses={200: WorkflowOutput(many=True), **errors(400, 404)})
    def get(self, request):
        return self.paginated(self.filter_queryset(self.scoped_queryset()), WorkflowOutput)

    @extend_schema(
        operation_id="workflows_create", request=WorkflowInput, responses={201: WorkflowOutput, **errors(400, 403, 404)}
    )
    def post(self, request):
        workflow = workflows.workflow_create(actor=self.actor, **self.body_input(WorkflowInput))
        return Response(
            WorkflowOutput(selectors.workflow_get(actor=self.actor, workflow_id=workflow.id)).data, status=201
        )


class WorkflowDetailApi(WorkspaceAPIView):
    serializer_class = WorkflowOutput

    @extend_schema(operation_id="workflows_retrieve", responses={200: WorkflowOutput, **errors(404)})
    def get(self, request, workflow_id: int):
        return Response(WorkflowOutput(selectors.workflow_get(actor=self.actor, workflow_id=workflow_id)).data)


def _graph_payload(workflow: Workflow, version, errors_list) -> dict:
    graph = graph_of_version(version).to_dict()
    return {
        "workflow_id": workflow.id,
        "version_id": version.id,
        "version_number": version.version_number,
        "status": version.status,
        **graph,
        "errors": [e.as_dict() for e in errors_list],
    }


class WorkflowGraphApi(WorkspaceAPIView):
    write_permission = Perm.MANAGE_WORKFLOWS
    serializer_class = GraphOutput

    @extend_schema(operation_id="workflows_graph_retrieve", responses={200: GraphOutput, **errors(404, 409)})
    def get(self, request, workflow_id: int):
        """The draft's graph (or the published one when there is no draft) with its validation errors."""
        workflow = selectors.workflow_get(actor=self.actor, workflow_id=workflow_id)
        version = workflows.draft_of(workflow) or workflow.published_version
        if version is None:
            version = workflow.versions.order_by("-version_number").first()
        if version is None:  # a bare workflow row (e.g. demo data) has no graph yet
            raise NoDraftVersion()
        return Response(_graph_payload(workflow, version, validate_graph(graph_of_version(version))))

    @extend_schema(
        operation_id="workflows_graph_update",
        request=GraphInput,
        responses={200: GraphOutput, **errors(400, 403, 404, 409)},
    )
    def put(self, request, workflow_id: int):
        """Save the draft graph; an invalid draft is stored and its errors returned."""
        version, errors_list = workflows.workflow_graph_save(
            actor=self.actor, workflow_id=workflow_id, graph_data=self.body_input(GraphInput)
        )
        workflow = selectors.workflow_get(actor=self.actor, workflow_id=workflow_id)
        return Response(_graph_payload(workflow, version, errors_list))


def _defaults_payload(workflow: Workflow, version, errors_list) -> dict:
    settings = version.settings or {}
    return {
        "workflow_id": workflow.id,
        "version_id": version.id,
        "version_status": version.status,
        "daily_limit": settings.get("daily_limit"),
        "retry": settings.get("retry") or None,
        "on_unknown_outcome": settings.get("on_unknown_outcome") or None,
        "errors": [e.as_dict() for e in errors_list],
    }


class WorkflowDefaultsApi(WorkspaceAPIView):
    write_permission = Perm.MANAGE_WORKFLOWS
    serializer_class = WorkflowDefaultsOutput

    @extend_schema(
        operation_id="workflows_defaults_retrieve", responses={200: WorkflowDefaultsOutput, **errors(404, 409)}
    )
    def get(self, request, workflow_id: int):
        """The workflow-wide defaults of the draft (or of the published version when there is no draft): the daily
        limit of its campaigns that set none, the retry policy and unknown-outcome rule of its action steps that
        set none."""
        workflow = selectors.workflow_get(actor=self.actor, workflow_id=workflow_id)
        version = workflows.draft_of(workflow) or workflow.published_version
        if version is None:
            raise NoDraftVersion()
        return Response(_defaults_payload(workflow, version, []))

    @extend_schema(
        operation_id="workflows_defaults_update",
        request=WorkflowDefaultsInput,
        responses={200: WorkflowDefaultsOutput, **errors(400, 403, 404, 409)},
    )
    def put(self, request, workflow_id: int):
        """Replace the draft's workflow-wide defaults (a field left out or null clears it); they take effect for
        new sends once the draft is published."""
        version, errors_list = workflows.workflow_defaults_save(
            actor=self.actor, workflow_id=workflow_id, **self.body_input(WorkflowDefaultsInput)
        )
        workflow = selectors.workflow_get(actor=self.actor, workflow_id=workflow_id)
        return Response(_defaults_payload(workflow, version, errors_list))


class WorkflowValidateApi(WorkspaceAPIView):
    write_permission = Perm.MANAGE_WORKFLOWS
    serializer_class = ValidationOutput

    @extend_schema(
        operation_id="workflows_validate", request=None, responses={200: ValidationOutput, **errors(403, 404, 409)}
    )
    @takes_no_body
    def post(self, request, workflow_id: int):
        errors_list = workflows.workflow_validate(actor=self.actor, workflow_id=workflow_id)
        return Response({"valid": not errors_list, "errors": [e.as_dict() for e in errors_list]})


class WorkflowPublishApi(WorkspaceAPIView):
    write_permission = Perm.MANAGE_WORKFLOWS
    serializer_class = WorkflowVersionOutput

    @extend_schema(
        operation_id="workflows_publish",
        request=PublishInput,
        responses={200: WorkflowVersionOutput, **errors(400, 403, 404, 409)},
    )
    def post(self, request, workflow_id: int):
        version = workflows.workflow_publish(actor=self.actor, workflow_id=workflow_id, **self.body_input(PublishInput))
        return Response(WorkflowVersionOutput(version).data)


class WorkflowNewDraftApi(WorkspaceAPIView):
    write_permission = Perm.MANAGE_WORKFLOWS
    serializer_class = WorkflowVersionOutput

    @extend_schema(
        operation_id="workflows_new_draft",
        request=None,
        responses={201: WorkflowVersionOutput, **errors(403, 404, 409)},
    )
    @takes_no_body
    def post(self, request, workflow_id: int):
        version = workflows.workflow_new_draft(actor=self.actor, workflow_id=workflow_id)
        return Response(WorkflowVersionOutput(version).data, status=201)


class JourneyCampaignActionApi(WorkspaceAPIView):
    write_permission = Perm.MANAGE_CAMPAIGNS
    serializer_class = CampaignOutput

    @extend_schema(
        operation_id="journey_campaigns_transition",
        request=None,
        parameters=[
            OpenApiParameter(
                "action",
                str,
                OpenApiParameter.PATH,
                enum=["activate", "pause", "resume", "cancel"],
                description="activate is refused while the channel is unusable (409 CHANNEL_UNUSABLE) and, from a "
                "draft, while its launch check has blockers (409 LAUNCH_BLOCKED, details.blockers)",
            )
        ],
        responses={200: CampaignOutput, **launch_errors(400, 403, 404, 409)},
    )
    @takes_no_body
    def post(self, request, campaign_id: int, action: str):
        campaign = campaign_services.journey_campaign_transition(
            actor=self.actor, campaign_id=campaign_id, action=action
        )
        return Response(CampaignOutput(campaign).data)


class EnrollmentApi(WorkspaceAPIView):
    write_permission = Perm.MANAGE_CAMPAIGNS
    serializer_class = EnrollmentOutput

    @extend_schema(
        operation_id="journey_campaigns_enroll",
        request=EnrollmentInput,
        responses={200: EnrollmentOutput, **errors(400, 403, 404, 409)},
    )
    def post(self, request, campaign_id: int):
        report = enrollment.enroll_subjects(
            actor=self.actor, campaign_id=campaign_id, **self.body_input(EnrollmentInput)
        )
        return Response(report.as_dict())


class ExecutionListApi(WorkspaceAPIView):
    filterset_class = ExecutionFilter
    serializer_class = ExecutionOutput
    queryset = Execution.objects.none()

    def scoped_queryset(self):
        return selectors.execution_queryset(actor=self.actor)

    @extend_schema(operation_id="executions_list", responses={200: ExecutionOutput(many=True), **errors(400, 404)})
    def get(self, request):
        return self.paginated(self.filter_queryset(self.scoped_queryset()), ExecutionOutput)


class ExecutionDetailApi(WorkspaceAPIView):
    serializer_class = ExecutionOutput

    @extend_schema(operation_id="executions_retrieve", responses={200: ExecutionOutput, **errors(404)})
    def get(self, request, execution_id: int):
        return Response(ExecutionOutput(selectors.execution_get(actor=self.actor, execution_id=execution_id)).data)


class ExecutionEventsApi(WorkspaceAPIView):
    serializer_class = ExecutionEventOutput
    queryset = ExecutionEvent.objects.none()
    pagination_class = HistoryPagination
    keyset_time_field, keyset_descending = "occurred_at", False

    @extend_schema(
        operation_id="executions_events", responses={200: ExecutionEventOutput(many=True), **errors(400, 404)}
    )
    def get(self, request, execution_id: int):
        """The execution's history, oldest first, one page (`?page=&size=` or `?cursor=&size=`) at a time."""
        events = selectors.execution_events(actor=self.actor, execution_id=execution_id)
        return self.paginated(events, ExecutionEventOutput)


class ExecutionControlApi(WorkspaceAPIView):
    write_permission = Perm.MANAGE_CAMPAIGNS
    serializer_class = ExecutionOutput

    @extend_schema(
        operation_id="executions_control",
        request=ExecutionControlInput,
        parameters=[
            OpenApiParameter("action", str, OpenApiParameter.PATH, enum=["pause", "resume", "remove", "restart"])
        ],
        responses={200: ExecutionOutput, **errors(400, 403, 404, 409)},
        description="`action` is pause, resume, remove or restart (a new cycle; only finished or failed). "
        "Resuming an execution held after an unknown SMS outcome takes `unknown_outcome`: `skip` (default) or "
        "`resend`.",
    )
    def post(self, request, execution_id: int, action: str):
        executions.execution_control(
            actor=self.actor,
            execution_id=execution_id,
            action=action,
            unknown_outcome=self.body_input(ExecutionControlInput).get("unknown_outcome"),
        )
        return Response(ExecutionOutput(selectors.execution_get(actor=self.actor, execution_id=execution_id)).data)


class EnrollmentPreviewApi(WorkspaceAPIView):
    write_permission = Perm.MANAGE_CAMPAIGNS
    serializer_class = EnrollmentBatchOutput

    @extend_schema(
        operation_id="journey_campaigns_enrollment_preview",
        request=EnrollmentPreviewInput,
        responses={201: EnrollmentBatchOutput, **errors(400, 403, 404, 409)},
        description="Step 1 of adding targets: classify `target_ids` or every target matching `filters` (≤ 20,000) "
        "into invalid / blacklisted / already_live / conflict / ready. Writes only the batch; nothing is enrolled.",
    )
    def post(self, request, campaign_id: int):
        batch = enrollment_batches.enrollment_batch_preview(
            actor=self.actor, campaign_id=campaign_id, **self.body_input(EnrollmentPreviewInput)
        )
        return Response(EnrollmentBatchOutput(batch).data, status=201)


class EnrollmentBatchApi(WorkspaceAPIView):
    write_permission = Perm.MANAGE_CAMPAIGNS
    serializer_class = EnrollmentBatchOutput

    @extend_schema(operation_id="enrollment_batches_retrieve", responses={200: EnrollmentBatchOutput, **errors(404)})
    def get(self, request, batch_id: int):
        """The batch with its counts per class; while committing, `processed`/`total` is the progress."""
        return Response(EnrollmentBatchOutput(selectors.enrollment_batch_get(actor=self.actor, batch_id=batch_id)).data)

    @extend_schema(
        operation_id="enrollment_batches_discard",
        request=None,
        responses={200: EnrollmentBatchOutput, **errors(403, 404, 409)},
    )
    @takes_no_body
    def delete(self, request, batch_id: int):
        """Discard a draft batch (nothing was enrolled)."""
        batch = enrollment_batches.enrollment_batch_discard(actor=self.actor, batch_id=batch_id)
        return Response(EnrollmentBatchOutput(batch).data)


class EnrollmentItemsApi(WorkspaceAPIView):
    filterset_class = EnrollmentItemFilter
    serializer_class = EnrollmentItemOutput
    queryset = EnrollmentItem.objects.none()

    @extend_schema(
        operation_id="enrollment_batches_items",
        responses={200: EnrollmentItemOutput(many=True), **errors(400, 404)},
        description="`?class=invalid|blacklisted|already_live|conflict|ready` and/or `?outcome=…`, paginated.",
    )
    def get(self, request, batch_id: int):
        items = selectors.enrollment_batch_items(actor=self.actor, batch_id=batch_id)
        return self.paginated(self.filter_queryset(items), EnrollmentItemOutput)


class EnrollmentDecisionsApi(WorkspaceAPIView):
    write_permission = Perm.MANAGE_CAMPAIGNS
    serializer_class = EnrollmentBatchOutput

    @extend_schema(
        operation_id="enrollment_batches_decisions",
        request=EnrollmentDecisionsInput,
        responses={200: EnrollmentBatchOutput, **errors(400, 403, 404, 409)},
        description="`default` (add/skip/null) applies to every conflict without an override; `overrides` set or "
        "clear (null) one subject's decision. Kept on the batch between requests.",
    )
    def put(self, request, batch_id: int):
        data = self.body_input(EnrollmentDecisionsInput)
        batch = enrollment_batches.enrollment_batch_decide(
            actor=self.actor,
            batch_id=batch_id,
            default=data.get("default"),
            set_default="default" in data,
            overrides=data.get("overrides") or [],
        )
        return Response(EnrollmentBatchOutput(batch).data)


class EnrollmentCommitApi(WorkspaceAPIView):
    write_permission = Perm.MANAGE_CAMPAIGNS
    serializer_class = EnrollmentBatchOutput

    @extend_schema(
        operation_id="enrollment_batches_commit",
        request=None,
        responses={200: EnrollmentBatchOutput, **errors(403, 404, 409)},
        description="Re-checks every subject; a conflict without a decision answers 409 `CONFLICTS_UNRESOLVED` with "
        "the list. ≤ 300 subjects are added at once (`committed`); more run in the background (`committing`, poll "
        "`processed`/`total`).",
    )
    @takes_no_body
    def post(self, request, batch_id: int):
        batch = enrollment_batches.enrollment_batch_commit(actor=self.actor, batch_id=batch_id)
        return Response(EnrollmentBatchOutput(batch).data)


class ExecutionBulkControlApi(WorkspaceAPIView):
    write_permission = Perm.MANAGE_CAMPAIGNS
    serializer_class = BulkControlOutput

    @extend_schema(
        operation_id="journey_campaigns_executions_bulk",
        request=BulkControlInput,
        responses={200: BulkControlOutput, **errors(400, 403, 404)},
        description="pause / resume / remove / restart (a new cycle; only finished or failed) many executions of "
        "this campaign; each refusal is reported with its reason and the rest go on; one audit row per request. "
        "`unknown_outcome` (resume only) decides every held step; with `resend` an execution not held is refused.",
    )
    def post(self, request, campaign_id: int):
        result = executions.executions_bulk_control(
            actor=self.actor, campaign_id=campaign_id, **self.body_input(BulkControlInput)
        )
        return Response(result)


class JourneyStatsApi(WorkspaceAPIView):
    serializer_class = None

    @extend_schema(
        operation_id="journey_campaigns_stats",
        responses={200: JourneyStatsOutput, **errors(404, 409)},
        description="total, pending, active, waiting, paused, completed, failed, blacklisted, cancelled; `sent` "
        "(from the daily counters), `send_failed`, `retried`, `frequency_capped` today/total; `limits` (campaign "
        "and workspace limit, used and remaining today); `queued_for_sending` (pushed by a limit); "
        "`unknown_outcomes` (sends whose outcome is unknown); `next_sends` (20); `next_wake` (when the first "
        "journey resting at a step that sends nothing, e.g. a Wait, moves on; null when none); `series` (30 days).",
    )
    def get(self, request, campaign_id: int):
        return Response(journey_stats.journey_stats(actor=self.actor, campaign_id=campaign_id))


class JourneyLaunchCheckApi(WorkspaceAPIView):
    serializer_class = LaunchCheckOutput

    @extend_schema(
        operation_id="journey_campaigns_launch_check",
        responses={200: LaunchCheckOutput, **errors(404)},
        description="A dry run of Start (changes nothing): the audience now, who gets nothing and why (counts "
        "capped at `count_cap`), cost per operator against the account's last credit, the estimated finish "
        "time, and the blockers that disable Start and warnings.",
    )
    def get(self, request, campaign_id: int):
        return Response(LaunchCheckOutput(journey_launch_check(actor=self.actor, campaign_id=campaign_id)).data)


class PackageLaunchCheckApi(WorkspaceAPIView):
    serializer_class = PackageLaunchCheckOutput

    @extend_schema(
        operation_id="campaign_chain_approvals_launch_check",
        responses={200: PackageLaunchCheckOutput, **errors(404)},
        description="A dry run of approving a chain package (changes nothing): the launch check of every member "
        "campaign; any blocker disables Approve.",
    )
    def get(self, request, package_id: int):
        return Response(PackageLaunchCheckOutput(package_launch_check(actor=self.actor, package_id=package_id)).data)


class TargetExecutionsApi(WorkspaceAPIView):
    serializer_class = TargetExecutionOutput
    queryset = Execution.objects.none()

    @extend_schema(
        operation_id="targets_executions",
        responses={200: TargetExecutionOutput(many=True), **errors(400, 404)},
        description="Every journey the target is or was in (newest first).",
    )
    def get(self, request, target_id: int):
        return self.paginated(
            journey_stats.target_executions(actor=self.actor, target_id=target_id), TargetExecutionOutput
        )


class TargetTimelineApi(WorkspaceAPIView):
    serializer_class = None
    queryset = ExecutionEvent.objects.none()
    pagination_class = HistoryPagination
    keyset_time_field, keyset_descending = "occurred_at", True

    @extend_schema(
        operation_id="targets_timeline",
        responses={200: TargetTimelineOutput, **errors(400, 404)},
        parameters=[OpenApiParameter(p["name"], p["schema"], description=p["description"]) for p in PAGE_PARAMETERS],
        description="`campaigns`: the journeys the target is in; `results`: its events newest first (`?page=` or "
        "`?cursor=` with `size`) — "
        "each send with text, number, status, provider message id, error and retry time, the actor of manual "
        "actions, and `why_not_sent` (window_closed, limit_reached, blacklisted, circuit_open, no_valid_mobile, "
        "telecom_blocked, frequency_cap, quiet_day); "
        "`conflict_skips`: enrollments that skipped it because it was live elsewhere; "
        "`left_out`: sends it was left out of without a journey of its own (a chain run's dispatch: blacklisted, "
        "opted out, no mobile, already live), each with `why_not_sent`, `why_label`, the campaign and the time. "
        "Without the channel's log "
        "permission (SMS: `view_sms_logs`) a send has `hidden: true` and only its status, attempt number and retry "
        "time; its text, number, sender, provider, provider message id and errors are null, and the event's "
        "`message` and `data` (beyond `attempt_id`) are left out.",
    )
    def get(self, request, target_id: int):
        events = journey_stats.target_timeline_events(actor=self.actor, target_id=target_id)
        page = self.paginate_queryset(events)
        response = self.get_paginated_response(journey_stats.timeline_entries(actor=self.actor, events=list(page)))
        response.data["campaigns"] = journey_stats.target_campaigns(actor=self.actor, target_id=target_id)
        response.data["conflict_skips"] = journey_stats.target_conflict_skips(actor=self.actor, target_id=target_id)
        response.data["left_out"] = journey_stats.target_left_out(actor=self.actor, target_id=target_id)
        return response


class AutoEnrollRuleApi(WorkspaceAPIView):
    write_permission = Perm.MANAGE_CAMPAIGNS
    serializer_class = AutoEnrollRuleOutput

    @extend_schema(
        operation_id="journey_campaigns_auto_enroll_retrieve", responses={200: AutoEnrollRuleOutput, **errors(404)}
    )
    def get(self, request, campaign_id: int):
        """The campaign's auto-enroll rule with its cursor, today's count and the last check's statistics
        (`exists: false` and defaults while it has none)."""
        rule = auto_enroll.auto_enroll_rule_get(actor=self.actor, campaign_id=campaign_id)
        return Response(AutoEnrollRuleOutput(AutoEnrollRuleOutput.of(campaign_id, rule)).data)

    @extend_schema(
        operation_id="journey_campaigns_auto_enroll_set",
        request=AutoEnrollRuleInput,
        responses={200: AutoEnrollRuleOutput, **errors(400, 403, 404, 409)},
        description="Create or change the rule. New targets only unless `include_existing` with the "
        "`confirmed_existing_count` shown by auto-enroll/existing-count (without it: 400 with `existing_count`). "
        "An empty filter is refused; a changed filter restarts the cursor.",
    )
    def put(self, request, campaign_id: int):
        rule = auto_enroll.auto_enroll_rule_set(
            actor=self.actor, campaign_id=campaign_id, **self.body_input(AutoEnrollRuleInput)
        )
        return Response(AutoEnrollRuleOutput(AutoEnrollRuleOutput.of(campaign_id, rule)).data)


class AutoEnrollCountApi(WorkspaceAPIView):
    write_permission = Perm.MANAGE_CAMPAIGNS
    serializer_class = AutoEnrollCountOutput

    @extend_schema(
        operation_id="journey_campaigns_auto_enroll_existing_count",
        request=AutoEnrollCountInput,
        responses={200: AutoEnrollCountOutput, **errors(400, 403, 404, 409)},
        description="How many existing targets match `filters` (nothing is written): the number a rule with "
        "`include_existing` must confirm.",
    )
    def post(self, request, campaign_id: int):
        count = auto_enroll.auto_enroll_existing_count(
            actor=self.actor, campaign_id=campaign_id, filters=self.body_input(AutoEnrollCountInput)["filters"]
        )
        return Response({"existing_count": count})


class JourneyCampaignApi(WorkspaceAPIView):
    write_permission = Perm.MANAGE_CAMPAIGNS
    serializer_class = CampaignOutput

    @extend_schema(
        operation_id="journey_campaigns_update",
        request=JourneyCampaignUpdateInput,
        responses={200: CampaignOutput, **errors(400, 403, 404, 409)},
        description="Change name, description, starts_at/ends_at, daily_limit, send_window or settings (only the "
        "keys sent). The pinned workflow/version never changes (400); a completed or cancelled campaign → 409.",
    )
    def patch(self, request, campaign_id: int):
        serializer = JourneyCampaignUpdateInput(data=request.data, partial=True)
        serializer.is_valid(raise_exception=True)
        campaign = campaign_services.journey_campaign_update(
            actor=self.actor, campaign_id=campaign_id, changes=dict(serializer.validated_data)
        )
        return Response(CampaignOutput(campaign).data)

    @extend_schema(
        operation_id="journey_campaigns_delete",
        responses={204: None, **errors(403, 404, 409)},
        description="Delete a draft journey campaign. Any other status → 409 `CAMPAIGN_NOT_DRAFT`: cancel it "
        "instead (`POST …/journey/cancel`).",
    )
    @takes_no_body
    def delete(self, request, campaign_id: int):
        campaign_services.journey_campaign_delete(actor=self.actor, campaign_id=campaign_id)
        return Response(status=204)
