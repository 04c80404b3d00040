"""``/api/v1/api-keys``: a member's own API keys of the current workspace — list, create (the key is in the
answer once), revoke. A key may create keys only with scopes it holds itself (``api_token_scopes_clean``);
revoking a key revokes every key made with it, transitively (``api_token_revoke``)."""

from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.response import Response

from campaigns.api.key_serializers import ApiKeyCreatedOutput, ApiKeyInput, ApiKeyOutput
from campaigns.platform.api.base import WorkspaceAPIView, takes_no_body
from campaigns.platform.api.schema import errors
from campaigns.platform.api.scopes import scope_names
from campaigns.platform.models import ApiToken
from campaigns.platform.permissions import Perm
from campaigns.platform.tokens import (
    api_token_create,
    api_token_revoke,
    api_token_scopes_clean,
    api_tokens_of,
)


class ApiKeyListCreateApi(WorkspaceAPIView):
    write_permission = Perm.VIEW  # every member manages their own keys; the role still bounds what a key does
    serializer_class = ApiKeyOutput
    queryset = ApiToken.objects.none()

    def scoped_queryset(self):
        return api_tokens_of(user=self.request.user, workspace=self.actor.workspace)

    @extend_schema(operation_id="api_keys_list", responses={200: ApiKeyOutput(many=True), **errors(400, 404)})
    def get(self, request):
        return self.paginated(self.scoped_queryset(), ApiKeyOutput)

    @extend_schema(
        operation_id="api_keys_create",
        request=ApiKeyInput,
        responses={201: ApiKeyCreatedOutput, **errors(400, 403)},
    )
    def post(self, request):
        data = self.body_input(ApiKeyInput)
        granter = request.auth if isinstance(request.auth, ApiToken) else None
        token, key = api_token_create(
            user=request.user,
            workspace=self.actor.workspace,
            name=data["name"],
            ttl_days=data["expires_in_days"],
            scopes=api_token_scopes_clean(scopes=data["scopes"], known=scope_names(), granter=granter),
            read_only=data["read_only"],
            not_after=granter.expires_at if granter else None,  # a key never makes a key that outlives it
            granter=granter,  # revoking the granter revokes this key too
        )
        return Response(ApiKeyCreatedOutput(token, context={"key": key}).data, status=status.HTTP_201_CREATED)


class ApiKeyDetailApi(WorkspaceAPIView):
    write_permission = Perm.VIEW
    serializer_class = ApiKeyOutput

    @extend_schema(operation_id="api_keys_revoke", responses={200: ApiKeyOutput, **errors(403, 404)})
    @takes_no_body
    def delete(self, request, key_id: int):
        token = api_token_revoke(user=request.user, workspace=self.actor.workspace, token_id=key_id)
        return Response(ApiKeyOutput(token).data)
