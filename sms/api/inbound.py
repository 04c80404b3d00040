"""Replies API: the inbox (filtered, mark read), a target's conversation, the opt-out / opt-in words."""

from __future__ import annotations

from functools import partial
from types import SimpleNamespace

import django_filters
from django.utils.translation import gettext
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.response import Response

from campaigns.models import Target
from campaigns.platform.api.base import WorkspaceAPIView
from campaigns.platform.api.fields import BodyInput, IdField
from campaigns.platform.api.pagination import BAD_CURSOR, HistoryPagination, PageSizePagination, positive_int_param
from campaigns.platform.api.schema import errors
from campaigns.platform.errors import ValidationFailed
from campaigns.platform.filters import IdFilter, IsoDateTimeFilter, StrictBooleanFilter
from campaigns.platform.keyset import BadCursor
from campaigns.platform.permissions import Perm
from campaigns.platform.tenancy import get_scoped
from sms import channel
from sms.choices import InboundOutcome
from sms.inbound import selectors
from sms.inbound.keywords import MAX_WORD_LENGTH, MAX_WORDS
from sms.inbound.models import InboundSms
from sms.inbound.services import MAX_MARK, inbound_mark_read, inbound_words_update
from sms.selectors import number_filter


class InboundFilter(django_filters.FilterSet):
    campaign = IdFilter(field_name="campaign_id")
    line = django_filters.CharFilter(field_name="line", max_length=30)
    matched = StrictBooleanFilter(field_name="target", lookup_expr="isnull", exclude=True)
    outcome = django_filters.ChoiceFilter(choices=[c for c in InboundOutcome.choices if c[0]])
    opt_outs = StrictBooleanFilter(method="filter_opt_outs")
    unread = StrictBooleanFilter(field_name="is_read", exclude=True)
    number = django_filters.CharFilter(method="filter_number", max_length=40)
    since = IsoDateTimeFilter(field_name="received_at", lookup_expr="gte")
    until = IsoDateTimeFilter(field_name="received_at", lookup_expr="lt")

    class Meta:
        model = InboundSms
        fields = ["campaign", "line", "matched", "outcome", "opt_outs", "unread", "number", "since", "until"]

    def filter_opt_outs(self, queryset, name, value):
        opt_out = {"outcome": InboundOutcome.OPT_OUT}
        return queryset.filter(**opt_out) if value else queryset.exclude(**opt_out)

    def filter_number(self, queryset, name, value):
        return number_filter(queryset, "number", value)


class InboundOutput(serializers.ModelSerializer):
    target_id = serializers.IntegerField(allow_null=True, read_only=True)
    target_name = serializers.CharField(source="target.name", allow_null=True, default=None, read_only=True)
    campaign_id = serializers.IntegerField(allow_null=True, read_only=True)
    attempt_id = serializers.IntegerField(allow_null=True, read_only=True)
    account_id = serializers.IntegerField(read_only=True)

    class Meta:
        model = InboundSms
        fields = [
            "id",
            "account_id",
            "provider",
            "line",
            "number",
            "text",
            "received_at",
            "target_id",
            "target_name",
            "campaign_id",
            "attempt_id",
            "is_read",
            "outcome",
        ]


class MarkReadInput(BodyInput):
    ids = serializers.ListField(child=IdField(), max_length=MAX_MARK, allow_empty=False)
    read = serializers.BooleanField(default=True)


class MarkReadOutput(serializers.Serializer):
    marked = serializers.IntegerField()


MAX_POSITION = 200  # characters of a position read (ours are under 100)


class ConversationMessageOutput(serializers.Serializer):
    direction = serializers.ChoiceField(choices=["out", "in"], help_text="out = sent to the target, in = its reply")
    id = serializers.IntegerField(help_text="the attempt's id (out) or the reply's id (in)")
    at = serializers.DateTimeField()
    text = serializers.CharField(allow_blank=True)
    line = serializers.CharField(allow_blank=True)
    status = serializers.CharField(help_text="the attempt's delivery status (out); read / unread (in)")
    campaign_id = serializers.IntegerField(allow_null=True)
    outcome = serializers.ChoiceField(
        choices=[c for c in InboundOutcome.choices if c[0]],
        allow_blank=True,
        help_text="what the reply did: opt_out, opt_in, opt_in_refused ('' = nothing; always '' on a sent message)",
    )
    position = serializers.SerializerMethodField(
        help_text="this message's place in the thread (the first message's is the page's `next`)"
    )

    def get_position(self, row: dict) -> str:
        return selectors.thread_position(row)


class InboundWordsSerializer(BodyInput):
    opt_out_words = serializers.ListField(
        child=serializers.CharField(max_length=MAX_WORD_LENGTH, trim_whitespace=False), max_length=MAX_WORDS
    )
    opt_in_words = serializers.ListField(
        child=serializers.CharField(max_length=MAX_WORD_LENGTH, trim_whitespace=False), max_length=MAX_WORDS
    )


class InboundListApi(WorkspaceAPIView):
    read_permission = Perm.VIEW_SMS_LOGS
    serializer_class = InboundOutput
    queryset = InboundSms.objects.none()
    pagination_class = HistoryPagination
    keyset_time_field, keyset_descending = "received_at", True
    filterset_class = InboundFilter

    def scoped_queryset(self):
        return selectors.inbound_queryset(actor=self.actor)

    @extend_schema(operation_id="sms_inbound_list", responses={200: InboundOutput(many=True), **errors(400, 403, 404)})
    def get(self, request):
        """Replies, newest first: filter by campaign, line, matched / unmatched, opt-outs, unread, number, time."""
        return self.paginated(self.filter_queryset(self.scoped_queryset()), InboundOutput)


class InboundDetailApi(WorkspaceAPIView):
    read_permission = Perm.VIEW_SMS_LOGS
    serializer_class = InboundOutput

    @extend_schema(operation_id="sms_inbound_retrieve", responses={200: InboundOutput, **errors(403, 404)})
    def get(self, request, message_id: int):
        return Response(InboundOutput(get_scoped(InboundSms, self.actor.workspace, message_id)).data)


class InboundMarkReadApi(WorkspaceAPIView):
    write_permission = Perm.VIEW_SMS_LOGS
    serializer_class = MarkReadOutput

    @extend_schema(
        operation_id="sms_inbound_mark_read",
        request=MarkReadInput,
        responses={200: MarkReadOutput, **errors(400, 403, 404)},
        description="Mark replies read (or unread again with read=false); ids of other workspaces change nothing.",
    )
    def post(self, request):
        return Response({"marked": inbound_mark_read(actor=self.actor, **self.body_input(MarkReadInput))})


class ConversationPagination(PageSizePagination):
    """A thread in the one page envelope, read backwards: the first answer is the newest ``size`` messages,
    ``next`` the position of its oldest, and ``?cursor=<next>`` the ``size`` messages before it — each page
    oldest first, as a thread reads. A position, not an offset: messages arriving meanwhile never shift the
    older pages, and no page counts (``count`` is null). ``page`` is 1 or absent: a thread pages by cursor."""

    def paginate_thread(self, request, fetch) -> list[dict]:
        self.request = request
        if positive_int_param(request, "page") not in (None, 1):
            raise ValidationFailed.field("page", gettext("This conversation pages by cursor only."))
        self.size = self._size(request)
        raw = request.query_params.get("cursor", "")
        self.number = None if raw else 1
        before = None
        if raw:
            try:
                before = selectors.thread_position_parse(raw[:MAX_POSITION])
            except BadCursor:
                raise ValidationFailed.field("cursor", str(BAD_CURSOR)) from None
        rows = fetch(limit=self.size + 1, before=before)
        more = len(rows) > self.size
        rows = rows[len(rows) - self.size :] if more else rows
        self.next = selectors.thread_position(rows[0]) if more else None
        self.paginator = SimpleNamespace(count=None, capped=None)
        return rows


class ConversationApi(WorkspaceAPIView):
    read_permission = Perm.VIEW_SMS_LOGS
    serializer_class = ConversationMessageOutput
    queryset = Target.objects.none()  # the path's target (for the schema generator)
    pagination_class = ConversationPagination

    @extend_schema(
        operation_id="sms_conversation_retrieve",
        responses={200: ConversationMessageOutput(many=True), **errors(400, 403, 404)},
    )
    def get(self, request, target_id: int):
        """The messages sent to and received from the target (its mobile), newest page first, each page oldest
        first; `next` continues with the older ones (`has_more: false`: the thread's beginning)."""
        rows = self.paginator.paginate_thread(
            request, partial(selectors.conversation, actor=self.actor, target_id=target_id)
        )
        return self.get_paginated_response(ConversationMessageOutput(rows, many=True).data)


class InboundWordsApi(WorkspaceAPIView):
    read_permission = Perm.VIEW_SMS_LOGS
    write_permission = Perm.MANAGE_WORKSPACE
    serializer_class = InboundWordsSerializer

    @extend_schema(
        operation_id="sms_inbound_words_retrieve", responses={200: InboundWordsSerializer, **errors(403, 404)}
    )
    def get(self, request):
        settings = channel.sms_settings(self.actor.workspace.id)
        return Response({"opt_out_words": settings.opt_out_words, "opt_in_words": settings.opt_in_words})

    @extend_schema(
        operation_id="sms_inbound_words_update",
        request=InboundWordsSerializer(partial=True),
        responses={200: InboundWordsSerializer, **errors(400, 403, 404)},
        description="A reply whose whole text (normalised) is an opt-out word blacklists its number; an opt-in word "
        "lifts such an opt-out. A word cannot be both.",
    )
    def patch(self, request):
        serializer = InboundWordsSerializer(data=request.data, partial=True)
        serializer.is_valid(raise_exception=True)
        settings = inbound_words_update(actor=self.actor, data=dict(serializer.validated_data))
        return Response({"opt_out_words": settings.opt_out_words, "opt_in_words": settings.opt_in_words})
