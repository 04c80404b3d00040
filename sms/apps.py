"""The SMS channel: providers, gateway, attempts, blacklist, webhooks (journeys.md)."""

from django.apps import AppConfig

from campaigns.platform.channels import ApiArea, Channel


class SmsConfig(AppConfig):
    """SMS channel plugged into the engine (actions registered by key)."""

    name = "sms"
    verbose_name = "پیامک"
    default_auto_field = "django.db.models.BigAutoField"
    settings_module = "sms.settings"  # its own settings (campaigns/platform/app_settings.py)
    channel = Channel(
        name="sms",
        label="پیامک",
        queues=("sms",),
        routes={"sms.*": "sms"},
        beat_schedule="sms.schedule.BEAT_SCHEDULE",
        urls="sms.urls",
        api_urls="sms.api.urls",
        mounts=(("api/webhooks/", "sms.webhook_urls"),),
        api_area=ApiArea(
            "SMS", "قالب‌ها، فهرست سیاه، تنظیمات و پیش‌نمایش پیامک — SMS templates, blacklist, settings", "sms"
        ),
        chain_action="send_sms",
        # The blacklist's reason keeps its name beside the launch check's (``LaunchReasonEnum``); a reply's outcome
        # (the inbox and the conversation) beside an import row's.
        enum_names={
            "ReasonEnum": "sms.choices.BlacklistReason",
            "SmsLineKindEnum": "sms.choices.LineKind",
            "InboundOutcomeEnum": "sms.choices.InboundOutcome",
            # a send's status: the SMS log's attempts and a target's timeline; the registered provider kinds
            "SmsAttemptOutputStatusEnum": "sms.choices.AttemptStatus",
            "ProviderEnum": "sms.providers.provider_choices",
        },
    )

    def ready(self) -> None:
        from campaigns.platform.registry import register_demo
        from sms.action import register
        from sms.demo import sms_demo
        from sms.providers import register_builtin_providers
        from sms.workflow_templates import register as register_workflow_templates

        register_builtin_providers()
        register()
        from sms.inbound.facts import register as register_reply_facts

        register_reply_facts()
        from sms.webhook_events import register as register_webhook_events

        register_webhook_events()
        register_workflow_templates()
        from sms.receivers import connect

        connect()
        register_demo("sms", order=10, contribute=sms_demo)

        from campaigns.platform.registry import register_target_panel
        from sms.inbound.target_panel import render_conversation_panel

        register_target_panel("sms", order=8, render=render_conversation_panel)

        from campaigns.platform.navigation import register_menu
        from sms.navigation import MENU

        register_menu(*MENU)
