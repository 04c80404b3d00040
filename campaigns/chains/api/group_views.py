"""Campaign group endpoints (/api/v1/campaign-groups…)."""

from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import status
from rest_framework.response import Response

from campaigns.chains import selectors
from campaigns.chains.api.serializers import (
    ExpectedRevisionInput,
    GroupAddInput,
    GroupAddOutput,
    GroupCreateInput,
    GroupMoveInput,
    GroupOutput,
    GroupUpdateInput,
    SourceOutput,
    SourcesQueryInput,
    TreeOutput,
    TreeQueryInput,
)
from campaigns.chains.filters import CampaignGroupFilter
from campaigns.chains.models import CampaignGroup
from campaigns.chains.services import groups as group_services
from campaigns.platform.api.base import WorkspaceAPIView
from campaigns.platform.api.pagination import decode_offset_cursor, encode_offset_cursor
from campaigns.platform.api.schema import errors
from campaigns.platform.permissions import Perm


class GroupListApi(WorkspaceAPIView):
    write_permission = Perm.MANAGE_CAMPAIGNS
    serializer_class = GroupOutput
    filterset_class = CampaignGroupFilter
    queryset = CampaignGroup.objects.none()

    @extend_schema(operation_id="campaign_groups_list", responses={200: GroupOutput(many=True), **errors(400, 404)})
    def get(self, request):
        page = self.paginate_queryset(self.filter_queryset(selectors.group_queryset(actor=self.actor)))
        selectors.attach_campaign_counts(actor=self.actor, groups=page)
        return self.get_paginated_response(GroupOutput(page, many=True).data)

    @extend_schema(
        operation_id="campaign_groups_create",
        request=GroupCreateInput,
        responses={201: GroupOutput, **errors(400, 403, 409)},
    )
    def post(self, request):
        group = group_services.group_create(actor=self.actor, **self.body_input(GroupCreateInput))
        selectors.attach_campaign_counts(actor=self.actor, groups=[group])
        return Response(GroupOutput(group).data, status=status.HTTP_201_CREATED)


class GroupDetailApi(WorkspaceAPIView):
    write_permission = Perm.MANAGE_CAMPAIGNS
    serializer_class = GroupOutput

    def _out(self, group_id):
        group = selectors.group_get(actor=self.actor, group_id=group_id)
        selectors.attach_campaign_counts(actor=self.actor, groups=[group])
        return Response(GroupOutput(group).data)

    @extend_schema(operation_id="campaign_groups_retrieve", responses={200: GroupOutput, **errors(404)})
    def get(self, request, group_id: int):
        return self._out(group_id)

    @extend_schema(
        operation_id="campaign_groups_update",
        request=GroupUpdateInput,
        responses={200: GroupOutput, **errors(400, 403, 404, 409)},
    )
    def put(self, request, group_id: int):
        selectors.group_get(actor=self.actor, group_id=group_id)
        group_services.group_update(actor=self.actor, group_id=group_id, **self.body_input(GroupUpdateInput))
        return self._out(group_id)

    @extend_schema(
        operation_id="campaign_groups_delete",
        request=ExpectedRevisionInput,
        parameters=[OpenApiParameter("expected_revision", int, required=False)],
        responses={204: None, **errors(400, 403, 404, 409)},
    )
    def delete(self, request, group_id: int):
        selectors.group_get(actor=self.actor, group_id=group_id)
        group_services.group_delete(
            actor=self.actor, group_id=group_id, **self.body_or_query_input(ExpectedRevisionInput)
        )
        return Response(status=status.HTTP_204_NO_CONTENT)


class GroupCampaignsApi(WorkspaceAPIView):
    write_permission = Perm.MANAGE_CAMPAIGNS

    @extend_schema(
        operation_id="campaign_groups_add_campaigns",
        request=GroupAddInput,
        responses={200: GroupAddOutput, **errors(400, 403, 404, 409)},
    )
    def post(self, request, group_id: int):
        selectors.group_get(actor=self.actor, group_id=group_id)
        result = group_services.group_add_campaigns(
            actor=self.actor, group_id=group_id, **self.body_input(GroupAddInput)
        )
        return Response(GroupAddOutput(result).data)


class GroupCampaignDetailApi(WorkspaceAPIView):
    write_permission = Perm.MANAGE_CAMPAIGNS

    @extend_schema(
        operation_id="campaign_groups_remove_campaign",
        request=ExpectedRevisionInput,
        parameters=[OpenApiParameter("expected_revision", int, required=False)],
        responses={200: GroupOutput, **errors(400, 403, 404, 409)},
    )
    def delete(self, request, group_id: int, campaign_id: int):
        selectors.group_get(actor=self.actor, group_id=group_id)
        group = group_services.group_remove_campaign(
            actor=self.actor,
            group_id=group_id,
            campaign_id=campaign_id,
            **self.body_or_query_input(ExpectedRevisionInput),
        )
        selectors.attach_campaign_counts(actor=self.actor, groups=[group])
        return Response(GroupOutput(group).data)


class GroupCampaignMoveApi(WorkspaceAPIView):
    write_permission = Perm.MANAGE_CAMPAIGNS

    @extend_schema(
        operation_id="campaign_groups_move_campaign",
        request=GroupMoveInput,
        responses={200: GroupOutput, **errors(400, 403, 404, 409)},
    )
    def post(self, request, group_id: int, campaign_id: int):
        selectors.group_get(actor=self.actor, group_id=group_id)
        group = group_services.group_move_campaign(
            actor=self.actor, group_id=group_id, campaign_id=campaign_id, **self.body_input(GroupMoveInput)
        )
        selectors.attach_campaign_counts(actor=self.actor, groups=[group])
        return Response(GroupOutput(group).data)


class GroupTreeApi(WorkspaceAPIView):
    @extend_schema(
        operation_id="campaign_groups_tree",
        parameters=[TreeQueryInput],
        responses={200: TreeOutput, **errors(400, 404)},
    )
    def get(self, request, group_id: int):
        params = self.query_input(TreeQueryInput)
        size, cursor = params["size"], params.get("cursor")
        offset = decode_offset_cursor(cursor) if cursor else None
        tree = selectors.campaign_tree(
            actor=self.actor,
            group_id=group_id,
            query=params.get("query"),
            page=params["page"],
            size=size,
            offset=offset,
        )
        start = offset if offset is not None else (params["page"] - 1) * size
        tree["next"] = encode_offset_cursor(start + size) if tree["has_more"] else None
        return Response(tree)


class GroupSourcesApi(WorkspaceAPIView):
    queryset = CampaignGroup.objects.none()  # the path's group_id, for the schema; rows are the selector's

    @extend_schema(
        operation_id="campaign_groups_inheritance_sources",
        parameters=[SourcesQueryInput],
        responses={200: SourceOutput(many=True), **errors(400, 404)},
    )
    def get(self, request, group_id: int):
        params = self.query_input(SourcesQueryInput)
        sources = selectors.inheritance_sources(
            actor=self.actor, group_id=group_id, campaign_id=params.get("campaign_id")
        )
        return self.paginated(sources, SourceOutput)
