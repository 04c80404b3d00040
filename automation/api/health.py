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
                    "checks": serializers.DictField(child=serializers.DictField()),
                },
            ),
            **errors(401, 403),
        },
    )
    def get(self, request):
        if not request.user.is_staff:
            raise PermissionDenied()
        return Response(journey_health_report())
