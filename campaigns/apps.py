from django.apps import AppConfig


class CampaignsConfig(AppConfig):
    """Workspaces, members and roles, targets and lists, campaigns."""

    name = "campaigns"
    verbose_name = "کمپین‌ها و مخاطبان"
    default_auto_field = "django.db.models.BigAutoField"
