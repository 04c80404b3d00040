"""``GET /api/v1/health/journeys``: the scheduler's heartbeat and the stale queues of every workspace (staff)."""

from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from automation.health import journey_health_report
from campaigns.platform.api.schema import errors
from campaigns.platform.errors import PermissionDenied


class JourneyHealthApi(APIView):
    @extend_schema(
        operation_id="health_journeys",
        responses={
            200: inline_serializer(
                "JourneyHealth",
                {
                    "ok": serializers.BooleanField(),
                    "checked_at": serializers.DateTimeField(),
                    "checks": inline_serializer(
                        "JourneyHealthChecks",
                        {
                            "heartbeat": inline_serializer(
                                "HeartbeatCheck",
                                {
                                    "ok": serializers.BooleanField(),
                                    "last_beat_at": serializers.DateTimeField(allow_null=True),
                                    "age_seconds": serializers.IntegerField(allow_null=True),
                                    "active_campaigns": serializers.BooleanField(),
                                },
                            ),
                            "due_unclaimed": inline_serializer(
                                "DueUnclaimedCheck",
                                {"ok": serializers.BooleanField(), "count": serializers.IntegerField()},
                            ),
                            "queued_stale": inline_serializer(
                                "QueuedStaleCheck",
                                {"ok": serializers.BooleanField(), "count": serializers.IntegerField()},
                            ),
                        },
                    ),
                },
            ),
            **errors(401, 403),
        },
    )
    def get(self, request):
        if not request.user.is_staff:
            raise PermissionDenied()
        return Response(journey_health_report())
