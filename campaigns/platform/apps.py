from django.apps import AppConfig


class PlatformConfig(AppConfig):
    """The kernel as an app of its own: workspaces, members and roles, API keys, the job heartbeat.

    Its models keep the tables they were created with (``campaigns_workspace`` …); the product
    (``campaigns`` and the channel apps) points at them and never the other way round.
    """

    name = "campaigns.platform"
    label = "platform"
    verbose_name = "فضاهای کاری و دسترسی"
    default_auto_field = "django.db.models.BigAutoField"
