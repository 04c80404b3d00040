"""Admin for chain runs: runs, frozen audiences, run→execution links and conversion events (read-only).

Everything here is written by the run services (scheduler, build, dispatch,
conversions); the admin shows it limited to the user's workspaces. Imported
from ``campaigns/chains/admin.py``.
"""

from django.contrib import admin

from campaigns.chains.run_models import (
    CampaignRun,
    ConversionEvent,
    RunAudienceMember,
    RunAudienceSnapshot,
    RunExecution,
)
from campaigns.platform.admin import ReadOnlyAdmin


@admin.register(CampaignRun)
class CampaignRunAdmin(ReadOnlyAdmin):
    list_display = (
        "id",
        "campaign",
        "workspace",
        "run_type",
        "status",
        "period_key",
        "source_run",
        "skip_reason",
        "audience_count",
        "created_jalali",
    )
    list_filter = ("status", "run_type", "skip_reason", "workspace")
    search_fields = ("campaign__name",)
    list_select_related = ("campaign", "workspace")
    raw_id_fields = ("campaign", "root", "package", "source_run", "target_snapshot")
    exclude = ("lease_token",)


@admin.register(RunAudienceSnapshot)
class RunAudienceSnapshotAdmin(ReadOnlyAdmin):
    list_display = ("id", "run", "workspace", "attempt_no", "status", "member_count", "control_count", "frozen_at")
    list_filter = ("status", "workspace")
    raw_id_fields = ("run",)


@admin.register(RunAudienceMember)
class RunAudienceMemberAdmin(ReadOnlyAdmin):
    workspace_lookup = "snapshot__workspace"
    list_display = ("id", "snapshot", "target", "is_control")
    list_filter = ("is_control",)
    raw_id_fields = ("snapshot", "target")


@admin.register(RunExecution)
class RunExecutionAdmin(ReadOnlyAdmin):
    list_display = ("key", "run", "workspace", "execution_id", "refused_reason", "created_at")
    list_filter = ("workspace",)
    search_fields = ("key",)
    raw_id_fields = ("run", "target")


@admin.register(ConversionEvent)
class ConversionEventAdmin(ReadOnlyAdmin):
    list_display = ("name", "target", "workspace", "source", "occurred_at", "external_id")
    list_filter = ("source", "workspace")
    search_fields = ("name", "external_id")
    raw_id_fields = ("target",)
