"""Notifications (bell + page, optional e-mail) and activities (follow-ups on a target).

Gathered by the ``campaigns.models`` package, so both belong to the ``campaigns`` app label.
An activity's source step (execution + cycle + node) is stored as plain ids: the engine lives in
another app and the kernel imports none of them.
"""

from django.conf import settings
from django.db import models
from django.db.models import Q

from campaigns.models.core import Target, Workspace, WorkspaceQuerySet


class Notification(models.Model):
    """One message to one member; ``dedupe_key`` makes a repeated send a no-op (unique per recipient)."""

    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="notifications")
    recipient = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="notifications")
    kind = models.CharField("نوع", max_length=40)
    title = models.CharField("عنوان", max_length=200)
    body = models.TextField("متن", blank=True)
    link = models.CharField("پیوند", max_length=500, blank=True)
    dedupe_key = models.CharField(max_length=200)
    read_at = models.DateTimeField("خوانده شد", null=True, blank=True)
    emailed_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField("ایجاد", auto_now_add=True)

    objects = WorkspaceQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at", "-id"]
        verbose_name = "اعلان"
        verbose_name_plural = "اعلان‌ها"
        constraints = [
            models.UniqueConstraint(fields=["recipient", "dedupe_key"], name="notification_unique_dedupe"),
        ]
        indexes = [
            models.Index(
                fields=["recipient", "workspace"], condition=Q(read_at__isnull=True), name="notification_unread"
            ),
        ]

    def __str__(self) -> str:
        return self.title


class ActivityKind(models.TextChoices):
    CALL = "call", "تماس"
    MEETING = "meeting", "جلسه"
    VISIT = "visit", "بازدید"
    SMS = "sms", "پیامک"
    EMAIL = "email", "ایمیل"
    NOTE = "note", "یادداشت"
    TASK = "task", "کار"


class ActivityStatus(models.TextChoices):
    OPEN = "open", "باز"
    DONE = "done", "انجام شد"


class Activity(models.Model):
    """A follow-up on a target (a call, a visit, …) for one member, due at a time."""

    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="activities")
    target = models.ForeignKey(Target, on_delete=models.CASCADE, related_name="activities")
    kind = models.CharField("نوع", max_length=16, choices=ActivityKind.choices, default=ActivityKind.TASK)
    title = models.CharField("عنوان", max_length=200)
    description = models.TextField("توضیحات", blank=True)
    due_at = models.DateTimeField("موعد", null=True, blank=True)
    assignee = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name="مسئول",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="activities",
    )
    status = models.CharField("وضعیت", max_length=8, choices=ActivityStatus.choices, default=ActivityStatus.OPEN)
    done_at = models.DateTimeField(null=True, blank=True)
    # The journey step that created it (empty for activities people add by hand).
    source_execution_id = models.BigIntegerField(null=True, blank=True)
    source_cycle = models.PositiveIntegerField(null=True, blank=True)
    source_node_id = models.BigIntegerField(null=True, blank=True)
    source_campaign_id = models.BigIntegerField(null=True, blank=True)
    created_at = models.DateTimeField("ایجاد", auto_now_add=True)
    updated_at = models.DateTimeField("به‌روزرسانی", auto_now=True)

    objects = WorkspaceQuerySet.as_manager()

    class Meta:
        ordering = ["status", "due_at", "id"]
        verbose_name = "پیگیری"
        verbose_name_plural = "پیگیری‌ها"
        constraints = [
            models.UniqueConstraint(
                fields=["source_execution_id", "source_cycle", "source_node_id"],
                condition=Q(source_execution_id__isnull=False),
                name="activity_one_per_step",
            ),
        ]
        indexes = [
            models.Index(fields=["workspace", "assignee", "status"], name="activity_assignee_status"),
            # The workspace's list in its own order (``api/activities``): the first page reads its rows from here
            # instead of sorting every activity of the workspace (100,000: 320 ms).
            models.Index(fields=["workspace", "status", "due_at", "id"], name="activity_workspace_order"),
        ]

    def __str__(self) -> str:
        return self.title

    def clean(self) -> None:
        super().clean()
        from campaigns.platform.integrity import require_same_workspace

        require_same_workspace(self, "target")
