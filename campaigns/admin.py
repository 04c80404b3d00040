"""Django admin: the staff's first UI (Persian, Jalali dates)."""

from django.contrib import admin

from .admin_base import JalaliAdmin, jalali_column
from .forms import TargetAdminForm
from .models import (
    Campaign,
    CampaignEvent,
    Membership,
    PlatformHeartbeat,
    Target,
    TargetImport,
    TargetImportRow,
    TargetList,
    Workspace,
)


class MembershipInline(admin.TabularInline):
    model = Membership
    extra = 0
    autocomplete_fields = ("user",)


@admin.register(Workspace)
class WorkspaceAdmin(JalaliAdmin):
    list_display = ("name", "slug", "time_zone", "created_jalali")
    search_fields = ("name", "slug")
    inlines = [MembershipInline]


@admin.register(Membership)
class MembershipAdmin(JalaliAdmin):
    list_display = ("user", "workspace", "role", "is_default", "created_jalali")
    list_filter = ("role", "workspace")
    search_fields = ("user__username", "workspace__name")
    autocomplete_fields = ("user", "workspace")


@admin.register(TargetList)
class TargetListAdmin(JalaliAdmin):
    list_display = ("name", "workspace", "created_jalali")
    list_filter = ("workspace",)
    search_fields = ("name",)


@admin.register(Target)
class TargetAdmin(JalaliAdmin):
    form = TargetAdminForm
    list_display = ("name", "mobile", "landline", "status", "owner", "province", "city", "workspace", "created_jalali")
    list_filter = ("status", "workspace", "lists", "province")
    search_fields = ("name", "first_name", "last_name", "mobile", "landline", "city")
    autocomplete_fields = ("owner", "lists")
    readonly_fields = ("created_at", "updated_at", "deleted_at")

    def get_queryset(self, request):
        return super().get_queryset(request).select_related("owner", "workspace")


class CampaignEventInline(admin.TabularInline):
    model = CampaignEvent
    extra = 0
    can_delete = False
    readonly_fields = ("type", "from_status", "to_status", "actor", "data", "created_at")

    def has_add_permission(self, request, obj=None):
        return False


@admin.register(Campaign)
class CampaignAdmin(JalaliAdmin):
    list_display = ("name", "kind", "status", "workspace", "created_by", "created_jalali")
    list_filter = ("kind", "status", "workspace")
    search_fields = ("name", "description")
    # status changes only through services (FSM + conditional UPDATE)
    readonly_fields = ("status", "revision", "created_at", "updated_at")
    inlines = [CampaignEventInline]


@admin.register(CampaignEvent)
class CampaignEventAdmin(JalaliAdmin):
    list_display = ("campaign", "type", "from_status", "to_status", "actor", "at_jalali")
    list_filter = ("type",)
    at_jalali = jalali_column("created_at", "زمان")

    def has_change_permission(self, request, obj=None):
        return False  # append-only


class TargetImportRowInline(admin.TabularInline):
    model = TargetImportRow
    extra = 0
    can_delete = False
    readonly_fields = ("row_number", "outcome", "reason", "target")

    def has_add_permission(self, request, obj=None):
        return False


@admin.register(TargetImport)
class TargetImportAdmin(JalaliAdmin):
    list_display = (
        "file_name",
        "workspace",
        "status",
        "processed_rows",
        "total_rows",
        "created_count",
        "updated_count",
        "duplicate_count",
        "invalid_count",
        "created_jalali",
    )
    list_filter = ("status", "workspace")
    search_fields = ("file_name",)
    readonly_fields = [f.name for f in TargetImport._meta.fields if f.name != "content"]
    inlines = [TargetImportRowInline]


@admin.register(PlatformHeartbeat)
class PlatformHeartbeatAdmin(admin.ModelAdmin):
    list_display = ("name", "beat_jalali")
    beat_jalali = jalali_column("beat_at", "آخرین ضربان")


@admin.register(TargetImportRow)
class TargetImportRowAdmin(admin.ModelAdmin):
    list_display = ("target_import", "row_number", "outcome", "reason")
    list_filter = ("outcome",)
    search_fields = ("reason",)

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False  # the per-row report is history


from .chains import admin as _chains_admin  # noqa: E402,F401  (groups, chains, packages)
