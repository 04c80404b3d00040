"""The SMS channel: providers, gateway, attempts, blacklist, webhooks (journeys.md)."""

from django.apps import AppConfig


class SmsConfig(AppConfig):
    """SMS channel plugged into the engine (actions registered by key)."""

    name = "sms"
    verbose_name = "پیامک"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from sms.action import register

        register()
