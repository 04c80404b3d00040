from django.apps import AppConfig


class WorkersConfig(AppConfig):
    """Browser-task campaigns run by Playwright workers."""

    name = "workers"
    verbose_name = "وظایف مرورگر"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from campaigns.platform.permissions import Perm
        from campaigns.platform.registry import register_campaign_kind
        from workers.api.serializers import BrowserCampaignInput
        from workers.services.campaigns import browser_campaign_create

        register_campaign_kind(
            "browser",
            input_serializer=BrowserCampaignInput,
            create=browser_campaign_create,
            permission=Perm.MANAGE_CAMPAIGNS,
        )
