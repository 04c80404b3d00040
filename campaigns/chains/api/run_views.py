"""Run endpoints: runs per campaign and per workspace, a child's inheritance summary, the frozen audience
export, and conversion events (record idempotently by external_id, list)."""

from django.http import StreamingHttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.response import Response

from campaigns.chains.api.run_serializers import (
    ConversionEventInput,
    ConversionEventOutput,
    LiftOutput,
    ManualRunOutput,
    RunOutput,
    RunSummaryOutput,
)
from campaigns.chains.api.serializers import ExpectedChainRevisionInput
from campaigns.chains.filters import CampaignRunFilter, ConversionEventFilter
from campaigns.chains.run_models import CampaignRun, ConversionEvent
from campaigns.chains.runs import selectors
from campaigns.chains.runs.conversions import conversion_event_record
from campaigns.chains.runs.export import run_audience_xlsx
from campaigns.chains.runs.manual import CHILDREN_NOT_TRIGGERED, manual_run_create, rerun_create
from campaigns.platform.api.base import WorkspaceAPIView
from campaigns.platform.api.schema import errors
from campaigns.platform.permissions import Perm
from campaigns.platform.tenancy import get_scoped

XLSX = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"


class CampaignRunListApi(WorkspaceAPIView):
    serializer_class = RunOutput
    queryset = CampaignRun.objects.none()

    @extend_schema(
        operation_id="campaign_runs_list",
        description="Runs of one campaign, newest first (root runs open periods; children have one INHERITED "
        "run per period).",
        responses={200: RunOutput(many=True), **errors(400, 404)},
    )
    def get(self, request, campaign_id: int):
        return self.paginated(selectors.campaign_runs(actor=self.actor, campaign_id=campaign_id), RunOutput)


class CampaignLiftApi(WorkspaceAPIView):
    @extend_schema(
        operation_id="campaign_lift",
        description="Lift of a chain node over its started runs: conversions of the treated vs the CONTROL part "
        "of the frozen audiences, the difference and its 95 % interval, or 'not enough data' below 30 per part.",
        responses={200: LiftOutput, **errors(404)},
    )
    def get(self, request, campaign_id: int):
        return Response(LiftOutput(selectors.campaign_lift_get(actor=self.actor, campaign_id=campaign_id)).data)


class RunLiftApi(WorkspaceAPIView):
    @extend_schema(
        operation_id="campaign_run_lift",
        description="Lift of one run: treated vs CONTROL conversions inside the attribution window.",
        responses={200: LiftOutput, **errors(404)},
    )
    def get(self, request, run_id: int):
        return Response(LiftOutput(selectors.run_lift_get(actor=self.actor, run_id=run_id)).data)


class CampaignRunSummaryApi(WorkspaceAPIView):
    @extend_schema(
        operation_id="campaign_run_summary",
        description="A chain child's «inherited from <source> – <class>» line and the audience count of its "
        "latest run (null until that run ran; never a cumulative count).",
        responses={200: RunSummaryOutput, **errors(404)},
    )
    def get(self, request, campaign_id: int):
        return Response(RunSummaryOutput(selectors.run_summary(actor=self.actor, campaign_id=campaign_id)).data)


def _started(request, create) -> Response:
    """Parse ``expected_chain_revision``, create the manual run or rerun, answer 201 with the children line."""
    serializer = ExpectedChainRevisionInput(data=request.data)
    serializer.is_valid(raise_exception=True)
    body = {"run": create(serializer.validated_data), "children_triggered": False, "message": CHILDREN_NOT_TRIGGERED}
    return Response(ManualRunOutput(body).data, status=status.HTTP_201_CREATED)


class ManualRunApi(WorkspaceAPIView):
    write_permission = Perm.MANAGE_CAMPAIGNS

    @extend_schema(
        operation_id="campaign_run_now",
        description="A MANUAL run of a chain root, due now: the root's campaign is sent to its audience of the "
        "moment. It opens no period, so no child of the chain inherits from it (children_triggered is always "
        "false); a child campaign → 409 CHAIN_CHILD_RUNS_WITH_ITS_SOURCE. Also 409 when the chain is paused, "
        "stopped or finished, past the schedule's end date, while another run of the campaign is being built or "
        "sent, or on a stale expected_chain_revision.",
        request=ExpectedChainRevisionInput,
        responses={201: ManualRunOutput, **errors(400, 403, 404, 409)},
    )
    def post(self, request, campaign_id: int):
        return _started(request, lambda fields: manual_run_create(actor=self.actor, campaign_id=campaign_id, **fields))


class RerunApi(WorkspaceAPIView):
    write_permission = Perm.MANAGE_CAMPAIGNS

    @extend_schema(
        operation_id="campaign_run_rerun",
        description="A RERUN of an earlier run of a chain root: the same frozen audience (the same people and "
        "control split) sent again now. Like a manual run it opens no period (children_triggered is always "
        "false). 409 RUN_NOT_FINISHED unless the run ended (COMPLETED or FAILED) with a frozen audience; a "
        "child's run → 409 CHAIN_CHILD_RUNS_WITH_ITS_SOURCE; the manual run's other 409s apply.",
        request=ExpectedChainRevisionInput,
        responses={201: ManualRunOutput, **errors(400, 403, 404, 409)},
    )
    def post(self, request, run_id: int):
        return _started(request, lambda fields: rerun_create(actor=self.actor, run_id=run_id, **fields))


class RunListApi(WorkspaceAPIView):
    serializer_class = RunOutput
    filterset_class = CampaignRunFilter
    queryset = CampaignRun.objects.none()

    @extend_schema(
        operation_id="campaign_runs_search",
        description="Runs of the workspace, filtered by campaign, period (period_key = the root run's id), "
        "status or type.",
        responses={200: RunOutput(many=True), **errors(400)},
    )
    def get(self, request):
        return self.paginated(self.filter_queryset(selectors.run_queryset(actor=self.actor)), RunOutput)


class RunDetailApi(WorkspaceAPIView):
    @extend_schema(operation_id="campaign_run_retrieve", responses={200: RunOutput, **errors(404)})
    def get(self, request, run_id: int):
        return Response(RunOutput(selectors.run_get(actor=self.actor, run_id=run_id)).data)


class RunAudienceExportApi(WorkspaceAPIView):
    @extend_schema(
        operation_id="campaign_run_audience_export",
        description="The run's frozen audience (the published build attempt only) as .xlsx; 409 "
        "RUN_AUDIENCE_NOT_FROZEN before the audience is frozen.",
        responses={(200, XLSX): OpenApiResponse(OpenApiTypes.BINARY), **errors(400, 404, 409)},
    )
    def get(self, request, run_id: int):
        run = selectors.run_get(actor=self.actor, run_id=run_id)
        snapshot, members = selectors.frozen_members(actor=self.actor, run=run)
        response = StreamingHttpResponse(run_audience_xlsx(run, snapshot, members), content_type=XLSX)
        response["Content-Disposition"] = f'attachment; filename="run-{run.pk}-audience.xlsx"'
        return response


class ConversionEventListApi(WorkspaceAPIView):
    write_permission = Perm.MANAGE_TARGETS
    serializer_class = ConversionEventOutput
    filterset_class = ConversionEventFilter
    queryset = ConversionEvent.objects.none()

    @extend_schema(
        operation_id="conversion_events_list",
        responses={200: ConversionEventOutput(many=True), **errors(400)},
    )
    def get(self, request):
        events = self.filter_queryset(selectors.conversion_queryset(actor=self.actor))
        return self.paginated(events, ConversionEventOutput)

    @extend_schema(
        operation_id="conversion_events_record",
        description="Record that a target reached something (purchase, signup …). The same external_id again "
        "returns the first event with 200 and records nothing.",
        request=ConversionEventInput,
        responses={201: ConversionEventOutput, 200: ConversionEventOutput, **errors(400, 403, 404)},
    )
    def post(self, request):
        event, created = conversion_event_record(actor=self.actor, **self.body_input(ConversionEventInput))
        return Response(
            ConversionEventOutput(event).data, status=status.HTTP_201_CREATED if created else status.HTTP_200_OK
        )


class ConversionEventDetailApi(WorkspaceAPIView):
    @extend_schema(operation_id="conversion_event_retrieve", responses={200: ConversionEventOutput, **errors(404)})
    def get(self, request, event_id: int):
        event = get_scoped(
            ConversionEvent, self.actor.workspace, event_id, queryset=selectors.conversion_queryset(actor=self.actor)
        )
        return Response(ConversionEventOutput(event).data)
