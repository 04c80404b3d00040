"""Django admin: the staff's first UI (Persian, Jalali dates)."""

import zoneinfo

from django import forms
from django.contrib import admin, messages

from campaigns.errors import TargetListInUse
from campaigns.filters import TargetFilter
from campaigns.forms import TargetAdminForm
from campaigns.models import (
    ApiToken,
    Campaign,
    CampaignEvent,
    Membership,
    PlatformHeartbeat,
    Target,
    TargetImport,
    TargetImportRow,
    TargetList,
    TargetListSize,
    Workspace,
    WorkspaceSettingsEvent,
)
from campaigns.platform.admin import (
    AppendOnlyMixin,
    NoWritesMixin,
    ReadOnlyAdmin,
    SuperuserOnlyMixin,
    WorkspaceScopedAdmin,
    WorkspaceScopedInline,
    admin_actor,
    admin_workspace_ids,
    jalali_column,
    phone_column,
    run_service_action,
)
from campaigns.platform.models import IdempotencyKey, WebhookDelivery, WebhookEndpoint
from campaigns.platform.permissions import Perm
from campaigns.platform.tokens import api_tokens_granted_revoke
from campaigns.selectors import target_list_campaigns
from campaigns.services.workspaces import workspace_time_zone_set


class MembershipInline(WorkspaceScopedInline, admin.TabularInline):
    model = Membership
    extra = 0
    autocomplete_fields = ("user",)

    def _may_manage(self, request, obj) -> bool:
        ids = admin_workspace_ids(request, Perm.MANAGE_WORKSPACE)
        return ids is None or (obj is not None and obj.pk in ids)

    def has_add_permission(self, request, obj=None):
        return super().has_add_permission(request, obj) and self._may_manage(request, obj)

    def has_change_permission(self, request, obj=None):
        return super().has_change_permission(request, obj) and self._may_manage(request, obj)

    def has_delete_permission(self, request, obj=None):
        return super().has_delete_permission(request, obj) and self._may_manage(request, obj)


class WorkspaceAdminForm(forms.ModelForm):
    def clean_time_zone(self):
        value = self.cleaned_data["time_zone"]
        try:
            zoneinfo.ZoneInfo(value)
        except (zoneinfo.ZoneInfoNotFoundError, ValueError):
            raise forms.ValidationError("منطقه زمانی نامعتبر است.") from None
        return value


@admin.register(Workspace)
class WorkspaceAdmin(WorkspaceScopedAdmin):
    """``settings`` is shown, never edited here: the settings page changes it through the services, which bind
    the approval rule to each submission and record every change (``WorkspaceSettingsEvent``)."""

    list_display = ("name", "slug", "time_zone", "created_jalali")
    search_fields = ("name", "slug")
    readonly_fields = ("settings",)
    form = WorkspaceAdminForm
    inlines = [MembershipInline]

    def save_model(self, request, obj, form, change):
        if change and "time_zone" in form.changed_data:  # recorded like a change on the settings page
            workspace_time_zone_set(actor=admin_actor(request, obj), time_zone=obj.time_zone)
        super().save_model(request, obj, form, change)

    def has_add_permission(self, request):
        return request.user.is_superuser and super().has_add_permission(request)  # new tenants: superusers

    def has_delete_permission(self, request, obj=None):
        return request.user.is_superuser and super().has_delete_permission(request, obj)


@admin.register(Membership)
class MembershipAdmin(WorkspaceScopedAdmin):
    """Members of the workspaces the user administers (a member is added only where you are owner/admin)."""

    list_display = ("user", "workspace", "role", "is_default", "created_jalali")
    list_filter = ("role", "workspace")
    search_fields = ("user__username", "workspace__name")
    autocomplete_fields = ("user", "workspace")


@admin.register(ApiToken)
class ApiTokenAdmin(SuperuserOnlyMixin, WorkspaceScopedAdmin):
    """Keys are shown once when created (API); the admin never shows a key or its hash, only revokes."""

    list_display = ("prefix", "name", "user", "created_at", "expires_at", "last_used_at", "revoked_at")
    list_filter = ("revoked_at",)
    search_fields = ("prefix", "name", "user__username")
    fields = ("prefix", "name", "user", "created_at", "expires_at", "last_used_at", "granted_by", "revoked_at")
    fields += ("revoked_with",)
    readonly_fields = ("prefix", "name", "user", "created_at", "expires_at", "last_used_at", "granted_by")
    readonly_fields += ("revoked_with",)

    def has_add_permission(self, request):
        return False

    def save_model(self, request, obj, form, change):
        super().save_model(request, obj, form, change)
        if obj.revoked_at is not None and "revoked_at" in form.changed_data:
            api_tokens_granted_revoke(root=obj)  # as the page and the API: the keys made with it go too


@admin.register(TargetList)
class TargetListAdmin(WorkspaceScopedAdmin):
    manage_perm = Perm.MANAGE_CAMPAIGNS  # as the API's rename and delete

    list_display = ("name", "workspace", "created_jalali")
    list_filter = ("workspace",)
    search_fields = ("name",)

    def get_deleted_objects(self, objs, request):
        """A list an open campaign takes its audience from is protected: the delete page names the campaigns
        and offers no confirmation (single and bulk delete alike)."""
        deleted, model_count, perms_needed, protected = super().get_deleted_objects(objs, request)
        # A list's member counter goes with it: no one needs a permission on the counter to delete a list.
        perms_needed = {p for p in perms_needed if p != TargetListSize._meta.verbose_name}
        for target_list in objs:
            users = target_list_campaigns(workspace=target_list.workspace, list_id=target_list.pk)
            if users:
                messages.error(request, f"«{target_list.name}»: {TargetListInUse.naming(users).message}")
                protected = [*protected, *(f"کمپین «{c.name}» (مخاطبانش را از این فهرست می‌گیرد)" for c in users)]
        return deleted, model_count, perms_needed, protected


@admin.register(Target)
class TargetAdmin(WorkspaceScopedAdmin):
    manage_perm = Perm.MANAGE_TARGETS
    form = TargetAdminForm
    list_display = (
        "name",
        "mobile_phone",
        "landline_phone",
        "status",
        "owner",
        "province",
        "city",
        "workspace",
        "created_jalali",
    )
    # No province filter: its choices are a DISTINCT over every target (the targets page filters by province).
    list_filter = ("status", "workspace", "lists")
    search_fields = ("name",)  # the box; what it matches is the staff search (get_search_results)
    mobile_phone = phone_column("mobile", "موبایل")
    landline_phone = phone_column("landline", "تلفن ثابت")
    autocomplete_fields = ("owner", "lists")
    readonly_fields = ("created_at", "updated_at", "deleted_at")

    def get_queryset(self, request):
        return super().get_queryset(request).select_related("owner", "workspace")

    def get_search_results(self, request, queryset, search_term):
        """The staff search (``TargetFilter.search``): names in any spelling and numbers in any notation, through the
        folded column and its trigram index — Django's ``icontains`` over four columns read every target."""
        if not search_term.strip():
            return queryset, False
        return TargetFilter().search(queryset, "q", search_term), False


class CampaignEventInline(NoWritesMixin, WorkspaceScopedInline, admin.TabularInline):
    model = CampaignEvent
    extra = 0
    can_delete = False
    readonly_fields = ("type", "from_status", "to_status", "actor", "data", "created_at")


# Guarded fields of a campaign change only through services: status (FSM + conditional UPDATE),
# counters and who/when stamps (a campaign's chain fields are the chains app's: ``chains.ChainNode``).
CAMPAIGN_GUARDED_FIELDS = (
    "kind",
    "status",
    "revision",
    "paused_at",
    "paused_by",
    "created_by",
    "deleted_at",
    "created_at",
    "updated_at",
)


@admin.register(Campaign)
class CampaignAdmin(WorkspaceScopedAdmin):
    manage_perm = Perm.MANAGE_CAMPAIGNS
    list_display = ("name", "kind", "status", "workspace", "created_by", "created_jalali")
    list_filter = ("kind", "status", "workspace")
    search_fields = ("name", "description")
    readonly_fields = CAMPAIGN_GUARDED_FIELDS
    inlines = [CampaignEventInline]
    actions = ["start_campaigns", "pause_campaigns", "resume_campaigns"]

    def has_add_permission(self, request):
        return False  # created through the API/services (pins the published version, chain rules)

    def _control(self, request, queryset, action: str, done: str) -> None:
        """The campaign kind's own service (a journey checks its SMS channel first), else the generic one."""
        from campaigns.platform.registry import campaign_kind_handler
        from campaigns.services.campaigns import campaign_transition

        def call(actor, campaign):
            handler = campaign_kind_handler(campaign.kind)
            if handler is not None and handler.control is not None:
                return handler.control(actor=actor, campaign_id=campaign.id, action=action)
            return campaign_transition(actor=actor, campaign_id=campaign.id, transition=action)

        run_service_action(self, request, queryset, call, done)

    @admin.action(description="شروع کمپین", permissions=["change"])
    def start_campaigns(self, request, queryset):
        self._control(request, queryset, "activate", "{count} کمپین شروع شد.")

    @admin.action(description="توقف موقت کمپین", permissions=["change"])
    def pause_campaigns(self, request, queryset):
        self._control(request, queryset, "pause", "{count} کمپین متوقف شد.")

    @admin.action(description="ادامه کمپین", permissions=["change"])
    def resume_campaigns(self, request, queryset):
        self._control(request, queryset, "resume", "{count} کمپین ادامه یافت.")


@admin.register(CampaignEvent)
class CampaignEventAdmin(ReadOnlyAdmin):
    list_display = ("campaign", "type", "from_status", "to_status", "actor", "at_jalali")
    list_filter = ("type",)
    at_jalali = jalali_column("created_at", "زمان")


class TargetImportRowInline(WorkspaceScopedInline, admin.TabularInline):
    model = TargetImportRow
    extra = 0
    can_delete = False
    readonly_fields = ("row_number", "outcome", "reason", "target")

    def has_add_permission(self, request, obj=None):
        return False


@admin.register(TargetImport)
class TargetImportAdmin(AppendOnlyMixin, WorkspaceScopedAdmin):
    manage_perm = Perm.MANAGE_TARGETS
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

    def has_add_permission(self, request):
        return False  # uploads go through the import page (size and format checks, background task)


@admin.register(PlatformHeartbeat)
class PlatformHeartbeatAdmin(SuperuserOnlyMixin, admin.ModelAdmin):
    list_display = ("name", "beat_jalali")
    beat_jalali = jalali_column("beat_at", "آخرین ضربان")


@admin.register(IdempotencyKey)
class IdempotencyKeyAdmin(SuperuserOnlyMixin, ReadOnlyAdmin):
    """The kept first answers of POSTs sent with an Idempotency-Key (24 hours; campaigns/platform/idempotency.py)."""

    list_display = ("key", "path", "status_code", "workspace", "created_jalali")
    list_filter = ("workspace",)
    # not the kept answer: it may hold a secret shown once (a new API key, a webhook's secret)
    fields = ("key", "path", "status_code", "workspace", "user", "fingerprint", "created_at")
    created_jalali = jalali_column("created_at", "زمان")


@admin.register(WebhookEndpoint)
class WebhookEndpointAdmin(SuperuserOnlyMixin, ReadOnlyAdmin):
    """Outbound webhooks (made on the webhooks page or the API; the secrets are never shown here)."""

    list_display = ("url", "workspace", "is_active", "created_jalali")
    list_filter = ("is_active", "workspace")
    fields = ("url", "description", "events", "is_active", "workspace", "previous_secret_until")
    created_jalali = jalali_column("created_at", "ایجاد")


@admin.register(WebhookDelivery)
class WebhookDeliveryAdmin(SuperuserOnlyMixin, ReadOnlyAdmin):
    """The webhook outbox and delivery log (campaigns/platform/webhooks.py)."""

    list_display = ("event_type", "endpoint", "status", "attempts", "last_status_code", "created_jalali")
    list_filter = ("status", "workspace")
    created_jalali = jalali_column("created_at", "ایجاد")


@admin.register(TargetListSize)
class TargetListSizeAdmin(ReadOnlyAdmin):
    """Kept by the database with every membership write; ``manage.py target_list_sizes`` recounts."""

    list_display = ("target_list", "members", "workspace")
    list_filter = ("workspace",)
    search_fields = ("target_list__name",)


@admin.register(WorkspaceSettingsEvent)
class WorkspaceSettingsEventAdmin(ReadOnlyAdmin):
    """Who changed which workspace setting, before and after (written by the workspace services)."""

    list_display = ("workspace", "type", "actor", "data", "at_jalali")
    list_filter = ("type",)
    at_jalali = jalali_column("created_at", "زمان")


@admin.register(TargetImportRow)
class TargetImportRowAdmin(ReadOnlyAdmin):
    """The per-row report is history."""

    list_display = ("target_import", "row_number", "outcome", "reason")
    list_filter = ("outcome",)
    search_fields = ("reason",)


from campaigns.notifications import admin as _notifications_admin  # noqa: E402,F401  (notifications, activities)
