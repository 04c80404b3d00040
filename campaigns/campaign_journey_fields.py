"""Channel-neutral run fields of the one Campaign model.

The workflow and its pinned version are the engine's (``automation.CampaignJourney``).
"""

from django.conf import settings
from django.db import models


class CampaignJourneyFields(models.Model):
    """Abstract mixin: source list, starts/ends, daily limit, send window, settings, pause stamps.

    ``send_window`` overrides the journey version's and the workspace's window
    (campaign ?? version ?? workspace ?? none).
    ``journey_settings`` holds ``stop_when_target_status_in`` and later
    ``auto_enroll``.
    """

    source_target_list = models.ForeignKey(
        "campaigns.TargetList",
        verbose_name="فهرست مبدأ",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )
    starts_at = models.DateTimeField("شروع", null=True, blank=True)
    ends_at = models.DateTimeField("پایان", null=True, blank=True)
    daily_limit = models.PositiveIntegerField("سقف روزانه", null=True, blank=True)
    send_window = models.JSONField("بازه ارسال", null=True, blank=True)
    journey_settings = models.JSONField("تنظیمات سفر", default=dict, blank=True)
    paused_at = models.DateTimeField("زمان توقف", null=True, blank=True)
    paused_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name="متوقف‌کننده",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )

    class Meta:
        abstract = True
