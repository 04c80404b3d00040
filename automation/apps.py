from django.apps import AppConfig


class AutomationConfig(AppConfig):
    """Workflow engine: graphs, versions, executions, scheduler, guards, retries."""

    name = "automation"
    verbose_name = "اتوماسیون"
    default_auto_field = "django.db.models.BigAutoField"
