"""Admin registrations of the engine (published versions, events and executions are read-only here)."""

from django.contrib import admin

from automation.models import (
    AutoEnrollRule,
    AutomationSettings,
    CampaignJourney,
    DailyCounter,
    EnrollmentBatch,
    EnrollmentItem,
    Execution,
    ExecutionEvent,
    JourneyCount,
    VersionMigration,
    Workflow,
    WorkflowEdge,
    WorkflowNode,
    WorkflowTemplate,
    WorkflowTextChange,
    WorkflowVersion,
)
from campaigns.platform.admin import (
    NoWritesMixin,
    ReadOnlyAdmin,
    WorkspaceScopedAdmin,
    WorkspaceScopedInline,
    jalali_column,
    run_service_action,
)
from campaigns.platform.permissions import Perm


@admin.register(Workflow)
class WorkflowAdmin(WorkspaceScopedAdmin):
    """Name and description here; the graph, publishing and status go through the workflow services."""

    manage_perm = Perm.MANAGE_WORKFLOWS
    list_display = ("name", "workspace", "status", "published_version", "created_jalali", "deleted_at")
    list_filter = ("workspace", "status")
    search_fields = ("name", "description")
    readonly_fields = ("status", "published_version", "created_by", "updated_by", "deleted_at")
    actions = ["publish_draft"]

    def has_add_permission(self, request):
        return False  # created through the API (first draft version, template copy)

    @admin.action(description="انتشار پیش‌نویس", permissions=["change"])
    def publish_draft(self, request, queryset):
        """The workflow service publishes (validation problems block it and are shown as messages)."""
        from automation.services.workflows import workflow_publish

        run_service_action(
            self,
            request,
            queryset,
            lambda actor, workflow: workflow_publish(actor=actor, workflow_id=workflow.id),
            "پیش‌نویس {count} گردش‌کار منتشر شد.",
        )

    def has_delete_permission(self, request, obj=None):
        return False  # campaigns and executions keep their workflow; the API soft-deletes


class NodeInline(NoWritesMixin, WorkspaceScopedInline, admin.TabularInline):
    model = WorkflowNode
    fields = ("node_key", "type", "subtype", "name", "is_enabled", "consumes_budget")
    readonly_fields = fields
    extra = 0
    can_delete = False
    show_change_link = True


@admin.register(WorkflowVersion)
class WorkflowVersionAdmin(ReadOnlyAdmin):
    list_display = ("workflow", "version_number", "status", "workspace", "published_at")
    list_filter = ("status", "workspace")
    search_fields = ("workflow__name", "note")
    inlines = [NodeInline]


@admin.register(WorkflowNode)
class WorkflowNodeAdmin(ReadOnlyAdmin):
    list_display = ("node_key", "type", "subtype", "version", "is_enabled", "consumes_budget")
    list_filter = ("type", "subtype", "workspace")
    search_fields = ("node_key", "name")


@admin.register(WorkflowEdge)
class WorkflowEdgeAdmin(ReadOnlyAdmin):
    list_display = ("version", "from_node", "port", "to_node")
    list_filter = ("port", "workspace")
    search_fields = ("from_node__node_key", "to_node__node_key")


@admin.register(WorkflowTextChange)
class WorkflowTextChangeAdmin(ReadOnlyAdmin):
    """Audit of message text edits in drafts (written by the graph save, never edited)."""

    list_display = ("workflow", "version", "node_key", "user", "changed_jalali")
    list_filter = ("workspace",)
    search_fields = ("workflow__name", "node_key", "old_text", "new_text")
    changed_jalali = jalali_column("changed_at", "زمان")


@admin.register(CampaignJourney)
class CampaignJourneyAdmin(ReadOnlyAdmin):
    """A campaign's workflow and pinned version (set by the journey campaign service; a version migration pins
    the newer version)."""

    list_display = ("campaign", "workflow", "workflow_version", "workspace")
    list_filter = ("workspace",)
    search_fields = ("campaign__name", "workflow__name")


@admin.register(VersionMigration)
class VersionMigrationAdmin(ReadOnlyAdmin):
    """Live executions moved to a newer version (written by the migration service and its job, never edited)."""

    list_display = ("workflow", "from_version", "to_version", "kind", "status", "processed", "total", "created_by")
    list_filter = ("workspace", "status", "kind")
    search_fields = ("workflow__name",)


@admin.register(WorkflowTemplate)
class WorkflowTemplateAdmin(WorkspaceScopedAdmin):
    manage_perm = Perm.MANAGE_WORKFLOWS
    list_display = ("name", "workspace", "created_jalali", "deleted_at")
    list_filter = ("workspace",)
    search_fields = ("name", "description")


@admin.register(AutomationSettings)
class AutomationSettingsAdmin(WorkspaceScopedAdmin):
    list_display = ("workspace", "enabled", "timezone", "global_daily_limit")
    list_filter = ("enabled",)
    search_fields = ("workspace__name",)


@admin.register(Execution)
class ExecutionAdmin(ReadOnlyAdmin):
    list_display = (
        "id",
        "campaign",
        "subject_id",
        "status",
        "current_node",
        "cycle",
        "next_run_at_jalali",
        "end_reason",
    )
    list_filter = ("status", "workspace", "end_reason")
    search_fields = ("=id", "=subject_id", "campaign__name")
    next_run_at_jalali = jalali_column("next_run_at", "اجرای بعدی")


@admin.register(ExecutionEvent)
class ExecutionEventAdmin(ReadOnlyAdmin):
    ordering = ("-id",)  # newest first through the primary key of each month (no index leads with the time alone)
    list_display = ("execution", "type", "from_status", "to_status", "occurred_jalali", "actor")
    list_filter = ("type", "workspace")
    search_fields = ("=execution__id", "message")
    occurred_jalali = jalali_column("occurred_at", "زمان")


@admin.register(DailyCounter)
class DailyCounterAdmin(ReadOnlyAdmin):
    list_display = ("scope", "scope_id", "channel", "day", "used", "workspace")
    list_filter = ("scope", "channel", "workspace")
    search_fields = ("=scope_id",)


@admin.register(JourneyCount)
class JourneyCountAdmin(ReadOnlyAdmin):
    """Kept by the database with every execution and event write; ``manage.py journey_counts`` recounts."""

    workspace_lookup = "workspace"  # a plain number, no reference (journey_counts)
    list_display = ("campaign_id", "key", "slot", "n", "workspace_id")
    list_filter = ("key",)
    search_fields = ("=campaign_id",)


@admin.register(EnrollmentBatch)
class EnrollmentBatchAdmin(ReadOnlyAdmin):
    """Enrollment reviews (preview, decisions and commit go through the API / pages)."""

    list_display = ("id", "campaign", "workspace", "status", "source", "total", "processed", "attempts", "created_at")
    list_filter = ("workspace", "status", "source")
    search_fields = ("campaign__name",)


@admin.register(EnrollmentItem)
class EnrollmentItemAdmin(ReadOnlyAdmin):
    """The subjects of an enrollment review with their class, decision and outcome."""

    list_display = ("batch", "subject_id", "klass", "decision", "outcome")
    list_filter = ("workspace", "klass", "outcome")
    search_fields = ("=batch__id", "=subject_id")


@admin.register(AutoEnrollRule)
class AutoEnrollRuleAdmin(ReadOnlyAdmin):
    """Auto-enroll rules and their last check (edited through the campaign API)."""

    list_display = ("campaign", "workspace", "enabled", "cursor", "daily_cap", "last_check_at")
    list_filter = ("workspace", "enabled")
    search_fields = ("campaign__name",)
