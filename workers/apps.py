from django.apps import AppConfig


class WorkersConfig(AppConfig):
    """Browser-task campaigns run by Playwright workers."""

    name = "workers"
    verbose_name = "وظایف مرورگر"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from campaigns.platform.permissions import Perm
        from campaigns.platform.registry import register_campaign_kind, register_demo
        from workers.api.serializers import BrowserCampaignInput
        from workers.demo import browser_demo
        from workers.services.campaigns import browser_campaign_create
        from workers.services.lifecycle import BROWSER_EFFECTS
        from workers.steps import register_builtin_steps

        register_builtin_steps()

        register_campaign_kind(
            "browser",
            input_serializer=BrowserCampaignInput,
            create=browser_campaign_create,
            permission=Perm.MANAGE_CAMPAIGNS,
            effects=BROWSER_EFFECTS,
        )
        register_demo("browser", order=30, contribute=browser_demo)

        from campaigns.platform.navigation import register_menu
        from workers.navigation import MENU

        register_menu(*MENU)
