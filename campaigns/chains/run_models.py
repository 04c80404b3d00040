"""Chain runs: campaign runs, frozen audience snapshots, run→execution links, conversion events.

Gathered by ``campaigns.chains.models``: every model belongs to the ``chains`` app label and keeps
its ``campaigns_…`` table. Run status changes go through the FSM below and are
persisted by ``campaigns.chains.runs.transitions.run_apply`` (compare-and-set on
id + status + revision).
"""

import uuid

from django.core.exceptions import ValidationError
from django.db import models
from django.db.models import Q
from django_fsm import FSMField, transition

from campaigns.chains.runs.choices import (
    AudienceClass,
    ConversionSource,
    RunStatus,
    RunType,
    SkipReason,
    SnapshotStatus,
    WaitReason,
)
from campaigns.models.core import Target, TimeStamped, Workspace, WorkspaceQuerySet
from campaigns.platform.integrity import MSG_OTHER_WORKSPACE, require_same_workspace
from campaigns.platform.jalali import fa_digits

R = RunStatus


class CampaignRun(TimeStamped):
    """One turn of a campaign: a batch enrollment of a frozen audience into the engine.

    A chain root run stores its own id as ``period_key`` (it opens the period);
    each chain child has at most one INHERITED run per period whose audience
    comes from ``source_run``.
    """

    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="+")
    campaign = models.ForeignKey("chains.ChainNode", on_delete=models.PROTECT, related_name="runs")
    root = models.ForeignKey("chains.ChainNode", on_delete=models.PROTECT, related_name="+", null=True, blank=True)
    package = models.ForeignKey(
        "chains.ChainApprovalPackage", on_delete=models.PROTECT, related_name="+", null=True, blank=True
    )
    run_type = models.CharField("نوع اجرا", max_length=10, choices=RunType.choices)
    status = FSMField("وضعیت", max_length=20, choices=RunStatus.choices, default=R.SCHEDULED)
    revision = models.PositiveIntegerField("نسخه", default=1)
    period_key = models.BigIntegerField("کلید دوره", null=True, blank=True)
    source_run = models.ForeignKey(
        "self", verbose_name="اجرای منبع", on_delete=models.PROTECT, null=True, blank=True, related_name="child_runs"
    )
    inherit_type = models.CharField("دسته مخاطبان", max_length=16, choices=AudienceClass.choices, blank=True)
    planned_at = models.DateTimeField("زمان برنامه‌ریزی", null=True, blank=True)
    scheduled_at = models.DateTimeField("زمان اجرا", null=True, blank=True)
    next_check_at = models.DateTimeField("بررسی بعدی", null=True, blank=True)
    wait_deadline_at = models.DateTimeField("مهلت انتظار", null=True, blank=True)
    wait_reason = models.CharField("دلیل انتظار", max_length=28, choices=WaitReason.choices, blank=True)
    skip_reason = models.CharField("دلیل رد", max_length=20, choices=SkipReason.choices, blank=True)
    failure_reason = models.CharField("دلیل شکست", max_length=200, blank=True)
    selection_rule_snapshot = models.JSONField("قاعده انتخاب", default=dict, blank=True)
    target_snapshot = models.ForeignKey(
        "chains.RunAudienceSnapshot", on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    audience_count = models.PositiveIntegerField("تعداد مخاطبان", null=True, blank=True)
    control_count = models.PositiveIntegerField("گروه کنترل", default=0)
    expected_execution_count = models.PositiveIntegerField("اجراهای مورد انتظار", null=True, blank=True)
    refused_count = models.PositiveIntegerField("ردشده توسط کانال", default=0)
    # refused_count by reason (``RefusalReason`` codes → people), written with it when the dispatch ends.
    refused_reasons = models.JSONField("دلیل‌های کنار گذاشتن", default=dict, blank=True)
    # Executions whose send left the person out when it came to send (``ExclusionReason`` codes → people):
    # blacklisted since the dispatch, an operator's block, the frequency cap. Kept by the completion check.
    excluded_reasons = models.JSONField("کنار گذاشته هنگام ارسال", default=dict, blank=True)
    cursor = models.BigIntegerField("نشانگر ارسال", default=0)
    dispatch_attempts = models.PositiveIntegerField("تلاش‌های ارسال", default=0)
    lease_token = models.UUIDField(null=True, blank=True)
    lease_expires_at = models.DateTimeField(null=True, blank=True)
    dispatched_at = models.DateTimeField("پایان ثبت ارسال", null=True, blank=True)
    started_at = models.DateTimeField("شروع ارسال", null=True, blank=True)
    completed_at = models.DateTimeField("پایان پردازش ارسال", null=True, blank=True)
    postponement_notified_at = models.DateTimeField(null=True, blank=True)
    conversions_checked_at = models.DateTimeField("داده تبدیل تا", null=True, blank=True)
    operational_error = models.CharField("خطای عملیاتی", max_length=300, blank=True)

    objects = WorkspaceQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at", "-id"]
        verbose_name = "اجرای کمپین"
        verbose_name_plural = "اجراهای کمپین"
        db_table = "campaigns_campaignrun"
        constraints = [
            models.UniqueConstraint(
                fields=["workspace", "campaign", "period_key"],
                condition=Q(run_type="INHERITED"),
                name="campaignrun_one_inherited_per_period",
            ),
            models.UniqueConstraint(
                fields=["campaign", "planned_at"],
                condition=Q(run_type="SCHEDULED"),
                name="campaignrun_one_scheduled_per_occurrence",
            ),
        ]
        indexes = [
            models.Index(fields=["run_type", "status", "next_check_at"], name="campaignrun_due"),
            models.Index(fields=["workspace", "period_key", "campaign"], name="campaignrun_ws_period"),
            models.Index(fields=["campaign", "-created_at"], name="campaignrun_campaign_created"),
        ]

    def __str__(self) -> str:
        return f"اجرای {fa_digits(self.pk)} ({self.get_status_display()})"

    def clean(self) -> None:
        super().clean()
        require_same_workspace(self, "campaign", "root", "package", "source_run", "target_snapshot")

    # --- transitions (memory only; persisted by runs.transitions.run_apply) ---
    @transition(field=status, source=[R.SCHEDULED, R.WAITING_SOURCE], target=R.WAITING_SOURCE)
    def wait_source(self) -> None:
        """The source has not started / finished sending yet."""

    @transition(field=status, source=[R.WAITING_SOURCE, R.SCHEDULED], target=R.SCHEDULED)
    def plan(self) -> None:
        """The source started: planned time known."""

    @transition(field=status, source=[R.SCHEDULED, R.WAITING_SOURCE, R.BUILDING], target=R.BUILDING)
    def build(self) -> None:
        """Claim a build attempt (a reclaim starts a new attempt)."""

    @transition(field=status, source=R.BUILDING, target=R.READY_TO_DISPATCH)
    def freeze(self) -> None:
        """The audience was published FROZEN."""

    @transition(field=status, source=[R.READY_TO_DISPATCH, R.DISPATCHING], target=R.DISPATCHING)
    def claim(self) -> None:
        """The durable start of sending (started_at set once)."""

    @transition(field=status, source=R.DISPATCHING, target=R.DISPATCHED)
    def dispatched(self) -> None:
        """Every execution exists."""

    @transition(field=status, source=R.DISPATCHED, target=R.COMPLETED)
    def complete(self) -> None:
        """Send processing finished (the one completion function said so)."""

    @transition(
        field=status,
        source=[R.SCHEDULED, R.WAITING_SOURCE, R.BUILDING, R.READY_TO_DISPATCH],
        target=R.SKIPPED,
    )
    def skip(self) -> None:
        """Never sent (reason in skip_reason)."""

    @transition(
        field=status,
        source=[R.SCHEDULED, R.WAITING_SOURCE, R.BUILDING, R.READY_TO_DISPATCH, R.DISPATCHING],
        target=R.FAILED,
    )
    def fail(self) -> None:
        """Gave up; whatever was sent stays sent."""


class RunAudienceSnapshot(models.Model):
    """One build attempt of a run's audience; at most one per run is ever FROZEN and it never changes."""

    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="+")
    run = models.ForeignKey(CampaignRun, on_delete=models.CASCADE, related_name="snapshots")
    attempt_no = models.PositiveIntegerField("تلاش")
    build_id = models.UUIDField("شناسه ساخت", default=uuid.uuid4, unique=True)
    status = models.CharField("وضعیت", max_length=10, choices=SnapshotStatus.choices, default=SnapshotStatus.BUILDING)
    lease_expires_at = models.DateTimeField(null=True, blank=True)
    heartbeat_at = models.DateTimeField(null=True, blank=True)
    member_count = models.PositiveIntegerField(default=0)
    control_count = models.PositiveIntegerField(default=0)
    selection_rule_snapshot = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    frozen_at = models.DateTimeField(null=True, blank=True)

    objects = WorkspaceQuerySet.as_manager()

    class Meta:
        ordering = ["run_id", "attempt_no"]
        verbose_name = "مخاطبان منجمد اجرا"
        verbose_name_plural = "مخاطبان منجمد اجراها"
        db_table = "campaigns_runaudiencesnapshot"
        constraints = [
            models.UniqueConstraint(fields=["run", "attempt_no"], name="runsnapshot_unique_attempt"),
            models.UniqueConstraint(fields=["run"], condition=Q(status="FROZEN"), name="runsnapshot_one_frozen"),
        ]

    def __str__(self) -> str:
        run, attempt = fa_digits(self.run_id), fa_digits(self.attempt_no)
        return f"فهرست مخاطبان اجرای {run}، تلاش {attempt} ({self.get_status_display()})"

    def clean(self) -> None:
        super().clean()
        require_same_workspace(self, "run")


class RunAudienceMember(models.Model):
    """One target of one build attempt (membership = rows with the published attempt's build id)."""

    snapshot = models.ForeignKey(RunAudienceSnapshot, on_delete=models.CASCADE, related_name="members")
    build_id = models.UUIDField()
    target = models.ForeignKey("campaigns.Target", on_delete=models.PROTECT, related_name="+")
    is_control = models.BooleanField(default=False)

    class Meta:
        ordering = ["id"]
        verbose_name = "عضو مخاطبان اجرا"
        verbose_name_plural = "اعضای مخاطبان اجرا"
        db_table = "campaigns_runaudiencemember"
        constraints = [models.UniqueConstraint(fields=["snapshot", "target"], name="runmember_unique_target")]
        indexes = [models.Index(fields=["build_id", "id"], name="runmember_build")]

    def __str__(self) -> str:
        return f"{self.snapshot_id}:{self.target_id}"

    def clean(self) -> None:
        """The target belongs to the snapshot's workspace (a member has no workspace column of its own)."""
        super().clean()
        if self.snapshot_id is None or self.target_id is None:
            return
        own = RunAudienceSnapshot._base_manager.filter(pk=self.snapshot_id).values_list("workspace_id", flat=True)
        other = Target._base_manager.filter(pk=self.target_id).values_list("workspace_id", flat=True)
        if own.first() != other.first():
            raise ValidationError({"target": [MSG_OTHER_WORKSPACE]})


class RunExecution(models.Model):
    """The deterministic key of one execution: run + target + action code (replays insert nothing new)."""

    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="+")
    run = models.ForeignKey(CampaignRun, on_delete=models.CASCADE, related_name="executions")
    target = models.ForeignKey("campaigns.Target", on_delete=models.PROTECT, related_name="+")
    action_code = models.CharField(max_length=60)
    key = models.CharField(max_length=160, unique=True)
    execution_id = models.BigIntegerField(null=True, blank=True, unique=True)
    refused_reason = models.CharField(max_length=40, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    objects = WorkspaceQuerySet.as_manager()

    class Meta:
        ordering = ["id"]
        verbose_name = "اجرای مخاطب در اجرای کمپین"
        verbose_name_plural = "اجراهای مخاطبان در اجرای کمپین"
        db_table = "campaigns_runexecution"
        indexes = [
            models.Index(fields=["run", "execution_id"], name="runexec_run"),
            # A target's timeline: the runs that left it out (few rows per target, only the refused ones).
            models.Index(
                fields=["workspace", "target"], condition=~Q(refused_reason=""), name="runexec_target_refused"
            ),
        ]

    def __str__(self) -> str:
        return self.key

    def clean(self) -> None:
        super().clean()
        require_same_workspace(self, "run", "target")


class ConversionEvent(models.Model):
    """A target reached something (purchase, status change …); attributed to runs by goal and window."""

    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="+")
    target = models.ForeignKey("campaigns.Target", on_delete=models.PROTECT, related_name="conversion_events")
    name = models.CharField("نام", max_length=100)
    occurred_at = models.DateTimeField("زمان رخداد")
    data = models.JSONField("داده", default=dict, blank=True)
    source = models.CharField("منبع", max_length=16, choices=ConversionSource.choices, default=ConversionSource.API)
    external_id = models.CharField("شناسه بیرونی", max_length=100, null=True, blank=True)
    created_at = models.DateTimeField("ثبت", auto_now_add=True)

    objects = WorkspaceQuerySet.as_manager()

    class Meta:
        ordering = ["-occurred_at", "-id"]
        verbose_name = "رویداد تبدیل"
        verbose_name_plural = "رویدادهای تبدیل"
        db_table = "campaigns_conversionevent"
        constraints = [
            models.UniqueConstraint(
                fields=["workspace", "external_id"],
                condition=Q(external_id__isnull=False),
                name="conversion_unique_external_id",
            ),
        ]
        indexes = [models.Index(fields=["workspace", "target", "occurred_at"], name="conversion_target_time")]

    def __str__(self) -> str:
        return f"{self.name} @ {self.occurred_at:%Y-%m-%d %H:%M}"

    def clean(self) -> None:
        super().clean()
        require_same_workspace(self, "target")
