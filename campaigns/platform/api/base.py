"""Base view every workspace-scoped API view extends.

After DRF authenticates, ``initial`` resolves ``self.actor`` (user +
workspace + role), checks the view's read/write permission and then the
throttles counted per workspace (``per_workspace``, which DRF's own check
before the actor is known leaves out). Views then parse, call one service or
selector, and render.
"""

import re

from drf_spectacular.utils import OpenApiParameter
from rest_framework.generics import GenericAPIView
from rest_framework.permissions import SAFE_METHODS
from rest_framework.response import Response

from campaigns.platform import idempotency
from campaigns.platform.api.fields import BodyInput
from campaigns.platform.errors import ValidationFailed, WorkspaceNotFound
from campaigns.platform.models import ApiToken
from campaigns.platform.permissions import Perm
from campaigns.platform.tenancy import SESSION_KEY, Actor, resolve_actor

IF_MATCH = re.compile(r'^\s*(?:W/)?"?(\d{1,9})"?\s*$')
IF_MATCH_PARAMETER = OpenApiParameter(
    "If-Match",
    str,
    OpenApiParameter.HEADER,
    description='The `revision` (or ETag, `"3"`) the client read: a change since is a 409 STALE_REVISION.',
)


def if_match_revision(request) -> int | None:
    """The revision an ``If-Match`` header names (``3``, ``"3"`` or ``W/"3"``); None without one; else a 400."""
    header = request.headers.get("If-Match")
    if header is None:
        return None
    match = IF_MATCH.match(header)
    if match is None:
        raise ValidationFailed.field("If-Match", 'یک شماره نسخه مانند "3" بفرستید.')
    return int(match.group(1))


def takes_no_body(view_method):
    """Marks a write that takes no body (its schema says ``request=None``): a body sent with fields is a 400
    naming each of them, as an undeclared field of any other body is (``BodyInput``), not dropped in silence."""
    view_method.takes_no_body = True
    return view_method


class _Replay(Exception):  # not an error: the stored answer short-circuits the view
    def __init__(self, answer: idempotency.StoredAnswer):
        self.answer = answer


class WorkspaceAPIView(GenericAPIView):
    read_permission: str | None = Perm.VIEW
    write_permission: str | None = None
    filterset_class = None
    actor: Actor
    idempotency_claim: idempotency.Claim | None = None

    def initial(self, request, *args, **kwargs):
        super().initial(request, *args, **kwargs)
        session = getattr(request, "session", None)
        self.actor = resolve_actor(
            request.user,
            header=self._workspace_header(request),
            session_workspace_id=session.get(SESSION_KEY) if session is not None else None,
        )
        perm = self.read_permission if request.method in SAFE_METHODS else self.write_permission
        if perm:
            self.actor.require(perm)
        self.check_throttles(request)  # now the per-workspace ones
        handler = getattr(self, request.method.lower(), None)
        if getattr(handler, "takes_no_body", False) and request.data:
            BodyInput(data=request.data).is_valid(raise_exception=True)
        if request.method == "POST":
            self._idempotency_begin(request)

    def get_throttles(self):
        """Before the actor is resolved the throttles counted per client or user, after it those counted per
        workspace (``per_workspace``)."""
        resolved = "actor" in self.__dict__
        return [t() for t in self.throttle_classes if getattr(t, "per_workspace", False) == resolved]

    @staticmethod
    def _workspace_header(request) -> str | None:
        """``X-Workspace``; a key bound to a workspace acts there only (another workspace named: 404)."""
        header = request.headers.get("X-Workspace")
        bound = getattr(request.auth, "workspace", None) if isinstance(request.auth, ApiToken) else None
        if bound is None:
            return header
        if header and header.strip() not in (bound.slug, str(bound.pk)):
            raise WorkspaceNotFound()
        return str(bound.pk)

    def _idempotency_begin(self, request) -> None:
        """``Idempotency-Key``: claim the key, or answer with what the first request with it answered."""
        key = idempotency.idempotency_key_read(request.headers)
        if key is None:
            return
        claim = idempotency.idempotency_claim(
            workspace_id=self.actor.workspace.pk,
            user_id=self.actor.user.pk,
            key=key,
            path=request.path,
            fingerprint=idempotency.body_fingerprint(request.data),
        )
        if isinstance(claim, idempotency.StoredAnswer):
            raise _Replay(claim)
        self.idempotency_claim = claim

    def handle_exception(self, exc):
        if isinstance(exc, _Replay):
            response = Response(exc.answer.body, status=exc.answer.status_code)
            response["Idempotent-Replayed"] = "true"
            return response
        return super().handle_exception(exc)

    def finalize_response(self, request, response, *args, **kwargs):
        response = super().finalize_response(request, response, *args, **kwargs)
        if self.idempotency_claim is not None:
            claim, self.idempotency_claim = self.idempotency_claim, None
            if isinstance(response, Response):
                idempotency.idempotency_store(claim=claim, status_code=response.status_code, body=response.data)
            else:  # a file or stream is not kept: the key is released
                idempotency.idempotency_release(claim=claim)
        return response

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

    def body_input(self, serializer_class) -> dict:
        """The request body validated by its input serializer (a 400 ``VALIDATION_ERROR`` with the fields)."""
        serializer = serializer_class(data=self.request.data)
        serializer.is_valid(raise_exception=True)
        return serializer.validated_data

    def body_or_query_input(self, serializer_class) -> dict:
        """A DELETE's parameters: its JSON body when one is sent, else the query string (some clients send no
        DELETE body) — either validated by the same ``BodyInput`` (unknown fields and bad values a 400)."""
        return self.body_input(serializer_class) if self.request.data else self.query_input(serializer_class)

    def paginated(self, queryset, serializer_class):
        page = self.paginate_queryset(queryset)
        return self.get_paginated_response(serializer_class(page, many=True, context={"request": self.request}).data)
