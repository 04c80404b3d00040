"""Workflow engine models (journeys.md "Schema").

A workflow is data: versions hold nodes and edges; a published version never
changes (the model refuses it) and executions stay pinned to their version.
Executions change status only through conditional UPDATEs on
(id, status, revision) written by ``automation.engine.transitions``; every
transition appends one ``ExecutionEvent``.
"""

from django.conf import settings as django_settings
from django.contrib.contenttypes.models import ContentType
from django.db import models
from django.db.models import Q
from django_fsm import RETURN_VALUE, FSMField, transition

from automation.choices import (
    LIVE_STATUSES,
    BatchStatus,
    CounterScope,
    Decision,
    EndReason,
    EnrollmentClass,
    EventType,
    ExecutionStatus,
    MigrationKind,
    MigrationStatus,
    Port,
    VersionStatus,
    WorkflowStatus,
    execution_status_badge,
    execution_status_label,
    port_label,
)
from campaigns.models import TimeStamped, Workspace, WorkspaceQuerySet
from campaigns.platform.jalali import fa_digits

S = ExecutionStatus


class ImmutableError(RuntimeError):
    """Raised when code tries to change a row the model declares immutable."""


class Workflow(TimeStamped):
    """A named journey graph; its versions hold the nodes and edges."""

    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="workflows")
    name = models.CharField("نام", max_length=200)
    description = models.TextField("توضیحات", blank=True)
    category = models.CharField("دسته", max_length=30, blank=True, default="")
    status = models.CharField("وضعیت", max_length=16, choices=WorkflowStatus.choices, default=WorkflowStatus.DRAFT)
    published_version = models.ForeignKey(
        "WorkflowVersion",
        verbose_name="نسخه منتشرشده",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )
    created_by = models.ForeignKey(django_settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True)
    updated_by = models.ForeignKey(
        django_settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    deleted_at = models.DateTimeField("حذف", null=True, blank=True)

    objects = WorkspaceQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at", "-id"]
        verbose_name = "گردش‌کار"
        verbose_name_plural = "گردش‌کارها"

    def __str__(self) -> str:
        return self.name

    def clean(self) -> None:
        super().clean()
        from campaigns.platform.integrity import require_same_workspace

        extra = {}
        if self.published_version_id and self.pk:
            owner = WorkflowVersion.objects.filter(pk=self.published_version_id).values_list("workflow_id", flat=True)
            if owner.first() not in (None, self.pk):
                extra["published_version"] = ["این نسخه از گردش‌کار دیگری است."]
        require_same_workspace(self, "published_version", extra=extra)


class WorkflowVersion(TimeStamped):
    """One version of a workflow's graph; immutable once published (at most one draft)."""

    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="+")
    workflow = models.ForeignKey(Workflow, on_delete=models.CASCADE, related_name="versions")
    version_number = models.PositiveIntegerField("شماره نسخه")
    status = models.CharField("وضعیت", max_length=16, choices=VersionStatus.choices, default=VersionStatus.DRAFT)
    settings = models.JSONField("تنظیمات", default=dict, blank=True)
    published_at = models.DateTimeField("انتشار", null=True, blank=True)
    published_by = models.ForeignKey(
        django_settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    note = models.CharField("یادداشت", max_length=300, blank=True)
    created_by = models.ForeignKey(
        django_settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )

    objects = WorkspaceQuerySet.as_manager()

    class Meta:
        ordering = ["workflow_id", "-version_number"]
        verbose_name = "نسخه گردش‌کار"
        verbose_name_plural = "نسخه‌های گردش‌کار"
        constraints = [
            models.UniqueConstraint(fields=["workflow", "version_number"], name="wfversion_unique_number"),
            models.UniqueConstraint(
                fields=["workflow"], condition=Q(status="draft"), name="wfversion_one_draft_per_workflow"
            ),
        ]

    def __str__(self) -> str:
        return f"نسخهٔ {fa_digits(self.version_number)} ({self.get_status_display()})"

    def clean(self) -> None:
        super().clean()
        from campaigns.platform.integrity import require_same_workspace

        require_same_workspace(self, "workflow")

    def save(self, *args, **kwargs):
        if self.pk:
            stored = type(self).objects.filter(pk=self.pk).values("status", "settings").first()
            if stored and stored["status"] != VersionStatus.DRAFT:
                # Only published → superseded may change; the graph and settings are frozen.
                if stored["settings"] != self.settings or self.status == VersionStatus.DRAFT:
                    raise ImmutableError("a published workflow version cannot change")
        super().save(*args, **kwargs)

    def delete(self, *args, **kwargs):
        if self.status != VersionStatus.DRAFT:
            raise ImmutableError("a published workflow version cannot be deleted")
        return super().delete(*args, **kwargs)


class _DraftOnly(models.Model):
    """Nodes and edges may be written only while their version is a draft."""

    class Meta:
        abstract = True

    def save(self, *args, **kwargs):
        self._check_draft()
        super().save(*args, **kwargs)

    def delete(self, *args, **kwargs):
        self._check_draft()
        return super().delete(*args, **kwargs)

    def _check_draft(self) -> None:
        status = WorkflowVersion.objects.filter(pk=self.version_id).values_list("status", flat=True).first()
        if status is not None and status != VersionStatus.DRAFT:
            raise ImmutableError("nodes and edges of a published version cannot change")


class WorkflowNode(_DraftOnly, TimeStamped):
    """A step of a version; ``node_key`` is stable across versions."""

    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="+")
    version = models.ForeignKey(WorkflowVersion, on_delete=models.CASCADE, related_name="nodes")
    node_key = models.CharField("کلید گام", max_length=40)
    # Any key registered in automation.engine.nodes.NODE_TYPES (checked by the validator and the draft check).
    type = models.CharField("نوع", max_length=16)
    subtype = models.CharField("زیرنوع", max_length=50)
    name = models.CharField("نام", max_length=200, blank=True)
    config = models.JSONField("پیکربندی", default=dict, blank=True)
    consumes_budget = models.BooleanField("مصرف سقف روزانه", default=False)
    is_enabled = models.BooleanField("فعال", default=True)
    position_x = models.IntegerField(null=True, blank=True)
    position_y = models.IntegerField(null=True, blank=True)

    objects = WorkspaceQuerySet.as_manager()

    class Meta:
        ordering = ["version_id", "id"]
        verbose_name = "گام گردش‌کار"
        verbose_name_plural = "گام‌های گردش‌کار"
        constraints = [models.UniqueConstraint(fields=["version", "node_key"], name="wfnode_unique_key")]

    def __str__(self) -> str:
        return f"{self.node_key} ({self.type}/{self.subtype})"

    def clean(self) -> None:
        super().clean()
        from campaigns.platform.integrity import require_same_workspace

        require_same_workspace(self, "version")


class WorkflowEdge(_DraftOnly, TimeStamped):
    """A connection from one node's port to another node."""

    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="+")
    version = models.ForeignKey(WorkflowVersion, on_delete=models.CASCADE, related_name="edges")
    from_node = models.ForeignKey(WorkflowNode, on_delete=models.CASCADE, related_name="out_edges")
    to_node = models.ForeignKey(WorkflowNode, on_delete=models.CASCADE, related_name="in_edges")
    # A port the source node's type declares (NODE_TYPES); checked by the validator.
    port = models.CharField("درگاه", max_length=30, default=Port.DEFAULT)
    label = models.CharField("برچسب", max_length=100, blank=True)

    objects = WorkspaceQuerySet.as_manager()

    class Meta:
        ordering = ["version_id", "id"]
        verbose_name = "اتصال گردش‌کار"
        verbose_name_plural = "اتصال‌های گردش‌کار"
        constraints = [models.UniqueConstraint(fields=["from_node", "port"], name="wfedge_unique_port")]

    def __str__(self) -> str:
        return f"پیوند گام {fa_digits(self.from_node_id)} به {fa_digits(self.to_node_id)} ({port_label(self.port)})"

    def clean(self) -> None:
        super().clean()
        from campaigns.platform.integrity import require_same_workspace

        extra = {}
        node_versions = dict(
            WorkflowNode.objects.filter(pk__in=[self.from_node_id, self.to_node_id]).values_list("id", "version_id")
        )
        for name in ("from_node", "to_node"):
            version_id = node_versions.get(getattr(self, f"{name}_id"))
            if version_id is not None and self.version_id and version_id != self.version_id:
                extra[name] = ["این گام از نسخه دیگری است."]
        require_same_workspace(self, "version", "from_node", "to_node", extra=extra)


class WorkflowTemplate(TimeStamped):
    """A workspace's reusable graph (copied with fresh node keys on use)."""

    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="workflow_templates")
    name = models.CharField("نام", max_length=200)
    description = models.TextField("توضیحات", blank=True)
    definition = models.JSONField("تعریف", default=dict, blank=True)
    created_by = models.ForeignKey(django_settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True)
    deleted_at = models.DateTimeField("حذف", null=True, blank=True)

    objects = WorkspaceQuerySet.as_manager()

    class Meta:
        ordering = ["name", "id"]
        verbose_name = "قالب گردش‌کار"
        verbose_name_plural = "قالب‌های گردش‌کار"

    def __str__(self) -> str:
        return self.name


class WorkflowTextChange(models.Model):
    """Append-only audit of a step's message text changing when a draft is saved (who, old, new)."""

    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="+")
    workflow = models.ForeignKey(Workflow, on_delete=models.CASCADE, related_name="text_changes", db_index=False)
    version = models.ForeignKey(WorkflowVersion, on_delete=models.CASCADE, related_name="text_changes")
    node_key = models.CharField("کلید گام", max_length=40)
    user = models.ForeignKey(
        django_settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, verbose_name="کاربر"
    )
    old_text = models.TextField("متن قبلی", blank=True)
    new_text = models.TextField("متن تازه", blank=True)
    changed_at = models.DateTimeField("زمان", auto_now_add=True)

    objects = WorkspaceQuerySet.as_manager()

    class Meta:
        ordering = ["-changed_at", "-id"]
        verbose_name = "تغییر متن پیامک"
        verbose_name_plural = "تغییرات متن پیامک"
        indexes = [models.Index(fields=["workflow", "changed_at"], name="wftextchange_workflow")]

    def __str__(self) -> str:
        return f"{self.workflow_id}/{self.node_key}"

    def save(self, *args, **kwargs):
        if self.pk:
            raise ImmutableError("text change audit rows are append-only")
        super().save(*args, **kwargs)

    def delete(self, *args, **kwargs):
        raise ImmutableError("text change audit rows are append-only")

    def clean(self) -> None:
        super().clean()
        from campaigns.platform.integrity import require_same_workspace

        extra = {}
        if self.workflow_id and self.version_id and self.version.workflow_id != self.workflow_id:
            extra["version"] = ["نسخه از همین گردش‌کار باشد."]
        require_same_workspace(self, "workflow", "version", extra=extra)


class CampaignJourney(TimeStamped):
    """The journey side of a campaign: its workflow and the version pinned when it was created.

    One row per journey campaign (the primary key is the campaign). Publishing a newer
    version never changes a campaign; a version migration (staff moving its executions) pins the newer one.
    The campaign's channel-neutral fields (starts/ends,
    daily limit, send window, journey settings, pause stamps) stay on ``Campaign``.
    """

    campaign = models.OneToOneField(
        "campaigns.Campaign", primary_key=True, related_name="journey", on_delete=models.CASCADE
    )
    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="+")
    workflow = models.ForeignKey(
        Workflow, verbose_name="گردش‌کار", on_delete=models.PROTECT, related_name="campaign_journeys"
    )
    workflow_version = models.ForeignKey(
        WorkflowVersion, verbose_name="نسخه گردش‌کار", on_delete=models.PROTECT, related_name="campaign_journeys"
    )

    objects = WorkspaceQuerySet.as_manager()

    class Meta:
        ordering = ["-campaign_id"]
        verbose_name = "سفر کمپین"
        verbose_name_plural = "سفرهای کمپین"

    def __str__(self) -> str:
        return f"مسیر کمپین {fa_digits(self.campaign_id)}"

    def clean(self) -> None:
        super().clean()
        from campaigns.platform.integrity import require_same_workspace

        extra = {}
        if self.workflow_version_id and self.workflow_id:
            versions = WorkflowVersion.objects.filter(pk=self.workflow_version_id)
            version_workflow = versions.values_list("workflow_id", flat=True).first()
            if version_workflow is not None and version_workflow != self.workflow_id:
                extra["workflow_version"] = ["این نسخه از گردش‌کار انتخاب‌شده نیست."]
        require_same_workspace(self, "campaign", "workflow", "workflow_version", extra=extra)


class AutomationSettings(TimeStamped):
    """Per-workspace engine settings (one row per workspace)."""

    workspace = models.OneToOneField(Workspace, on_delete=models.CASCADE, related_name="automation_settings")
    enabled = models.BooleanField("فعال", default=True)
    timezone = models.CharField("منطقه زمانی", max_length=64, blank=True)
    default_send_window = models.JSONField("بازه ارسال پیش‌فرض", null=True, blank=True)
    global_daily_limit = models.PositiveIntegerField("سقف روزانه کل", null=True, blank=True)

    objects = WorkspaceQuerySet.as_manager()

    class Meta:
        ordering = ["workspace_id"]
        verbose_name = "تنظیمات اتوماسیون"
        verbose_name_plural = "تنظیمات اتوماسیون"

    def __str__(self) -> str:
        return f"تنظیمات خودکارسازی فضای کاری {fa_digits(self.workspace_id)}"


class Execution(TimeStamped):
    """One subject's run through a pinned workflow version inside a campaign (never deleted)."""

    # Foreign keys covered by the composite indexes below (or never filtered on) get no index of their own:
    # every index is rewritten on each step (hot path, see docs/journeys.md "Benchmark").
    # The workspace, workflow and subject type are copies (of the campaign's workspace, of the version's
    # workflow, of the campaign's target type) with no reference check of their own: the campaign and version
    # keys keep theirs and hold the copies in place (docs/journeys.md "Decisions"); Django applies on_delete.
    workspace = models.ForeignKey(
        Workspace, on_delete=models.CASCADE, related_name="+", db_index=False, db_constraint=False
    )
    campaign = models.ForeignKey(
        "campaigns.Campaign", on_delete=models.PROTECT, related_name="executions", db_index=False
    )
    # DO_NOTHING: the database's FK constraint on the version (and the node) refuses deleting a referenced row
    # (a workflow's deletion reaches its versions); Django must not scan this table (unindexed FK) whenever a
    # draft graph is rewritten.
    workflow = models.ForeignKey(
        Workflow, on_delete=models.DO_NOTHING, related_name="executions", db_index=False, db_constraint=False
    )
    version = models.ForeignKey(WorkflowVersion, on_delete=models.DO_NOTHING, related_name="executions", db_index=False)
    subject_type = models.ForeignKey(
        ContentType, on_delete=models.PROTECT, related_name="+", db_index=False, db_constraint=False
    )
    subject_id = models.BigIntegerField("شناسه موضوع")
    current_node = models.ForeignKey(
        WorkflowNode, on_delete=models.DO_NOTHING, null=True, blank=True, related_name="+", db_index=False
    )
    # Denormalised from current_node.consumes_budget so the scheduler's two selections need no join.
    needs_budget = models.BooleanField("نیازمند سقف", default=False)
    # Its last step was put off by the daily limit (written with every step's outcome): the dashboard's
    # "queued for sending" is an index count of these, not a look at every waiting execution's last event.
    # A database default too: a writer that does not know the column yet (a process of the previous release
    # during a deploy) inserts false.
    deferred_by_limit = models.BooleanField("منتظر سقف روزانه", default=False, db_default=False)
    cycle = models.PositiveIntegerField("دور", default=1)
    status = FSMField("وضعیت", max_length=16, choices=ExecutionStatus.choices, default=S.PENDING)
    eligible_at = models.DateTimeField("اولین زمان مجاز", null=True, blank=True)
    next_run_at = models.DateTimeField("اجرای بعدی", null=True, blank=True)
    node_entered_at = models.DateTimeField("ورود به گام", null=True, blank=True)
    started_at = models.DateTimeField(null=True, blank=True)
    last_run_at = models.DateTimeField(null=True, blank=True)
    completed_at = models.DateTimeField(null=True, blank=True)
    paused_at = models.DateTimeField(null=True, blank=True)
    paused_from_status = models.CharField(max_length=16, blank=True)
    end_reason = models.CharField("دلیل پایان", max_length=40, blank=True)
    retry_count = models.PositiveIntegerField("تلاش دوباره", default=0)
    revision = models.PositiveIntegerField("نسخه", default=1)
    lock_token = models.UUIDField(null=True, blank=True)
    locked_at = models.DateTimeField(null=True, blank=True)
    last_error = models.TextField(blank=True)
    metadata = models.JSONField(default=dict, blank=True)

    objects = WorkspaceQuerySet.as_manager()

    class Meta:
        ordering = ["-id"]
        verbose_name = "اجرا"
        verbose_name_plural = "اجراها"
        constraints = [
            models.UniqueConstraint(
                fields=["campaign", "subject_type", "subject_id"],
                condition=Q(status__in=[s.value for s in LIVE_STATUSES]),
                name="execution_one_live_per_subject",
            ),
        ]
        indexes = [
            # Partial where every reader's filter allows it (reaper, health: live statuses), so a finished execution
            # adds no entry on the step's last write. Nothing looks executions up by lock token (the job's claim and
            # the lease find their rows by id and compare the token), so the token has no index.
            models.Index(
                fields=["status", "next_run_at"],
                name="exec_status_next",
                condition=Q(status__in=[s.value for s in LIVE_STATUSES]),
            ),
            # needs_budget last: the tick's two selections and the dashboard's next sends filter on it in the index
            # (no heap fetch for the rows of the other kind) and still read each status in next_run_at order.
            models.Index(
                fields=["campaign", "status", "next_run_at", "needs_budget"], name="exec_campaign_status_budget"
            ),
            models.Index(fields=["workspace", "subject_type", "subject_id", "status"], name="exec_ws_subject"),
            # The dashboard's "queued for sending": an index-only count of the few rows the limit put off.
            models.Index(
                fields=["campaign", "workspace"],
                name="exec_campaign_limit_deferred",
                condition=Q(status=S.WAITING, needs_budget=True, deferred_by_limit=True),
            ),
            # The dashboard's "ended with the campaign" (its live part is polled): an index-only count of those rows
            # instead of reading every cancelled execution of the campaign (4,000 at full scale: 20–40 ms).
            models.Index(
                fields=["campaign", "workspace"],
                name="exec_campaign_ended",
                condition=Q(status=S.CANCELLED, end_reason=EndReason.CAMPAIGN_ENDED),
            ),
        ]

    @property
    def status_label(self) -> str:
        """The status for people (a journey its campaign's end closed reads finished, not cancelled)."""
        return execution_status_label(self.status, self.end_reason)

    @property
    def status_badge(self) -> str:
        return execution_status_badge(self.status, self.end_reason)

    def __str__(self) -> str:
        return f"اجرای مسیر {fa_digits(self.pk)} ({self.get_status_display()})"

    def clean(self) -> None:
        super().clean()
        from campaigns.platform.integrity import require_same_workspace, subject_errors

        require_same_workspace(self, "campaign", "workflow", "version", "current_node", extra=subject_errors(self))

    # --- transitions (memory only; persisted by automation.engine.transitions.apply) ---
    @transition(field=status, source=S.PENDING, target=S.ACTIVE)
    def activate(self) -> None:
        """The campaign started."""

    @transition(field=status, source=[S.ACTIVE, S.WAITING], target=S.QUEUED)
    def claim(self) -> None:
        """Scheduler claim (bulk UPDATE in the hot path)."""

    @transition(field=status, source=S.QUEUED, target=S.PROCESSING)
    def start_processing(self) -> None:
        """Worker CAS on the lock token."""

    @transition(field=status, source=[S.QUEUED, S.PROCESSING], target=S.WAITING)
    def reap(self) -> None:
        """Lease expired."""

    @transition(field=status, source=S.PROCESSING, target=S.WAITING)
    def wait(self) -> None:
        """Wait, retry or deferral."""

    @transition(field=status, source=S.PROCESSING, target=S.ACTIVE)
    def ready(self) -> None:
        """Next step is due and allowed (the scheduler budgets it)."""

    @transition(field=status, source=S.PROCESSING, target=S.COMPLETED)
    def complete(self) -> None:
        """Reached an end."""

    @transition(field=status, source=[S.PROCESSING], target=S.FAILED)
    def fail(self) -> None:
        """Retries exhausted with on_exhausted=fail."""

    @transition(field=status, source=[S.PROCESSING, S.ACTIVE, S.WAITING], target=S.BLACKLISTED)
    def blacklist(self) -> None:
        """The recipient is blacklisted."""

    @transition(
        field=status, source=[S.PENDING, S.ACTIVE, S.WAITING, S.PAUSED, S.PROCESSING, S.QUEUED], target=S.CANCELLED
    )
    def cancel(self) -> None:
        """Removed, campaign ended, target deleted or stop status reached."""

    @transition(field=status, source=[S.ACTIVE, S.WAITING, S.PENDING], target=S.PAUSED)
    def pause(self) -> None:
        """Per-target pause."""

    @transition(field=status, source=S.PAUSED, target=RETURN_VALUE(S.WAITING, S.ACTIVE, S.PENDING))
    def resume(self) -> str:
        """Back to the status it was paused from."""
        return self.paused_from_status if self.paused_from_status in (S.WAITING, S.ACTIVE, S.PENDING) else S.ACTIVE

    @transition(field=status, source=S.PROCESSING, target=S.PAUSED)
    def hold(self) -> None:
        """on_unknown_outcome=hold: a person decides."""

    @transition(field=status, source=[S.BLACKLISTED, S.FAILED, S.COMPLETED], target=S.ACTIVE)
    def restart(self) -> None:
        """Manual resume after un-blacklisting, retry of a failed step, or a new cycle."""


# A step that ended without running: skipped, or the journey stopped there (blacklisted, cancelled). Channel
# logs list these next to their attempts (the SMS log's skipped / blacklisted / cancelled rows); a partial index
# keeps those reads off the rest of the timeline.
# The guard's own «blacklisted» note (no transition) is left out: the transition's row that follows says it.
STEP_OUTCOME_EVENTS = (
    Q(type=EventType.SKIPPED) | Q(to_status__in=[ExecutionStatus.BLACKLISTED, ExecutionStatus.CANCELLED])
) & ~Q(type=EventType.BLACKLISTED, to_status="")


class ExecutionEvent(models.Model):
    """Append-only timeline row (the model refuses updates and deletes)."""

    # Append-heavy: only the campaign FK keeps its own index; the others are covered by the composites below.
    # No key of an event row carries a database constraint (journeys.md "Decisions"): workspace, campaign and
    # subject type are copies of the execution's own, the execution is the row its writer just read or wrote
    # (executions are never deleted) and the node comes from the execution's published, immutable graph. The
    # deferred reference checks (one per key per row, run at commit) were the largest part of the engine's
    # commits. Django still applies every on_delete.
    workspace = models.ForeignKey(
        Workspace, on_delete=models.CASCADE, related_name="+", db_index=False, db_constraint=False
    )
    execution = models.ForeignKey(
        Execution, on_delete=models.PROTECT, related_name="events", db_index=False, db_constraint=False
    )
    # Indexed with the time (exevent_campaign_time): a campaign's log newest first, its last days' series.
    campaign = models.ForeignKey(
        "campaigns.Campaign", on_delete=models.PROTECT, related_name="+", db_constraint=False, db_index=False
    )
    subject_type = models.ForeignKey(
        ContentType, on_delete=models.PROTECT, related_name="+", db_index=False, db_constraint=False
    )
    subject_id = models.BigIntegerField()
    node = models.ForeignKey(
        WorkflowNode,
        on_delete=models.DO_NOTHING,
        null=True,
        blank=True,
        related_name="+",
        db_index=False,
        db_constraint=False,
    )
    type = models.CharField("نوع", max_length=30, choices=EventType.choices)
    from_status = models.CharField(max_length=16, blank=True)
    to_status = models.CharField(max_length=16, blank=True)
    message = models.CharField("پیام", max_length=500, blank=True)
    data = models.JSONField(default=dict, blank=True)
    # Almost every row is the engine's (no actor): a partial index serves SET_NULL on a user's deletion.
    actor = models.ForeignKey(
        django_settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, db_index=False
    )
    occurred_at = models.DateTimeField("زمان")

    objects = WorkspaceQuerySet.as_manager()

    class Meta:
        ordering = ["-occurred_at", "-id"]
        verbose_name = "رویداد اجرا"
        verbose_name_plural = "رویدادهای اجرا"
        indexes = [
            models.Index(fields=["workspace", "subject_type", "subject_id", "occurred_at"], name="exevent_subject"),
            models.Index(fields=["execution", "occurred_at"], name="exevent_execution"),
            models.Index(fields=["campaign", "occurred_at"], name="exevent_campaign_time"),
            models.Index(fields=["actor"], name="exevent_actor", condition=Q(actor__isnull=False)),
            # The log's filters read from the index alone (a count of 10,000 rows visits no table page).
            models.Index(
                fields=["workspace", "occurred_at"],
                name="exevent_step_outcomes",
                condition=STEP_OUTCOME_EVENTS,
                include=["node", "campaign", "subject_id", "type", "to_status"],
            ),
            # The same rows for the log filtered by campaign: newest first within the campaign, so a page stops after
            # its rows instead of filtering every event of the campaign's months.
            models.Index(
                fields=["campaign", "occurred_at"],
                name="exevent_campaign_outcomes",
                condition=STEP_OUTCOME_EVENTS,
                include=["node", "subject_id", "type", "to_status"],
            ),
        ]

    def __str__(self) -> str:
        return f"رویداد اجرای مسیر {fa_digits(self.execution_id)}: {self.get_type_display()}"

    def save(self, *args, **kwargs):
        if self.pk:
            raise ImmutableError("execution events are append-only")
        super().save(*args, **kwargs)

    def delete(self, *args, **kwargs):
        raise ImmutableError("execution events are append-only")

    def clean(self) -> None:
        super().clean()
        from campaigns.platform.integrity import require_same_workspace, subject_errors

        require_same_workspace(self, "execution", "campaign", "node", extra=subject_errors(self))


class JourneyCount(models.Model):
    """A journey campaign's numbers, kept by database triggers in the same transaction as the writes that change
    them (``automation.journey_counts``): executions per status (``key`` "status:<status>", no ``slot``), live
    executions per step ("at:<node id>:<status>:<needs budget 0/1>") and the sends that failed, retries and
    unknown outcomes per 15-minute ``slot`` (UTC; folded into one row without a slot once older than the
    dashboard's series). Rows are deltas, only ever inserted by the
    writers (no row lock shared between workers); a beat job folds them, a number is the sum of its rows.
    Campaign and workspace are plain numbers: a campaign's deletion writes its last deltas, never blocked by a
    reference."""

    workspace_id = models.BigIntegerField("فضای کاری")
    campaign_id = models.BigIntegerField("کمپین")
    key = models.CharField("شمارنده", max_length=32)
    slot = models.DateTimeField("بازه", null=True, blank=True)
    n = models.BigIntegerField("تعداد")

    objects = WorkspaceQuerySet.as_manager()

    class Meta:
        verbose_name = "شمارنده سفر"
        verbose_name_plural = "شمارنده‌های سفر"
        indexes = [models.Index(fields=["campaign_id", "key", "slot"], name="journeycount_campaign_key")]

    def __str__(self) -> str:
        return f"{self.campaign_id} {self.key} {self.slot or ''} {self.n:+}"


class DailyCounter(models.Model):
    """Units used per scope and workspace calendar day (atomic reserve/release)."""

    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="+")
    scope = models.CharField("دامنه", max_length=16, choices=CounterScope.choices)
    scope_id = models.BigIntegerField()
    channel = models.CharField("کانال", max_length=20)
    day = models.DateField("روز")
    used = models.PositiveIntegerField("مصرف", default=0)

    objects = WorkspaceQuerySet.as_manager()

    class Meta:
        ordering = ["-day", "scope", "scope_id"]
        verbose_name = "شمارنده روزانه"
        verbose_name_plural = "شمارنده‌های روزانه"
        constraints = [
            models.UniqueConstraint(fields=["scope", "scope_id", "channel", "day"], name="dailycounter_unique"),
        ]

    def __str__(self) -> str:
        scope = f"{self.get_scope_display()} {fa_digits(self.scope_id)}"
        return f"شمار روزانهٔ {scope}، {fa_digits(self.day)}: {fa_digits(self.used)}"


class EnrollmentBatch(TimeStamped):
    """One review of subjects before they join a campaign (journeys.md "Enrollment and conflicts").

    Preview writes the batch and one item per subject (its class); decisions are kept on the batch
    (default) and the items (overrides) between requests; commit re-checks conflicts, and the job checks
    every subject as it adds it. Only a draft is committed (conditional UPDATE); a background commit holds
    a lease the beat job watches, so a dead worker never leaves a batch "committing" for ever.
    """

    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="+")
    campaign = models.ForeignKey("campaigns.Campaign", on_delete=models.CASCADE, related_name="enrollment_batches")
    status = models.CharField("وضعیت", max_length=16, choices=BatchStatus.choices, default=BatchStatus.DRAFT)
    source = models.CharField("منبع", max_length=16, default="manual")
    filters = models.JSONField("فیلتر", default=dict, blank=True)
    default_decision = models.CharField("تصمیم پیش‌فرض", max_length=8, choices=Decision.choices, blank=True)
    counts = models.JSONField("شمار هر دسته", default=dict, blank=True)
    result = models.JSONField("نتیجه", default=dict, blank=True)
    total = models.PositiveIntegerField("کل برای افزودن", default=0)
    processed = models.PositiveIntegerField("پردازش‌شده", default=0)
    lease_until = models.DateTimeField("مهلت اجرا", null=True, blank=True)
    attempts = models.PositiveSmallIntegerField("دفعات اجرا", default=0)
    error = models.TextField("خطا", blank=True)
    committed_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    created_by = models.ForeignKey(
        django_settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )

    objects = WorkspaceQuerySet.as_manager()

    class Meta:
        ordering = ["-id"]
        verbose_name = "دسته افزودن مخاطب"
        verbose_name_plural = "دسته‌های افزودن مخاطب"
        indexes = [models.Index(fields=["status", "lease_until"], name="enrollbatch_status_lease")]

    def __str__(self) -> str:
        return f"دستهٔ ثبت‌نام {fa_digits(self.pk)} ({self.get_status_display()})"

    def clean(self) -> None:
        super().clean()
        from campaigns.platform.integrity import require_same_workspace

        require_same_workspace(self, "campaign")


class EnrollmentItem(models.Model):
    """One subject of a batch: its class at the last check, the conflicting journeys, decision, outcome."""

    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="+", db_index=False)
    batch = models.ForeignKey(EnrollmentBatch, on_delete=models.CASCADE, related_name="items", db_index=False)
    subject_id = models.BigIntegerField("شناسه مخاطب")
    klass = models.CharField("دسته", max_length=16, choices=EnrollmentClass.choices)
    reason = models.CharField("دلیل", max_length=40, blank=True)
    conflicts = models.JSONField("سفرهای دیگر", default=list, blank=True)
    decision = models.CharField("تصمیم", max_length=8, choices=Decision.choices, blank=True)
    outcome = models.CharField("نتیجه", max_length=24, blank=True)

    objects = WorkspaceQuerySet.as_manager()

    class Meta:
        ordering = ["batch_id", "subject_id"]
        verbose_name = "مخاطب دسته"
        verbose_name_plural = "مخاطبان دسته"
        constraints = [models.UniqueConstraint(fields=["batch", "subject_id"], name="enrollitem_unique_subject")]
        indexes = [models.Index(fields=["batch", "klass", "subject_id"], name="enrollitem_batch_class")]

    def __str__(self) -> str:
        return f"ردیف {fa_digits(self.subject_id)} دستهٔ ثبت‌نام {fa_digits(self.batch_id)} ({self.get_klass_display()})"

    def clean(self) -> None:
        super().clean()
        from campaigns.platform.integrity import require_same_workspace

        require_same_workspace(self, "batch")


class AutoEnrollRule(TimeStamped):
    """A campaign's rule that brings new matching targets in (every 5 minutes while it runs).

    ``cursor`` is the last target id examined (each target once); ``since`` limits the rule to targets
    created after it was switched on unless ``include_existing``. ``running_until`` is the lease that
    keeps two checks of one rule from running at once.
    """

    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="+")
    campaign = models.OneToOneField("campaigns.Campaign", on_delete=models.CASCADE, related_name="auto_enroll_rule")
    enabled = models.BooleanField("فعال", default=True)
    filters = models.JSONField("شرط‌ها", default=dict, blank=True)
    filters_hash = models.CharField(max_length=64, blank=True)
    include_existing = models.BooleanField("شامل مخاطبان موجود", default=False)
    since = models.DateTimeField("از زمان", null=True, blank=True)
    cursor = models.BigIntegerField("آخرین شناسه بررسی‌شده", default=0)
    daily_cap = models.PositiveIntegerField("سقف روزانه", default=200)
    # Enrolled on ``day`` (the workspace's calendar day); a check on a later day starts from zero.
    day = models.DateField("روز شمارش", null=True, blank=True)
    day_count = models.PositiveIntegerField("افزوده در آن روز", default=0)
    running_until = models.DateTimeField(null=True, blank=True)
    last_check_at = models.DateTimeField("آخرین بررسی", null=True, blank=True)
    last_check = models.JSONField("آمار آخرین بررسی", default=dict, blank=True)
    updated_by = models.ForeignKey(
        django_settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )

    objects = WorkspaceQuerySet.as_manager()

    class Meta:
        ordering = ["campaign_id"]
        verbose_name = "قاعده افزودن خودکار"
        verbose_name_plural = "قاعده‌های افزودن خودکار"

    def __str__(self) -> str:
        return f"ثبت‌نام خودکار کمپین {fa_digits(self.campaign_id)}"

    @property
    def last_useful_at(self):
        """When the check that ``last_check`` describes ran (the last one that examined somebody)."""
        from django.utils.dateparse import parse_datetime

        return parse_datetime(self.last_check["at"]) if self.last_check.get("at") else None

    def clean(self) -> None:
        super().clean()
        from campaigns.platform.integrity import require_same_workspace

        require_same_workspace(self, "campaign")


class VersionMigration(TimeStamped):
    """Moving the live executions of one workflow version to a newer one (journeys.md "Live edits").

    The primary key is derived from the plan itself (old and new version, campaign scope, the choice per old
    node, how waits are timed), so committing the same plan twice finds this row and moves nobody twice. The
    background job moves the executions in chunks (one statement each), renewing ``lease_until``;
    ``processed`` of ``total`` is the progress, ``result`` the counts (moved, exited, busy, held).
    """

    id = models.UUIDField(primary_key=True, editable=False)
    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="+")
    workflow = models.ForeignKey(Workflow, on_delete=models.CASCADE, related_name="migrations")
    from_version = models.ForeignKey(
        WorkflowVersion, verbose_name="از نسخهٔ", on_delete=models.PROTECT, related_name="+"
    )
    to_version = models.ForeignKey(WorkflowVersion, verbose_name="به نسخهٔ", on_delete=models.PROTECT, related_name="+")
    # Only this campaign's executions (null: every campaign of the old version).
    campaign = models.ForeignKey(
        "campaigns.Campaign", on_delete=models.CASCADE, null=True, blank=True, related_name="+"
    )
    kind = models.CharField("نوع", max_length=16, choices=MigrationKind.choices, default=MigrationKind.PLAN)
    # [{"node_key", "choice", "to_node_key"}] for every old node with a choice other than "stay".
    plan = models.JSONField("برنامه", default=list, blank=True)
    recompute_waits = models.BooleanField("محاسبهٔ دوبارهٔ انتظارها", default=False)
    status = models.CharField("وضعیت", max_length=16, choices=MigrationStatus.choices, default=MigrationStatus.RUNNING)
    total = models.PositiveIntegerField("کل", default=0)
    processed = models.PositiveIntegerField("پردازش‌شده", default=0)
    result = models.JSONField("نتیجه", default=dict, blank=True)
    lease_until = models.DateTimeField("مهلت اجرا", null=True, blank=True)
    attempts = models.PositiveSmallIntegerField("دفعات اجرا", default=0)
    finished_at = models.DateTimeField(null=True, blank=True)
    created_by = models.ForeignKey(
        django_settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )

    objects = WorkspaceQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at"]
        verbose_name = "انتقال به نسخهٔ تازه"
        verbose_name_plural = "انتقال‌ها به نسخهٔ تازه"
        indexes = [models.Index(fields=["status", "lease_until"], name="versionmigration_status_lease")]

    def __str__(self) -> str:
        return f"انتقال اجراها {fa_digits(self.pk)} ({self.get_status_display()})"

    def clean(self) -> None:
        super().clean()
        from campaigns.platform.integrity import require_same_workspace

        require_same_workspace(self, "workflow", "from_version", "to_version", "campaign")
