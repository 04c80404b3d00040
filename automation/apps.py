from django.apps import AppConfig
from django.db.models.signals import post_migrate


class AutomationConfig(AppConfig):
    """Workflow engine: graphs, versions, executions, scheduler, guards, retries."""

    name = "automation"
    verbose_name = "اتوماسیون"
    default_auto_field = "django.db.models.BigAutoField"
    settings_module = "automation.settings"  # its own settings (campaigns/platform/app_settings.py)

    def ready(self) -> None:
        from automation.journey_counts import install_after_migrate

        post_migrate.connect(install_after_migrate, sender=self, dispatch_uid="automation_journey_count_triggers")
        from automation.api.serializers import JourneyCampaignInput
        from automation.engine.campaign_effects import JOURNEY_EFFECTS
        from automation.engine.conditions import register_builtin_operators
        from automation.engine.guards import register_builtin_guards
        from automation.engine.nodes import register_builtin_node_types
        from automation.engine.retry import register_builtin_strategies
        from automation.engine.variables import register_builtin_variables, unknown_variables
        from automation.receivers import cancel_executions_of_deleted_target
        from automation.selectors import auto_enroll_list_campaign_ids, campaign_journey_ref, workflow_count
        from automation.services.campaigns import journey_campaign_create, journey_campaign_transition
        from automation.services.chain_runs import (
            chain_member_migrations,
            chain_run_enroll,
            chain_run_outcomes,
            chain_run_pending_reports,
            send_window_error,
        )
        from campaigns.platform.registry import (
            register_campaign_journey,
            register_campaign_kind,
            register_dashboard_count,
            register_run_engine,
            register_target_list_users,
        )
        from campaigns.signals import target_soft_deleted

        register_builtin_node_types()
        register_builtin_operators()
        register_builtin_variables()
        register_builtin_strategies()
        register_builtin_guards()
        from automation.actions.followup import register as register_followup

        register_followup()
        from automation.webhook_events import register as register_webhook_events

        register_webhook_events()
        register_campaign_kind(
            "journey",
            input_serializer=JourneyCampaignInput,
            create=journey_campaign_create,
            control=journey_campaign_transition,
            effects=JOURNEY_EFFECTS,
            page="journey-campaign-dashboard",
        )
        register_run_engine(
            enroll=chain_run_enroll,
            outcomes=chain_run_outcomes,
            unknown_variables=unknown_variables,
            send_window_error=send_window_error,
            pending_reports=chain_run_pending_reports,
            migrations=chain_member_migrations,
        )
        register_campaign_journey(lookup=campaign_journey_ref)
        from automation.launch_check import package_launch_check, single_launch_check
        from campaigns.platform.registry import register_package_check

        register_package_check(check=package_launch_check, campaign=single_launch_check)
        register_dashboard_count("workflows", workflow_count)
        register_target_list_users("auto_enroll", campaign_ids=auto_enroll_list_campaign_ids)
        target_soft_deleted.connect(cancel_executions_of_deleted_target, dispatch_uid="automation-target-deleted")

        from automation.demo import journey_demo
        from campaigns.platform.registry import register_demo

        register_demo("journey", order=20, contribute=journey_demo)

        from automation.target_panel import live_journeys_warning, render_target_panel
        from campaigns.platform.registry import register_target_delete_warning, register_target_panel

        register_target_panel("automation", order=10, render=render_target_panel)
        register_target_delete_warning("automation", warn=live_journeys_warning)

        from automation.navigation import MENU
        from campaigns.platform.navigation import register_menu

        register_menu(*MENU)
