"""Engine API: catalog, workflows, graph get/put/validate/publish, new draft, journey campaign control,
enrollment, executions."""

from drf_spectacular.utils import extend_schema
from rest_framework.response import Response

from automation import selectors
from automation.api.serializers import (
    CatalogOutput,
    EnrollmentInput,
    EnrollmentOutput,
    ExecutionControlInput,
    ExecutionEventOutput,
    ExecutionOutput,
    GraphInput,
    GraphOutput,
    PublishInput,
    ValidationOutput,
    WorkflowInput,
    WorkflowOutput,
    WorkflowVersionOutput,
)
from automation.choices import NodeType
from automation.engine.graph import graph_of_version
from automation.engine.registry import ACTIONS, GUARDS, OPERATORS, RETRY_STRATEGIES, VARIABLES
from automation.engine.validator import validate_graph
from automation.errors import NoDraftVersion
from automation.models import Execution, ExecutionEvent, Workflow
from automation.services import campaigns as campaign_services
from automation.services import enrollment, executions, workflows
from campaigns.api.serializers import CampaignOutput
from campaigns.platform.api.base import WorkspaceAPIView
from campaigns.platform.api.schema import errors
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
            "variables": [{"key": v.key, "label": v.label, "aliases": list(v.aliases)} for _, v in VARIABLES],
            "guards": GUARDS.keys(),
            "retry_strategies": [{"key": k, "label": s.label} for k, s in RETRY_STRATEGIES],
            "node_types": [{"key": value, "label": label} for value, label in NodeType.choices],
            "templates": workflows.workflow_templates(actor=self.actor),
        }
        return Response(CatalogOutput(data).data)


class WorkflowListApi(WorkspaceAPIView):
    write_permission = Perm.MANAGE_WORKFLOWS
    serializer_class = WorkflowOutput
    queryset = Workflow.objects.none()

    def scoped_queryset(self):
        return selectors.workflow_queryset(actor=self.actor)

    @extend_schema(operation_id="workflows_list", responses={200: WorkflowOutput(many=True), **errors(400, 404)})
    def get(self, request):
        return self.paginated(self.scoped_queryset(), WorkflowOutput)

    @extend_schema(
        operation_id="workflows_create", request=WorkflowInput, responses={201: WorkflowOutput, **errors(400, 403, 404)}
    )
    def post(self, request):
        serializer = WorkflowInput(data=request.data)
        serializer.is_valid(raise_exception=True)
        workflow = workflows.workflow_create(actor=self.actor, **serializer.validated_data)
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
        serializer = GraphInput(data=request.data)
        serializer.is_valid(raise_exception=True)
        version, errors_list = workflows.workflow_graph_save(
            actor=self.actor, workflow_id=workflow_id, graph_data=serializer.validated_data
        )
        workflow = selectors.workflow_get(actor=self.actor, workflow_id=workflow_id)
        return Response(_graph_payload(workflow, version, errors_list))


class WorkflowValidateApi(WorkspaceAPIView):
    write_permission = Perm.MANAGE_WORKFLOWS
    serializer_class = ValidationOutput

    @extend_schema(
        operation_id="workflows_validate", request=None, responses={200: ValidationOutput, **errors(403, 404, 409)}
    )
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
        serializer = PublishInput(data=request.data)
        serializer.is_valid(raise_exception=True)
        version = workflows.workflow_publish(actor=self.actor, workflow_id=workflow_id, **serializer.validated_data)
        return Response(WorkflowVersionOutput(version).data)


class WorkflowNewDraftApi(WorkspaceAPIView):
    write_permission = Perm.MANAGE_WORKFLOWS
    serializer_class = WorkflowVersionOutput

    @extend_schema(
        operation_id="workflows_new_draft",
        request=None,
        responses={201: WorkflowVersionOutput, **errors(403, 404, 409)},
    )
    def post(self, request, workflow_id: int):
        version = workflows.workflow_new_draft(actor=self.actor, workflow_id=workflow_id)
        return Response(WorkflowVersionOutput(version).data, status=201)


class JourneyCampaignActionApi(WorkspaceAPIView):
    write_permission = Perm.MANAGE_CAMPAIGNS
    serializer_class = CampaignOutput

    @extend_schema(
        operation_id="journey_campaigns_transition",
        request=None,
        responses={200: CampaignOutput, **errors(400, 403, 404, 409)},
        description="`action` is one of activate (refused while the channel is unusable), pause, resume, cancel.",
    )
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
        serializer = EnrollmentInput(data=request.data)
        serializer.is_valid(raise_exception=True)
        report = enrollment.enroll_subjects(actor=self.actor, campaign_id=campaign_id, **serializer.validated_data)
        return Response(report.as_dict())


class ExecutionListApi(WorkspaceAPIView):
    serializer_class = ExecutionOutput
    queryset = Execution.objects.none()

    def scoped_queryset(self):
        campaign = self.request.query_params.get("campaign")
        return selectors.execution_queryset(
            actor=self.actor, campaign_id=int(campaign) if str(campaign).isdigit() else None
        )

    @extend_schema(operation_id="executions_list", responses={200: ExecutionOutput(many=True), **errors(400, 404)})
    def get(self, request):
        return self.paginated(self.scoped_queryset(), ExecutionOutput)


class ExecutionDetailApi(WorkspaceAPIView):
    serializer_class = ExecutionOutput

    @extend_schema(operation_id="executions_retrieve", responses={200: ExecutionOutput, **errors(404)})
    def get(self, request, execution_id: int):
        return Response(ExecutionOutput(selectors.execution_get(actor=self.actor, execution_id=execution_id)).data)


class ExecutionEventsApi(WorkspaceAPIView):
    serializer_class = ExecutionEventOutput
    queryset = ExecutionEvent.objects.none()

    @extend_schema(
        operation_id="executions_events", responses={200: ExecutionEventOutput(many=True), **errors(400, 404)}
    )
    def get(self, request, execution_id: int):
        """The execution's history, oldest first, one page (`?page=&size=`) at a time."""
        events = selectors.execution_events(actor=self.actor, execution_id=execution_id)
        return self.paginated(events, ExecutionEventOutput)


class ExecutionControlApi(WorkspaceAPIView):
    write_permission = Perm.MANAGE_CAMPAIGNS
    serializer_class = ExecutionOutput

    @extend_schema(
        operation_id="executions_control",
        request=ExecutionControlInput,
        responses={200: ExecutionOutput, **errors(400, 403, 404, 409)},
        description="`action` is pause, resume, remove or restart (a new cycle; only finished or failed). "
        "Resuming an execution held after an unknown SMS outcome takes `unknown_outcome`: `skip` (default) or "
        "`resend`.",
    )
    def post(self, request, execution_id: int, action: str):
        serializer = ExecutionControlInput(data=request.data)
        serializer.is_valid(raise_exception=True)
        executions.execution_control(
            actor=self.actor,
            execution_id=execution_id,
            action=action,
            unknown_outcome=serializer.validated_data.get("unknown_outcome"),
        )
        return Response(ExecutionOutput(selectors.execution_get(actor=self.actor, execution_id=execution_id)).data)
