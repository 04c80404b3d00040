"""Journey fields of the one Campaign model (owned by the engine issue)."""

from django.conf import settings
from django.db import models


class CampaignJourneyFields(models.Model):
    """Abstract mixin: workflow, pinned version, starts/ends, limits, window, settings.

    The version is pinned when the campaign is created; publishing a newer
    version never changes a campaign. ``send_window`` overrides the version's
    and the workspace's window (campaign ?? version ?? workspace ?? none).
    ``journey_settings`` holds ``stop_when_target_status_in`` and later
    ``auto_enroll``.
    """

    workflow = models.ForeignKey(
        "automation.Workflow",
        verbose_name="گردش‌کار",
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="campaigns",
    )
    workflow_version = models.ForeignKey(
        "automation.WorkflowVersion",
        verbose_name="نسخه گردش‌کار",
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="campaigns",
    )
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
