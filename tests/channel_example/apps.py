from django.apps import AppConfig

from campaigns.platform.channels import ApiArea, Channel


class ExampleChannelConfig(AppConfig):
    name = "tests.channel_example"
    label = "channel_example"
    verbose_name = "کانال نمونه"
    settings_module = "tests.channel_example.settings"
    channel = Channel(
        name="example",
        label="کانال نمونه",
        queues=("example",),
        routes={"channel_example.*": "example"},
        beat_schedule="tests.channel_example.schedule.BEAT_SCHEDULE",
        urls="tests.channel_example.urls",
        api_urls="tests.channel_example.api_urls",
        mounts=(("api/example-hooks/", "tests.channel_example.hook_urls"),),
        api_area=ApiArea("Example", "کانال نمونه — a throw-away channel", "example"),
        history_tables={"channel_example_event": "created_at"},
        chain_action="send_example",
        campaign_kind=("example", "کمپین نمونه"),
    )

    def ready(self) -> None:
        from campaigns.platform.navigation import MenuGroup, MenuItem, register_menu
        from campaigns.platform.registry import register_campaign_kind
        from tests.channel_example.views import ExampleCampaignInput, example_campaign_create

        register_menu(MenuGroup("example", order=90, label="کانال نمونه", items=(MenuItem("example-home", "نمونه"),)))
        register_campaign_kind(
            self.channel.campaign_kind[0], input_serializer=ExampleCampaignInput, create=example_campaign_create
        )
