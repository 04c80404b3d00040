"""Notifications (the actor's own) and activities: thin views over the services and selectors."""

from drf_spectacular.utils import extend_schema
from rest_framework.response import Response

from campaigns.notifications import selectors, services
from campaigns.notifications.api.serializers import (
    ActivityOutput,
    NotificationMarkInput,
    NotificationOutput,
    UnreadCountOutput,
)
from campaigns.notifications.filters import ActivityFilter, NotificationFilter
from campaigns.notifications.models import Activity, Notification
from campaigns.platform.api.base import WorkspaceAPIView, takes_no_body
from campaigns.platform.api.schema import errors


class NotificationListApi(WorkspaceAPIView):
    serializer_class = NotificationOutput
    filterset_class = NotificationFilter
    queryset = Notification.objects.none()

    @extend_schema(
        operation_id="notifications_list", responses={200: NotificationOutput(many=True), **errors(400, 404)}
    )
    def get(self, request):
        return self.paginated(
            self.filter_queryset(selectors.notification_queryset(actor=self.actor)), NotificationOutput
        )


class NotificationUnreadApi(WorkspaceAPIView):
    serializer_class = UnreadCountOutput

    @extend_schema(operation_id="notifications_unread_count", responses={200: UnreadCountOutput})
    def get(self, request):
        return Response({"unread": selectors.unread_count(actor=self.actor)})


class NotificationMarkApi(WorkspaceAPIView):
    write_permission = None  # one's own notifications: any member
    serializer_class = NotificationOutput

    @extend_schema(
        operation_id="notifications_mark",
        request=NotificationMarkInput,
        responses={200: NotificationOutput, **errors(400, 404)},
    )
    def post(self, request, notification_id: int):
        data = NotificationMarkInput(data=request.data)
        data.is_valid(raise_exception=True)
        n = services.notification_mark(
            actor=self.actor, notification_id=notification_id, read=data.validated_data["read"]
        )
        return Response(NotificationOutput(n).data)


class NotificationMarkAllApi(WorkspaceAPIView):
    write_permission = None
    serializer_class = UnreadCountOutput

    @extend_schema(operation_id="notifications_mark_all_read", request=None, responses={200: UnreadCountOutput})
    @takes_no_body
    def post(self, request):
        marked = services.notifications_mark_all_read(actor=self.actor)
        return Response({"unread": selectors.unread_count(actor=self.actor), "marked": marked})


class ActivityListApi(WorkspaceAPIView):
    serializer_class = ActivityOutput
    filterset_class = ActivityFilter
    queryset = Activity.objects.none()

    @extend_schema(operation_id="activities_list", responses={200: ActivityOutput(many=True), **errors(400, 404)})
    def get(self, request):
        qs = self.filter_queryset(selectors.activity_queryset(actor=self.actor)).order_by("status", "due_at", "id")
        return self.paginated(qs, ActivityOutput)


def _activity_status_view(name: str, *, done: bool):
    """An activity marked done, or open again (``done``)."""

    class ActivityStatusApi(WorkspaceAPIView):
        write_permission = None  # the assignee or a role that manages targets (the service); visibility: the selector
        serializer_class = ActivityOutput

        @extend_schema(
            operation_id=f"activities_{name}", request=None, responses={200: ActivityOutput, **errors(403, 404, 409)}
        )
        @takes_no_body
        def post(self, request, activity_id: int):
            activity = services.activity_set_status(actor=self.actor, activity_id=activity_id, done=done)
            return Response(ActivityOutput(activity).data)

    ActivityStatusApi.__name__ = f"Activity{name.title()}Api"
    return ActivityStatusApi


ActivityDoneApi = _activity_status_view("done", done=True)
ActivityReopenApi = _activity_status_view("reopen", done=False)
