from django.contrib import admin

from campaigns.admin_base import JalaliAdmin

from .models import Workflow


@admin.register(Workflow)
class WorkflowAdmin(JalaliAdmin):
    list_display = ("name", "workspace", "created_jalali", "deleted_at")
    list_filter = ("workspace",)
    search_fields = ("name", "description")
