"""Thin API views: parse, authorise, call one service or selector, render."""

from django.http import StreamingHttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, PolymorphicProxySerializer, extend_schema, extend_schema_view
from rest_framework import status
from rest_framework.response import Response

from campaigns import selectors
from campaigns.api.bulk_serializers import TargetBulkInput, TargetBulkOutput
from campaigns.api.serializers import (
    CampaignApproveInput,
    CampaignOutput,
    CampaignRejectInput,
    MeOutput,
    TargetImportInput,
    TargetImportOutput,
    TargetImportRowOutput,
    TargetInput,
    TargetListInput,
    TargetListOutput,
    TargetOutput,
)
from campaigns.exports import XLSX, targets_xlsx_stream
from campaigns.filters import CampaignFilter, TargetFilter, TargetImportRowFilter, TargetListFilter
from campaigns.models import Campaign, Target, TargetImportRow, TargetList
from campaigns.platform.api.base import IF_MATCH_PARAMETER, WorkspaceAPIView, if_match_revision, takes_no_body
from campaigns.platform.api.parsers import SafeMultiPartParser
from campaigns.platform.api.schema import errors, launch_errors
from campaigns.platform.errors import ValidationFailed
from campaigns.platform.permissions import Perm
from campaigns.platform.registry import campaign_kind_handler, campaign_kind_handlers
from campaigns.platform.tenancy import memberships_of
from campaigns.platform.uploads import upload_too_large
from campaigns.services import imports, targets
from campaigns.services.approval import campaign_single_approve, campaign_single_reject
from campaigns.services.target_bulk import OUTCOMES, target_bulk_upsert


class MeApi(WorkspaceAPIView):
    @extend_schema(operation_id="me", responses={200: MeOutput, **errors(404)})
    def get(self, request):
        data = {
            "id": request.user.id,
            "username": request.user.get_username(),
            "current_workspace_id": self.actor.workspace.id,
            "memberships": list(memberships_of(request.user)),
        }
        return Response(MeOutput(data).data)


class TargetListCreateApi(WorkspaceAPIView):
    write_permission = Perm.MANAGE_TARGETS
    filterset_class = TargetFilter
    serializer_class = TargetOutput

    queryset = Target.objects.none()

    def scoped_queryset(self):
        return selectors.target_queryset(actor=self.actor)

    @extend_schema(operation_id="targets_list", responses={200: TargetOutput(many=True), **errors(400, 404)})
    def get(self, request):
        targets = self.filter_queryset(self.scoped_queryset())  # a bad ?list= is a 400 here
        list_id = request.query_params.get("list")
        return self.paginated(
            selectors.target_page_rows(targets, list_id=int(list_id) if list_id else None), TargetOutput
        )

    @extend_schema(
        operation_id="targets_create", request=TargetInput, responses={201: TargetOutput, **errors(400, 403)}
    )
    def post(self, request):
        target = targets.target_create(actor=self.actor, **self.body_input(TargetInput))
        return Response(TargetOutput(selectors.target_get(actor=self.actor, target_id=target.id)).data, status=201)


def _with_etag(data: dict) -> Response:
    """A target with its revision as the ``ETag`` (what ``If-Match`` sends back)."""
    return Response(data, headers={"ETag": f'"{data["revision"]}"'})


class TargetDetailApi(WorkspaceAPIView):
    write_permission = Perm.MANAGE_TARGETS
    serializer_class = TargetOutput

    @extend_schema(operation_id="targets_retrieve", responses={200: TargetOutput, **errors(404)})
    def get(self, request, target_id: int):
        return _with_etag(TargetOutput(selectors.target_get(actor=self.actor, target_id=target_id)).data)

    @extend_schema(
        operation_id="targets_update",
        request=TargetInput,
        parameters=[IF_MATCH_PARAMETER],
        responses={200: TargetOutput, **errors(400, 403, 404, 409)},
    )
    def patch(self, request, target_id: int):
        return self._update(request, target_id, partial=True)

    @extend_schema(
        operation_id="targets_replace",
        request=TargetInput,
        parameters=[IF_MATCH_PARAMETER],
        responses={200: TargetOutput, **errors(400, 403, 404, 409)},
    )
    def put(self, request, target_id: int):
        return self._update(request, target_id, partial=False)

    def _update(self, request, target_id: int, *, partial: bool) -> Response:
        serializer = TargetInput(data=request.data, partial=partial)
        serializer.is_valid(raise_exception=True)
        targets.target_update(
            actor=self.actor,
            target_id=target_id,
            data=serializer.validated_data,
            expected_revision=if_match_revision(request),
        )
        return _with_etag(TargetOutput(selectors.target_get(actor=self.actor, target_id=target_id)).data)

    @extend_schema(operation_id="targets_delete", responses={204: None, **errors(403, 404)})
    @takes_no_body
    def delete(self, request, target_id: int):
        targets.target_delete(actor=self.actor, target_id=target_id)
        return Response(status=status.HTTP_204_NO_CONTENT)


class TargetBulkApi(WorkspaceAPIView):
    write_permission = Perm.MANAGE_TARGETS

    @extend_schema(
        operation_id="targets_bulk_upsert",
        request=TargetBulkInput,
        responses={200: TargetBulkOutput, **errors(400, 403)},
        description="Create or update up to 10,000 targets by phone number (idempotent: a repeat changes "
        "nothing). One result per row; an invalid row does not stop the others.",
    )
    def post(self, request):
        results = target_bulk_upsert(actor=self.actor, **self.body_input(TargetBulkInput))
        counts = {outcome: 0 for outcome in OUTCOMES}
        for result in results:
            counts[result.outcome] += 1
        # The answer is already the output's shape (plain ints and strings): no serializer pass over 10,000 rows.
        return Response({**counts, "results": [vars(r) for r in results]})


class TargetImportApi(WorkspaceAPIView):
    write_permission = Perm.MANAGE_TARGETS
    parser_classes = [SafeMultiPartParser]  # the one body with a file
    serializer_class = TargetImportOutput

    @extend_schema(
        operation_id="targets_import",
        request={"multipart/form-data": TargetImportInput},
        responses={202: TargetImportOutput, **errors(400, 403, 404)},
    )
    def post(self, request):
        if upload_too_large(request):  # by Content-Length, before the body is parsed
            raise ValidationFailed.field("file", imports.size_message())
        given = self.body_input(TargetImportInput)
        upload = given["file"]
        target_import = imports.target_import_start(
            actor=self.actor,
            file_name=upload.name,
            content=upload,  # measured by its size before it is read
            target_list_id=given.get("list_id"),
            update_existing=given["update_existing"],
        )
        return Response(TargetImportOutput(target_import).data, status=status.HTTP_202_ACCEPTED)


class TargetImportDetailApi(WorkspaceAPIView):
    serializer_class = TargetImportOutput

    @extend_schema(operation_id="targets_import_retrieve", responses={200: TargetImportOutput, **errors(404)})
    def get(self, request, import_id: int):
        return Response(TargetImportOutput(selectors.target_import_get(actor=self.actor, import_id=import_id)).data)


class TargetImportRowsApi(WorkspaceAPIView):
    serializer_class = TargetImportRowOutput
    filterset_class = TargetImportRowFilter
    queryset = TargetImportRow.objects.none()

    @extend_schema(
        operation_id="targets_import_rows",
        responses={200: TargetImportRowOutput(many=True), **errors(400, 404)},
    )
    def get(self, request, import_id: int):
        rows = selectors.target_import_rows(actor=self.actor, import_id=import_id)
        return self.paginated(self.filter_queryset(rows), TargetImportRowOutput)


class TargetExportApi(WorkspaceAPIView):
    filterset_class = TargetFilter

    queryset = Target.objects.none()

    def scoped_queryset(self):
        return selectors.target_queryset(actor=self.actor)

    @extend_schema(
        operation_id="targets_export",
        responses={
            (200, "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"): OpenApiResponse(
                OpenApiTypes.BINARY
            ),
            **errors(400, 404),
        },
    )
    def get(self, request):
        # 400 above TARGETS_EXPORT_MAX_ROWS (checked before the stream starts), then the rows as they are written
        targets = self.filter_queryset(self.scoped_queryset())  # a bad ?list= is a 400 here
        list_id = request.query_params.get("list")
        content = targets_xlsx_stream(
            targets, workspace=self.actor.workspace, list_id=int(list_id) if list_id else None
        )
        response = StreamingHttpResponse(content, content_type=XLSX)
        response["Content-Disposition"] = 'attachment; filename="targets.xlsx"'
        return response


class TargetListsApi(WorkspaceAPIView):
    write_permission = Perm.MANAGE_TARGETS
    serializer_class = TargetListOutput
    filterset_class = TargetListFilter
    queryset = TargetList.objects.none()

    @extend_schema(operation_id="target_lists_list", responses={200: TargetListOutput(many=True), **errors(400, 404)})
    def get(self, request):
        return self.paginated(self.filter_queryset(selectors.target_list_queryset(actor=self.actor)), TargetListOutput)

    @extend_schema(
        operation_id="target_lists_create",
        request=TargetListInput,
        responses={201: TargetListOutput, **errors(400, 403)},
    )
    def post(self, request):
        created = targets.target_list_create(actor=self.actor, **self.body_input(TargetListInput))
        return Response(
            TargetListOutput(selectors.target_list_get(actor=self.actor, list_id=created.id)).data, status=201
        )


class TargetListDetailApi(WorkspaceAPIView):
    write_permission = Perm.MANAGE_CAMPAIGNS  # rename and delete: campaigns build their audiences on lists
    serializer_class = TargetListOutput

    @extend_schema(operation_id="target_lists_retrieve", responses={200: TargetListOutput, **errors(404)})
    def get(self, request, list_id: int):
        return Response(TargetListOutput(selectors.target_list_get(actor=self.actor, list_id=list_id)).data)

    @extend_schema(
        operation_id="target_lists_update",
        request=TargetListInput,
        responses={200: TargetListOutput, **errors(400, 403, 404)},
    )
    def patch(self, request, list_id: int):
        serializer = TargetListInput(data=request.data, partial=True)
        serializer.is_valid(raise_exception=True)
        targets.target_list_update(actor=self.actor, list_id=list_id, data=serializer.validated_data)
        return Response(TargetListOutput(selectors.target_list_get(actor=self.actor, list_id=list_id)).data)

    @extend_schema(
        operation_id="target_lists_delete",
        responses={204: None, **errors(403, 404, 409)},
        description="409 `TARGET_LIST_IN_USE` while a campaign that is not completed or cancelled takes its "
        "audience from the list (its source list, an auto-enroll rule); `details.campaigns` names them.",
    )
    @takes_no_body
    def delete(self, request, list_id: int):
        targets.target_list_delete(actor=self.actor, list_id=list_id)
        return Response(status=status.HTTP_204_NO_CONTENT)


def _campaign_create_serializers():
    # keyed by kind: the schema's discriminator maps each kind to its body (a list mapped "null" and "None")
    return {handler.kind: handler.input_serializer for handler in campaign_kind_handlers()}


class CampaignListApi(WorkspaceAPIView):
    filterset_class = CampaignFilter
    serializer_class = CampaignOutput
    queryset = Campaign.objects.none()

    def scoped_queryset(self):
        return selectors.campaign_queryset(actor=self.actor)

    @extend_schema(operation_id="campaigns_list", responses={200: CampaignOutput(many=True), **errors(400, 404)})
    def get(self, request):
        return self.paginated(self.filter_queryset(self.scoped_queryset()), CampaignOutput)

    @extend_schema(
        operation_id="campaigns_create",
        description="Creates a campaign of the body's `kind`; each kind has its own fields.",
        request=PolymorphicProxySerializer(
            component_name="CampaignCreate",
            serializers=_campaign_create_serializers,
            resource_type_field_name="kind",
        ),
        responses={201: CampaignOutput, **errors(400, 403)},
    )
    def post(self, request):
        kind = request.data.get("kind") if hasattr(request.data, "get") else None
        handler = campaign_kind_handler(kind) if isinstance(kind, str) else None
        if handler is None:
            known = [h.kind for h in campaign_kind_handlers()]
            raise ValidationFailed.field("kind", f"نوع کمپین باید یکی از {known} باشد.")
        self.actor.require(handler.permission)
        campaign = handler.create(actor=self.actor, **self.body_input(handler.input_serializer))
        return Response(CampaignOutput(campaign).data, status=status.HTTP_201_CREATED)


class CampaignDetailApi(WorkspaceAPIView):
    serializer_class = CampaignOutput

    @extend_schema(operation_id="campaigns_retrieve", responses={200: CampaignOutput, **errors(404)})
    def get(self, request, campaign_id: int):
        return Response(CampaignOutput(selectors.campaign_get(actor=self.actor, campaign_id=campaign_id)).data)


class _CampaignDecisionApi(WorkspaceAPIView):
    """Approve or reject a standalone campaign: the same shape, its own input and service."""

    write_permission = Perm.APPROVE_CHAINS
    input_class: type  # the subclass's input serializer
    decide: staticmethod  # the subclass's service: campaign_single_approve / campaign_single_reject

    def post(self, request, campaign_id: int):
        selectors.campaign_get(actor=self.actor, campaign_id=campaign_id)
        self.decide(actor=self.actor, campaign_id=campaign_id, **self.body_input(self.input_class))
        return Response(CampaignOutput(selectors.campaign_get(actor=self.actor, campaign_id=campaign_id)).data)


@extend_schema_view(
    post=extend_schema(
        operation_id="campaign_approve",
        description="Single-campaign approval (standalone campaigns only; chain members answer 409 CHAIN_MEMBER); "
        "refused while the campaign's launch check has blockers (409 LAUNCH_BLOCKED, details.blockers).",
        request=CampaignApproveInput,
        responses={200: CampaignOutput, **launch_errors(400, 403, 404, 409)},
    )
)
class CampaignApproveApi(_CampaignDecisionApi):
    input_class = CampaignApproveInput
    decide = staticmethod(campaign_single_approve)


@extend_schema_view(
    post=extend_schema(
        operation_id="campaign_reject",
        description="Single-campaign rejection (standalone campaigns only; chain members answer 409 CHAIN_MEMBER).",
        request=CampaignRejectInput,
        responses={200: CampaignOutput, **errors(400, 403, 404, 409)},
    )
)
class CampaignRejectApi(_CampaignDecisionApi):
    input_class = CampaignRejectInput
    decide = staticmethod(campaign_single_reject)
