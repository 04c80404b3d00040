"""Base view every workspace-scoped API view extends.

After DRF authenticates, ``initial`` resolves ``self.actor`` (user +
workspace + role) and checks the view's read/write permission. Views then
parse, call one service or selector, and render.
"""

from rest_framework.generics import GenericAPIView
from rest_framework.permissions import SAFE_METHODS

from campaigns.platform.errors import ValidationFailed
from campaigns.platform.permissions import Perm
from campaigns.platform.tenancy import SESSION_KEY, Actor, resolve_actor


class WorkspaceAPIView(GenericAPIView):
    read_permission: str | None = Perm.VIEW
    write_permission: str | None = None
    filterset_class = None
    actor: Actor

    def initial(self, request, *args, **kwargs):
        super().initial(request, *args, **kwargs)
        session = getattr(request, "session", None)
        self.actor = resolve_actor(
            request.user,
            header=request.headers.get("X-Workspace"),
            session_workspace_id=session.get(SESSION_KEY) if session is not None else None,
        )
        perm = self.read_permission if request.method in SAFE_METHODS else self.write_permission
        if perm:
            self.actor.require(perm)

    def get_queryset(self):
        # drf-spectacular inspects views without a request: give it the typed empty queryset.
        if getattr(self, "swagger_fake_view", False):
            return self.queryset
        return self.scoped_queryset()

    def scoped_queryset(self):
        raise NotImplementedError

    def filter_queryset(self, queryset):
        if self.filterset_class is None:
            return queryset
        filterset = self.filterset_class(self.request.query_params, queryset=queryset, request=self.request)
        if not filterset.is_valid():
            raise ValidationFailed(details=filterset.errors)
        return filterset.qs

    def query_input(self, serializer_class) -> dict:
        """Query parameters of a non-list endpoint, validated by a serializer (400 VALIDATION_ERROR).

        An empty value means "not given", as in the FilterSets of the list endpoints."""
        given = {key: value for key, value in self.request.query_params.items() if value != ""}
        serializer = serializer_class(data=given)
        if not serializer.is_valid():
            raise ValidationFailed(details=serializer.errors)
        return serializer.validated_data

    def paginated(self, queryset, serializer_class):
        page = self.paginate_queryset(queryset)
        return self.get_paginated_response(serializer_class(page, many=True, context={"request": self.request}).data)
