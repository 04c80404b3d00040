"""The shapes of a journey's statistics and of a target's timeline (``automation.journey_stats``)."""

from rest_framework import serializers

from automation.api.serializers import LiveElsewhereOutput
from automation.choices import EventType, ExecutionStatus
from automation.journey_stats import CONFLICT_SKIPPED, WHY_NOT_SENT_REASONS, send_status_choices
from campaigns.choices import CampaignStatus, CapPriority
from campaigns.platform.api.fields import LazyChoices
from campaigns.platform.registry import LEFT_OUT_MAX, target_left_out_types


class TodayTotalOutput(serializers.Serializer):
    today = serializers.IntegerField()
    total = serializers.IntegerField()


class CapPrioritySaidOutput(serializers.Serializer):
    value = serializers.ChoiceField(choices=CapPriority.choices)
    label = serializers.CharField(help_text="the priority in Persian («پایین»)")
    text = serializers.CharField(help_text="«اولویت در سقف پیامک تبلیغاتی: پایین»")


class JourneyLimitsOutput(serializers.Serializer):
    campaign_daily_limit = serializers.IntegerField(allow_null=True)
    workspace_daily_limit = serializers.IntegerField(allow_null=True)
    campaign_used_today = serializers.IntegerField()
    workspace_used_today = serializers.IntegerField()
    remaining_today = serializers.IntegerField(allow_null=True, help_text="null: no limit")
    frequency_cap_priority = serializers.ChoiceField(
        choices=CapPriority.choices, help_text="the campaign's priority in the frequency cap (settings)"
    )
    frequency_cap_priority_said = CapPrioritySaidOutput(
        allow_null=True, help_text="the priority for people while a rule of the frequency cap is on; null without one"
    )


class NextSendOutput(serializers.Serializer):
    execution_id = serializers.IntegerField()
    subject_id = serializers.IntegerField()
    status = serializers.ChoiceField(choices=ExecutionStatus.choices)
    step = serializers.CharField(help_text="the step named for people")
    next_run_at = serializers.DateTimeField(allow_null=True, help_text="null while a limit holds it")
    queued_for_sending = serializers.BooleanField()


class SeriesDayOutput(serializers.Serializer):
    day = serializers.DateField()
    sent = serializers.IntegerField()
    failed = serializers.IntegerField()
    retried = serializers.IntegerField()


class JourneyStatsOutput(serializers.Serializer):
    campaign_id = serializers.IntegerField()
    day = serializers.DateField(help_text="today in the workspace's time zone")
    time_zone = serializers.CharField()
    total = serializers.IntegerField()
    pending = serializers.IntegerField()
    active = serializers.IntegerField()
    waiting = serializers.IntegerField()
    paused = serializers.IntegerField()
    completed = serializers.IntegerField()
    failed = serializers.IntegerField()
    blacklisted = serializers.IntegerField()
    cancelled = serializers.IntegerField()
    ended_with_campaign = serializers.IntegerField(help_text="of the cancelled: closed because the campaign ended")
    unknown_outcomes = serializers.IntegerField(help_text="sends whose outcome is unknown (never resent on their own)")
    sent = TodayTotalOutput(help_text="from the daily counters")
    send_failed = TodayTotalOutput()
    retried = TodayTotalOutput()
    frequency_capped = TodayTotalOutput(
        help_text="sends the frequency cap across campaigns held back (the step waited for the next day, or skipped)"
    )
    limits = JourneyLimitsOutput()
    queued_for_sending = serializers.IntegerField(help_text="pushed by a limit")
    next_sends = NextSendOutput(many=True)
    next_wake = serializers.DateTimeField(
        allow_null=True, help_text="when the first journey resting at a step that sends nothing moves on"
    )
    series = SeriesDayOutput(many=True, help_text="the last 30 days")


class TimelineActorOutput(serializers.Serializer):
    id = serializers.IntegerField()
    username = serializers.CharField()


class TimelineSendOutput(serializers.Serializer):
    """What the channel recorded of a send; with ``hidden`` (no log permission) only status, attempt number and
    retry time, the rest null."""

    text = serializers.CharField(allow_null=True)
    number = serializers.CharField(allow_null=True)
    status = serializers.ChoiceField(
        choices=LazyChoices(send_status_choices), help_text="the channel's status of the send (SMS: the SMS log's)"
    )
    provider = serializers.CharField(allow_null=True)
    sender = serializers.CharField(allow_null=True)
    provider_message_id = serializers.CharField(allow_null=True)
    error_code = serializers.CharField(allow_null=True)
    error_message = serializers.CharField(allow_null=True)
    retry_at = serializers.DateTimeField(allow_null=True)
    attempt_number = serializers.IntegerField(allow_null=True)
    hidden = serializers.BooleanField()


class TimelineEntryOutput(serializers.Serializer):
    id = serializers.IntegerField()
    type = serializers.ChoiceField(choices=EventType.choices, help_text="the event type (ExecutionEvent)")
    occurred_at = serializers.DateTimeField()
    campaign_id = serializers.IntegerField()
    campaign_name = serializers.CharField()
    execution_id = serializers.IntegerField(allow_null=True)
    step = serializers.CharField()
    message = serializers.CharField()
    data = serializers.DictField(help_text="the event's data (by event type); only attempt_id when the send is hidden")
    actor = TimelineActorOutput(allow_null=True, help_text="who acted, for manual actions")
    why_not_sent = serializers.ChoiceField(
        choices=WHY_NOT_SENT_REASONS, allow_null=True, help_text="why the step sent nothing (yet); null: it did"
    )
    send = TimelineSendOutput(allow_null=True)


class TargetJourneyOutput(serializers.Serializer):
    execution_id = serializers.IntegerField()
    campaign_id = serializers.IntegerField()
    campaign_name = serializers.CharField()
    workflow_id = serializers.IntegerField()
    workflow_name = serializers.CharField()
    status = serializers.ChoiceField(choices=ExecutionStatus.choices)
    live = serializers.BooleanField()
    step = serializers.CharField()
    next_run_at = serializers.DateTimeField(allow_null=True)
    cycle = serializers.IntegerField()
    end_reason = serializers.CharField(allow_blank=True)
    campaign_status = serializers.ChoiceField(choices=CampaignStatus.choices)


class ConflictSkipOutput(serializers.Serializer):
    type = serializers.ChoiceField(choices=[CONFLICT_SKIPPED])
    why_not_sent = serializers.ChoiceField(choices=[CONFLICT_SKIPPED])
    campaign_id = serializers.IntegerField()
    campaign_name = serializers.CharField()
    batch_id = serializers.IntegerField()
    occurred_at = serializers.DateTimeField()
    conflicts = LiveElsewhereOutput(many=True, help_text="the journeys it was live in")


class LeftOutOutput(serializers.Serializer):
    """A send the target was left out of without a journey of its own (no event to hang it on)."""

    type = serializers.ChoiceField(
        choices=LazyChoices(target_left_out_types),
        help_text="the kind of row; chain_run_refused: a chain run's dispatch refused the target",
    )
    why_not_sent = serializers.CharField(
        help_text="the code the channel refused the target with: one of a chain run's refusal reasons "
        "(RefusalReason: blacklisted, opt_out, no_valid_mobile, telecom_blocked, already_live, not_found, "
        "unknown) or another code the channel answered (an open set; `why_label` names it in Persian either way)"
    )
    why_label = serializers.CharField(help_text="the reason in Persian, as the target page says it")
    campaign_id = serializers.IntegerField()
    campaign_name = serializers.CharField()
    run_id = serializers.IntegerField(allow_null=True, help_text="the chain run that left it out; null: not a run")
    occurred_at = serializers.DateTimeField()


class TargetTimelineOutput(serializers.Serializer):
    """A page of the target's events (newest first; keyset cursors as every history list), the journeys it is
    in, the enrollments that skipped it and the sends it was left out of."""

    count = serializers.IntegerField(allow_null=True, help_text="null in a keyset cursor answer")
    count_capped = serializers.BooleanField(allow_null=True)
    page = serializers.IntegerField(allow_null=True, help_text="null in a cursor answer")
    size = serializers.IntegerField()
    has_more = serializers.BooleanField()
    next = serializers.CharField(allow_null=True)
    next_cursor = serializers.CharField(allow_null=True)
    previous_cursor = serializers.CharField(allow_null=True)
    results = TimelineEntryOutput(many=True)
    campaigns = TargetJourneyOutput(many=True)
    conflict_skips = ConflictSkipOutput(many=True)
    left_out = LeftOutOutput(many=True, help_text=f"newest first, at most {LEFT_OUT_MAX}")
