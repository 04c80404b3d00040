"""The launch check's answer (``GET …/journey/launch-check``), typed for the OpenAPI schema."""

from rest_framework import serializers

from automation.api.stats_serializers import CapPrioritySaidOutput
from automation.choices import LaunchReason


class LaunchExclusionOutput(serializers.Serializer):
    reason = serializers.ChoiceField(choices=LaunchReason.choices)
    label = serializers.CharField()
    count = serializers.IntegerField(allow_null=True, help_text="null: the reason is not built yet.")
    capped = serializers.BooleanField(help_text="The count stopped at `count_cap`: there are more.")
    estimated = serializers.BooleanField(help_text="Counted among the audience's first rows and scaled («حدود …»).")
    available = serializers.BooleanField()
    subtracted = serializers.BooleanField(
        help_text="false: shown only (live elsewhere still gets the message; a frequency cap whose steps wait sends "
        "the next day)."
    )
    text = serializers.CharField(help_text="The count for people («بیش از …» when capped).")


class LaunchProblemOutput(serializers.Serializer):
    code = serializers.CharField()
    message = serializers.CharField()


class LaunchFinishOutput(serializers.Serializer):
    at = serializers.DateTimeField(allow_null=True, help_text="null: not within a year (window, daily limit).")
    at_text = serializers.CharField(help_text="Jalali, in the workspace's time zone.")
    rate_per_minute = serializers.IntegerField(allow_null=True, help_text="null: the account has no rate limit.")
    daily_limit = serializers.IntegerField(allow_null=True)
    time_zone = serializers.CharField()


class LaunchAccountOutput(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    provider = serializers.CharField()
    line_kind = serializers.ChoiceField(choices=["advertising", "service"])  # sms.choices.LineKind
    links_allowed = serializers.BooleanField()
    credit = serializers.IntegerField(allow_null=True, help_text="The provider's last answer, in credit_unit.")
    credit_unit = serializers.ChoiceField(
        choices=["rial", "message"],  # sms.choices.CreditUnit (the engine imports no channel)
        help_text="What the credit counts: rials (weighed against cost) or message parts (against parts).",
    )
    credit_text = serializers.CharField(help_text="The credit with its unit, in Persian; empty when never read.")
    credit_checked_at = serializers.DateTimeField(allow_null=True)
    prices_checked_at = serializers.DateTimeField(
        allow_null=True, help_text="When the provider last gave its prices per operator (null: never)."
    )


class LaunchStepOutput(serializers.Serializer):
    title = serializers.CharField()
    parts = serializers.IntegerField(help_text="Message parts of the text for a sample target.")
    has_link = serializers.BooleanField()
    has_opt_out = serializers.BooleanField()
    filtered_words = serializers.ListField(
        child=serializers.CharField(), help_text="Words of the account's filtered list in the text (a blocker)."
    )


class LaunchOperatorOutput(serializers.Serializer):
    operator = serializers.CharField()
    label = serializers.CharField()
    receivers = serializers.IntegerField()
    price = serializers.IntegerField(help_text="Rials per message part on the account.")
    price_source = serializers.ChoiceField(
        choices=["provider", "typed"],
        help_text="provider: read from the provider (Melipayamak GetSmsPrice); typed: the account's own price.",
    )


class LaunchChannelOutput(serializers.Serializer):
    channel = serializers.CharField()
    account = LaunchAccountOutput(allow_null=True)
    steps = LaunchStepOutput(many=True)
    operators = LaunchOperatorOutput(many=True)
    operators_estimated = serializers.BooleanField(help_text="Shares read from a sample of the audience.")
    cost = serializers.IntegerField(help_text="Rials: receivers × parts × price per operator, every step.")
    parts = serializers.IntegerField(help_text="Message parts: receivers × parts, every step.")


class LaunchCheckOutput(serializers.Serializer):
    campaign_id = serializers.IntegerField()
    campaign_name = serializers.CharField()
    checked_at = serializers.DateTimeField()
    audience = serializers.IntegerField(help_text="Live journeys of the campaign now (the kept counts).")
    audience_text = serializers.CharField()
    receivers = serializers.IntegerField(help_text="The audience less every subtracted reason.")
    receivers_text = serializers.CharField()
    receivers_estimated = serializers.BooleanField(help_text="A reason's count was capped.")
    count_cap = serializers.IntegerField()
    exclusions = LaunchExclusionOutput(many=True)
    messages = serializers.IntegerField(help_text="Sends: receivers × send steps.")
    channels = LaunchChannelOutput(many=True)
    finish = LaunchFinishOutput()
    frequency_cap_priority = CapPrioritySaidOutput(
        allow_null=True,
        help_text="The campaign's priority in the frequency cap across campaigns while a rule of it is on "
        "(a channel of its steps holds sends by it); null without one.",
    )
    blockers = LaunchProblemOutput(many=True, help_text="Any blocker disables Start.")
    warnings = LaunchProblemOutput(many=True)
    ok = serializers.BooleanField()


class PackageLaunchCheckOutput(serializers.Serializer):
    package_id = serializers.IntegerField()
    members = LaunchCheckOutput(
        many=True, help_text="One check per member; a follow-up's audience is the root's (an upper bound)."
    )
    blockers = LaunchProblemOutput(many=True, help_text="Every member's blockers: any disables Approve.")
    ok = serializers.BooleanField()
