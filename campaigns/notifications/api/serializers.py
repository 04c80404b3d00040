from rest_framework import serializers

from campaigns.notifications.models import Activity, Notification
from campaigns.platform.api.fields import BodyInput


class NotificationOutput(serializers.ModelSerializer):
    is_read = serializers.SerializerMethodField()

    class Meta:
        model = Notification
        fields = ["id", "kind", "title", "body", "link", "is_read", "read_at", "created_at"]

    def get_is_read(self, obj) -> bool:
        return obj.read_at is not None


class NotificationMarkInput(BodyInput):
    read = serializers.BooleanField(default=True)


class UnreadCountOutput(serializers.Serializer):
    unread = serializers.IntegerField()
    marked = serializers.IntegerField(required=False)


class ActivityOutput(serializers.ModelSerializer):
    target_name = serializers.CharField(source="target.name", read_only=True)
    assignee_username = serializers.SerializerMethodField()

    class Meta:
        model = Activity
        fields = [
            "id",
            "target_id",
            "target_name",
            "kind",
            "title",
            "description",
            "due_at",
            "assignee_id",
            "assignee_username",
            "status",
            "done_at",
            "source_campaign_id",
            "source_execution_id",
            "created_at",
        ]

    def get_assignee_username(self, obj) -> str | None:
        return obj.assignee.get_username() if obj.assignee_id else None
