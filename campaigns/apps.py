from django.apps import AppConfig
from django.db.models.signals import post_migrate


class CampaignsConfig(AppConfig):
    """Targets and lists, campaigns and their lifecycle (workspaces and members are the kernel's:
    campaigns.platform; groups and chains an app of their own on top: campaigns.chains)."""

    name = "campaigns"
    verbose_name = "کمپین‌ها و مخاطبان"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # Every admin module is loaded by now (django.contrib.admin comes first): no page of another
        # app escapes the workspace rules of the admin.
        from django.contrib import admin

        import campaigns.platform.checks  # registers the deploy checks
        from campaigns.platform.list_sizes import install_after_migrate

        post_migrate.connect(install_after_migrate, sender=self, dispatch_uid="campaigns_list_size_triggers")
        import campaigns.receivers  # noqa: F401  (cross-workspace guards on many-to-many writes)
        from campaigns.platform.admin import lock_down_admin_site, show_admin_dates_in_jalali
        from campaigns.platform.field_labels import field_labels_apply

        lock_down_admin_site(admin.site)
        show_admin_dates_in_jalali()
        field_labels_apply()

        from campaigns.approval_selectors import FOUR_EYES_SETTING
        from campaigns.calendar import CALENDAR_SETTING, JALALI
        from campaigns.platform.registry import register_workspace_defaults

        # New workspaces (every path: workspace_create, the admin, the ORM) approve with four eyes and count
        # schedule months in the Jalali calendar; existing rows carry their own values explicitly.
        register_workspace_defaults("approval", {FOUR_EYES_SETTING: True, CALENDAR_SETTING: JALALI})

        from campaigns.notifications.views import target_activities_panel
        from campaigns.platform.registry import register_target_panel

        register_target_panel("followups", order=5, render=target_activities_panel)

        from campaigns import navigation
        from campaigns.platform.navigation import register_menu

        register_menu(*navigation.MENU)

        from campaigns.events import STATUS_CHANGED_EVENT, CampaignStatusChangedData, WebhookTestData
        from campaigns.platform.webhooks import register_webhook_event

        register_webhook_event("webhook.test", "آزمایش وب‌هوک (از صفحه وب‌هوک‌ها)", WebhookTestData)
        register_webhook_event(STATUS_CHANGED_EVENT, "تغییر وضعیت کمپین", CampaignStatusChangedData)
