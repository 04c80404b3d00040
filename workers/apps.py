from django.apps import AppConfig

from campaigns.platform.channels import ApiArea, Channel


class WorkersConfig(AppConfig):
    """Browser-task campaigns run by Playwright workers."""

    name = "workers"
    verbose_name = "وظایف مرورگر"
    default_auto_field = "django.db.models.BigAutoField"
    settings_module = "workers.settings"  # its own settings (campaigns/platform/app_settings.py)
    channel = Channel(
        name="browser",
        label="وظایف مرورگر",
        queues=("browser",),
        routes={"workers.browser.*": "browser"},
        beat_schedule="workers.schedule.BEAT_SCHEDULE",
        urls="workers.urls",
        api_urls="workers.api.urls",
        api_area=ApiArea(
            "Browser", "حساب‌ها، پراکسی‌ها، پلتفرم‌ها و کارهای مرورگر — browser accounts, proxies, tasks", "browser"
        ),
        enum_names={
            "BrowserCampaignKindEnum": ["browser"],
            "BrowserActionTypeEnum": "workers.choices.ActionType",
            "BrowserTaskStatusEnum": "workers.choices.TaskStatus",
            "BrowserPlatformStatusEnum": "workers.choices.PlatformStatus",
            "BrowserSessionStatusEnum": "workers.choices.SessionStatus",
            "ProxyProtocolEnum": "workers.choices.ProxyProtocol",
        },
        history_tables={"workers_browserevent": "created_at"},
        campaign_kind=("browser", "وظایف مرورگر"),
    )

    def ready(self) -> None:
        from campaigns.platform.permissions import Perm
        from campaigns.platform.registry import register_campaign_kind, register_demo
        from workers.api.serializers import BrowserCampaignInput
        from workers.demo import browser_demo
        from workers.services.campaigns import browser_campaign_create
        from workers.services.lifecycle import BROWSER_EFFECTS
        from workers.steps import register_builtin_steps

        register_builtin_steps()

        from campaigns.platform.webhooks import register_webhook_event
        from workers import events

        register_webhook_event(events.TASK_FAILED_EVENT, "شکست وظیفه مرورگر", events.BrowserTaskFailedData)
        register_webhook_event(events.TASK_COMPLETED_EVENT, "انجام وظیفه مرورگر", events.BrowserTaskCompletedData)

        register_campaign_kind(
            self.channel.campaign_kind[0],
            input_serializer=BrowserCampaignInput,
            create=browser_campaign_create,
            permission=Perm.MANAGE_CAMPAIGNS,
            effects=BROWSER_EFFECTS,
            page="browser-campaign",
        )
        register_demo("browser", order=30, contribute=browser_demo)

        from campaigns.platform.navigation import register_menu
        from workers.navigation import MENU

        register_menu(*MENU)
