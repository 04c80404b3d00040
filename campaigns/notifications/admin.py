"""Admin of notifications (read-only history) and activities (people edit them on the pages)."""

from django.contrib import admin

from campaigns.notifications.models import Activity, Notification
from campaigns.platform.admin import ReadOnlyAdmin
from campaigns.platform.permissions import Perm


@admin.register(Notification)
class NotificationAdmin(ReadOnlyAdmin):
    list_display = ("title", "recipient", "workspace", "kind", "read_at", "created_at")
    list_filter = ("kind", "workspace")
    search_fields = ("title",)


@admin.register(Activity)
class ActivityAdmin(ReadOnlyAdmin):
    view_perm = Perm.VIEW
    ordering = ("-id",)  # newest first by the primary key (the "my follow-ups" order is per assignee)
    list_display = ("title", "target", "assignee", "kind", "status", "due_at", "workspace")
    list_filter = ("status", "kind", "workspace")
    search_fields = ("title",)
