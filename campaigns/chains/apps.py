from django.apps import AppConfig


class ChainsConfig(AppConfig):
    """Groups, follow-up chains, chain approval packages, runs and conversions: an app on the campaign core.

    Its models keep the tables they were created with (``campaigns_campaigngroup`` …). The core
    (``campaigns``) imports nothing of it: chains plug into the core through the lifecycle policy, the menu,
    a chain member's page, the campaign list's group filter and the signals registered below.
    """

    name = "campaigns.chains"
    label = "chains"
    verbose_name = "گروه‌ها و زنجیره‌های کمپین"
    default_auto_field = "django.db.models.BigAutoField"
    settings_module = "campaigns.chains.settings"  # its own settings (campaigns/platform/app_settings.py)

    def ready(self) -> None:
        # The admin (campaigns.chains.admin) and the Celery tasks (campaigns.chains.tasks) are found by
        # Django's and Celery's autodiscovery of every installed app.
        from campaigns.chains import navigation
        from campaigns.chains.filters import GroupFilter
        from campaigns.chains.guards import chain_edit_policy, chain_transition_policy
        from campaigns.chains.runs.choices import CHAIN_RUN_REFUSED
        from campaigns.chains.runs.receivers import connect as connect_chain_runs
        from campaigns.chains.runs.selectors import target_left_out
        from campaigns.chains.selectors import package_launch_plan
        from campaigns.filters import register_campaign_filter
        from campaigns.platform.navigation import register_menu
        from campaigns.platform.registry import (
            register_campaign_page,
            register_package_plan,
            register_target_left_out,
        )
        from campaigns.services.lifecycle import register_campaign_policy

        connect_chain_runs()
        from campaigns.chains.runs.webhook_events import register as register_webhook_events

        register_webhook_events()
        register_campaign_policy("chains", transition=chain_transition_policy, edit=chain_edit_policy)
        register_menu(*navigation.MENU)
        register_campaign_page("chains", navigation.chain_campaign_page)
        register_package_plan(plan=package_launch_plan)  # what the engine's package launch check reads
        register_campaign_filter("group", GroupFilter(label="گروه"))  # ALL | NONE | <id>
        # a run's refusals on the target's timeline
        register_target_left_out("chains", read=target_left_out, types=(CHAIN_RUN_REFUSED,))
