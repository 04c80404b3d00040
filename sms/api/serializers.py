"""SMS API serializers."""

from rest_framework import serializers

from campaigns.platform.api.fields import BodyInput, IdField, LazyChoices
from campaigns.platform.text import StrictCharField, VisibleNameField
from sms import frequency_cap
from sms.choices import BlacklistReason, CreditUnit, LineKind
from sms.models import BlacklistEntry, SmsAttempt, SmsProviderAccount, SmsTemplate
from sms.providers import provider_choices


class SmsPreviewInput(BodyInput):
    body = StrictCharField(max_length=2000, allow_blank=True)
    target_id = IdField(required=False, allow_null=True, default=None)
    on_missing_variable = serializers.ChoiceField(choices=["skip", "blank"], default="blank")


class SmsSegmentsOutput(serializers.Serializer):
    encoding = serializers.CharField()
    units = serializers.IntegerField()
    segments = serializers.IntegerField()
    per_segment = serializers.IntegerField()


class SmsLintProblemOutput(serializers.Serializer):
    code = serializers.ChoiceField(choices=["opt_out_missing", "link_not_allowed", "link", "filtered_word"])
    message = serializers.CharField()


class SmsLintOutput(serializers.Serializer):
    parts = serializers.IntegerField(help_text="Message parts with the opt-out line when the step appends it.")
    has_link = serializers.BooleanField()
    has_opt_out = serializers.BooleanField()
    line_kind = serializers.ChoiceField(
        choices=LineKind.choices,
        allow_blank=True,
        help_text="advertising / service of the account the step sends through; empty: none.",
    )
    problems = SmsLintProblemOutput(many=True)


class SmsPreviewOutput(serializers.Serializer):
    text = serializers.CharField()
    missing = serializers.ListField(child=serializers.CharField())
    unknown = serializers.ListField(child=serializers.CharField())
    segments = SmsSegmentsOutput()
    long_text_warning = serializers.BooleanField()
    lint = SmsLintOutput(help_text="What the provider would refuse: opt-out line on an advertising line, links.")


class BlacklistInput(BodyInput):
    number = StrictCharField(max_length=40)
    reason = serializers.ChoiceField(choices=BlacklistReason.choices, default=BlacklistReason.MANUAL)
    description = StrictCharField(max_length=300, required=False, allow_blank=True, default="")


class BlacklistImportInput(BodyInput):
    numbers = serializers.ListField(child=StrictCharField(max_length=40), allow_empty=False, max_length=20000)


class BlacklistImportOutput(serializers.Serializer):
    added = serializers.IntegerField()
    already_active = serializers.IntegerField()
    invalid = serializers.ListField(child=serializers.CharField())


class BlacklistOutput(serializers.ModelSerializer):
    class Meta:
        model = BlacklistEntry
        fields = ["id", "channel", "value", "reason", "source", "description", "is_active", "created_at", "removed_at"]


class SmsTemplateInput(BodyInput):
    name = VisibleNameField(max_length=200)
    body = StrictCharField(max_length=2000)


class SmsTemplateOutput(serializers.ModelSerializer):
    class Meta:
        model = SmsTemplate
        fields = ["id", "name", "body", "created_at", "updated_at"]


class SmsAttemptOutput(serializers.ModelSerializer):
    class Meta:
        model = SmsAttempt
        fields = [
            "id",
            "execution_id",
            "campaign_id",
            "node_id",
            "phone",
            "message",
            "provider",
            "sender",
            "attempt_number",
            "cycle",
            "status",
            "request_at",
            "response_at",
            "provider_message_id",
            "error_code",
            "error_message",
            "retry_scheduled_at",
            "segments",
        ]


class SmsAccountOutput(serializers.ModelSerializer):
    """A provider account as the launch check sees it (credentials never read back)."""

    filtered_words = serializers.ListField(
        child=serializers.CharField(), help_text="Words the provider refuses in a text on this account."
    )
    provider_prices = serializers.DictField(
        child=serializers.IntegerField(),
        help_text="Rials per message part by operator (mci, irancell) as the provider last gave them; empty: none.",
    )
    credit_unit = serializers.ChoiceField(
        choices=CreditUnit.values,
        source="credit_in",
        read_only=True,
        help_text="What credit counts: rials (Kavenegar) or message parts (Melipayamak GetCredit); the provider's "
        "unit unless set on the account.",
    )

    class Meta:
        model = SmsProviderAccount
        fields = [
            "id",
            "name",
            "provider",
            "is_active",
            "line_kind",
            "price_mci",
            "price_irancell",
            "price_rightel",
            "provider_prices",
            "prices_checked_at",
            "prices_error",
            "prices_error_at",
            "use_typed_prices",
            "credit",
            "credit_unit",
            "credit_checked_at",
            "filtered_words",
        ]


class FrequencyCapRule(BodyInput):
    """One rule of the frequency cap: at most ``limit`` promotional messages per number per ``period`` (a Jalali
    day, a Jalali week from Saturday to Friday, a Jalali month; the workspace time zone)."""

    period = serializers.ChoiceField(choices=list(frequency_cap.PERIODS))
    limit = serializers.IntegerField(
        min_value=1,
        max_value=max(frequency_cap.MAX_LIMIT.values()),
        help_text="At most " + ", ".join(f"{n} per {p}" for p, n in frequency_cap.MAX_LIMIT.items()) + ".",
    )


class SmsSettingsOutput(serializers.Serializer):
    enabled = serializers.BooleanField()
    primary_account_id = serializers.IntegerField(allow_null=True)
    fallback_account_id = serializers.IntegerField(allow_null=True)
    opt_out_text = serializers.CharField()
    paused_until = serializers.DateTimeField(allow_null=True)
    pause_reason = serializers.CharField()
    channel_problem = serializers.CharField(allow_null=True)
    webhook_path = serializers.CharField()
    notifications_email = serializers.BooleanField(help_text="Every notification is also e-mailed to the owners.")
    sms_retention_days = serializers.IntegerField(help_text="SMS texts and numbers are erased after it; 0 = kept.")
    frequency_cap_rules = FrequencyCapRule(
        many=True,
        help_text="Promotional messages (advertising lines) per number, every campaign together: one rule per "
        "period, all holding at once; empty = no cap.",
    )
    frequency_cap_per_day = serializers.IntegerField(help_text="The day rule's limit (0 = none); see the rules.")
    quiet_fridays = serializers.BooleanField(help_text="No promotional sends on Fridays.")
    quiet_days = serializers.ListField(
        child=serializers.DateField(), help_text="Dates without promotional sends (ISO; the pages show them Jalali)."
    )
    accounts = SmsAccountOutput(
        many=True,
        help_text="The provider accounts: line kind, price of one part per operator (rials), last credit "
        "(in its credit_unit: rials or message parts).",
    )


class SmsSettingsInput(BodyInput):
    """The settings to change (only the keys sent; the same rules as the SMS settings page)."""

    enabled = serializers.BooleanField(required=False)
    primary_account_id = serializers.IntegerField(required=False, allow_null=True, min_value=1)
    fallback_account_id = serializers.IntegerField(required=False, allow_null=True, min_value=1)
    opt_out_text = StrictCharField(required=False, allow_blank=True, max_length=60)
    notifications_email = serializers.BooleanField(required=False)
    sms_retention_days = serializers.IntegerField(required=False, min_value=0, max_value=3650)
    frequency_cap_rules = serializers.ListField(
        child=FrequencyCapRule(),
        required=False,
        max_length=len(frequency_cap.PERIODS),
        help_text="Replaces the rules (one per period; [] = no cap).",
    )
    frequency_cap_per_day = serializers.IntegerField(
        required=False,
        min_value=0,
        max_value=frequency_cap.MAX_LIMIT[frequency_cap.DAY],
        help_text="Sets the day rule alone (0 removes it); not with frequency_cap_rules.",
    )
    quiet_fridays = serializers.BooleanField(required=False)
    quiet_days = serializers.ListField(child=serializers.DateField(), required=False, max_length=366)


class CredentialFieldOutput(serializers.Serializer):
    name = serializers.CharField()
    label = serializers.CharField()
    required = serializers.BooleanField()
    secret = serializers.BooleanField()


class SmsProviderOutput(serializers.Serializer):
    kind = serializers.ChoiceField(choices=LazyChoices(provider_choices), help_text="an account's `provider`")
    label = serializers.CharField()
    status_by_local_id = serializers.BooleanField(help_text="Unknown outcomes are settled by asking by local id.")
    status_by_message_id = serializers.BooleanField(help_text="Delivery is polled by message id.")
    credential_fields = CredentialFieldOutput(many=True)
