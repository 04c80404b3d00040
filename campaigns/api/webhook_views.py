"""``/api/v1/webhooks``: a workspace's outbound webhooks (owners and admins) — create (the secret in the answer
once), list, read, change, delete, rotate the secret, send a test event, the delivery log and a replay."""

from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.response import Response

from campaigns.api.webhook_serializers import (
    WebhookDeliveryOutput,
    WebhookInput,
    WebhookOutput,
    WebhookSecretOutput,
)
from campaigns.filters import WebhookDeliveryFilter
from campaigns.platform.api.base import WorkspaceAPIView, takes_no_body
from campaigns.platform.api.schema import errors
from campaigns.platform.api.throttles import WEBHOOK_SEND_THROTTLES, with_default_throttles
from campaigns.platform.models import WebhookDelivery, WebhookEndpoint
from campaigns.platform.permissions import Perm
from campaigns.platform.webhooks import (
    webhook_delivery_replay,
    webhook_endpoint_create,
    webhook_endpoint_delete,
    webhook_endpoint_get,
    webhook_endpoint_update,
    webhook_secret_rotate,
    webhook_test_send,
)


class _WebhookApi(WorkspaceAPIView):
    read_permission = Perm.MANAGE_WORKSPACE
    write_permission = Perm.MANAGE_WORKSPACE


class WebhookListCreateApi(_WebhookApi):
    serializer_class = WebhookOutput
    queryset = WebhookEndpoint.objects.none()

    def scoped_queryset(self):
        return WebhookEndpoint.objects.filter(workspace=self.actor.workspace).order_by("-created_at", "-id")

    @extend_schema(operation_id="webhooks_list", responses={200: WebhookOutput(many=True), **errors(400, 403)})
    def get(self, request):
        return self.paginated(self.scoped_queryset(), WebhookOutput)

    @extend_schema(
        operation_id="webhooks_create", request=WebhookInput, responses={201: WebhookSecretOutput, **errors(400, 403)}
    )
    def post(self, request):
        data = self.body_input(WebhookInput)
        endpoint, secret = webhook_endpoint_create(
            workspace=self.actor.workspace,
            url=data["url"],
            events=data["events"],
            description=data.get("description", ""),
        )
        return Response(WebhookSecretOutput(endpoint, context={"secret": secret}).data, status=status.HTTP_201_CREATED)


class WebhookDetailApi(_WebhookApi):
    serializer_class = WebhookOutput

    @extend_schema(operation_id="webhooks_retrieve", responses={200: WebhookOutput, **errors(403, 404)})
    def get(self, request, webhook_id: int):
        return Response(
            WebhookOutput(webhook_endpoint_get(workspace=self.actor.workspace, endpoint_id=webhook_id)).data
        )

    @extend_schema(
        operation_id="webhooks_update", request=WebhookInput, responses={200: WebhookOutput, **errors(400, 403, 404)}
    )
    def patch(self, request, webhook_id: int):
        serializer = WebhookInput(data=request.data, partial=True)
        serializer.is_valid(raise_exception=True)
        endpoint = webhook_endpoint_update(
            workspace=self.actor.workspace, endpoint_id=webhook_id, data=serializer.validated_data
        )
        return Response(WebhookOutput(endpoint).data)

    @extend_schema(operation_id="webhooks_delete", responses={204: None, **errors(403, 404)})
    @takes_no_body
    def delete(self, request, webhook_id: int):
        webhook_endpoint_delete(workspace=self.actor.workspace, endpoint_id=webhook_id)
        return Response(status=status.HTTP_204_NO_CONTENT)


class WebhookRotateApi(_WebhookApi):
    @extend_schema(
        operation_id="webhooks_rotate_secret", request=None, responses={200: WebhookSecretOutput, **errors(403, 404)}
    )
    @takes_no_body
    def post(self, request, webhook_id: int):
        endpoint, secret = webhook_secret_rotate(workspace=self.actor.workspace, endpoint_id=webhook_id)
        return Response(WebhookSecretOutput(endpoint, context={"secret": secret}).data)


class WebhookTestApi(_WebhookApi):
    throttle_classes = with_default_throttles(
        *WEBHOOK_SEND_THROTTLES
    )  # page and API: one count per member and workspace

    @extend_schema(
        operation_id="webhooks_test", request=None, responses={202: WebhookDeliveryOutput, **errors(403, 404)}
    )
    @takes_no_body
    def post(self, request, webhook_id: int):
        delivery = webhook_test_send(workspace=self.actor.workspace, endpoint_id=webhook_id)
        return Response(WebhookDeliveryOutput(delivery).data, status=status.HTTP_202_ACCEPTED)


class WebhookDeliveriesApi(_WebhookApi):
    serializer_class = WebhookDeliveryOutput
    queryset = WebhookDelivery.objects.none()
    filterset_class = WebhookDeliveryFilter  # ?status=, ?event_type= (the page's filters)

    @extend_schema(
        operation_id="webhooks_deliveries", responses={200: WebhookDeliveryOutput(many=True), **errors(400, 403, 404)}
    )
    def get(self, request, webhook_id: int):
        endpoint = webhook_endpoint_get(workspace=self.actor.workspace, endpoint_id=webhook_id)
        rows = self.filter_queryset(WebhookDelivery.objects.filter(workspace=self.actor.workspace, endpoint=endpoint))
        return self.paginated(rows.order_by("-created_at", "-id"), WebhookDeliveryOutput)


class WebhookReplayApi(_WebhookApi):
    throttle_classes = with_default_throttles(*WEBHOOK_SEND_THROTTLES)

    @extend_schema(
        operation_id="webhook_deliveries_replay",
        request=None,
        responses={202: WebhookDeliveryOutput, **errors(403, 404)},
    )
    @takes_no_body
    def post(self, request, delivery_id: int):
        replay = webhook_delivery_replay(workspace=self.actor.workspace, delivery_id=delivery_id)
        return Response(WebhookDeliveryOutput(replay).data, status=status.HTTP_202_ACCEPTED)
