from django.apps import AppConfig


class WorkersConfig(AppConfig):
    """Browser-task campaigns run by Playwright workers."""

    name = "workers"
    verbose_name = "وظایف مرورگر"
    default_auto_field = "django.db.models.BigAutoField"
