"""The audience (targets, lists, imports) and the one Campaign table; tenancy lives in the kernel
(``campaigns.platform.models``).

Group, chain and run models import this module (never the ``campaigns.models`` package, which gathers
them all for Django's registry), so the models import in one direction.
"""

from django.conf import settings
from django.db import models
from django.db.models import Q
from django_fsm import FSMField, transition

from campaigns.campaign_journey_fields import CampaignJourneyFields
from campaigns.choices import (
    CampaignEventType,
    CampaignKind,
    CampaignStatus,
    ImportOutcome,
    ImportStatus,
    TargetStatus,
    WorkspaceSettingsEventType,
)
from campaigns.platform.channels import campaign_kind_choices
from campaigns.platform.events import WorkspaceEvent
from campaigns.platform.integrity import MSG_NOT_MEMBER, require_same_workspace
from campaigns.platform.jalali import fa_digits
from campaigns.platform.models import Membership, TimeStamped, Workspace, WorkspaceQuerySet
from campaigns.platform.search import search_digits


class TargetList(TimeStamped):
    """A named list of targets (many-to-many)."""

    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="target_lists")
    name = models.CharField("نام", max_length=120)
    description = models.CharField("توضیحات", max_length=500, blank=True)

    objects = WorkspaceQuerySet.as_manager()

    class Meta:
        ordering = ["name", "id"]
        verbose_name = "فهرست مخاطبان"
        verbose_name_plural = "فهرست‌های مخاطبان"
        constraints = [models.UniqueConstraint(fields=["workspace", "name"], name="targetlist_unique_name")]

    def __str__(self) -> str:
        return self.name


class TargetListSize(models.Model):
    """How many live (not deleted) targets a list holds, kept exact by database triggers in the same transaction
    as every write that changes it: a membership added or removed (services, import, admin, bulk ``COPY``), a
    target deleted, soft-deleted or restored (``campaigns.platform.list_sizes``). Lists read it instead of
    counting their members; ``manage.py target_list_sizes`` recomputes it."""

    target_list = models.OneToOneField(TargetList, on_delete=models.CASCADE, primary_key=True, related_name="size")
    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="+")
    members = models.BigIntegerField("اعضا", default=0)

    objects = WorkspaceQuerySet.as_manager()

    class Meta:
        verbose_name = "اندازه فهرست"
        verbose_name_plural = "اندازه فهرست‌ها"

    def __str__(self) -> str:
        return f"{self.target_list_id}: {self.members}"

    def clean(self) -> None:
        super().clean()
        require_same_workspace(self, "target_list")


class Target(TimeStamped):
    """A person or business the campaigns reach (mobile and/or landline)."""

    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="targets")
    name = models.CharField("نام", max_length=200)
    first_name = models.CharField("نام کوچک", max_length=100, blank=True)
    last_name = models.CharField("نام خانوادگی", max_length=100, blank=True)
    mobile = models.CharField("موبایل", max_length=20, null=True, blank=True, help_text="E.164")
    landline = models.CharField("تلفن ثابت", max_length=20, null=True, blank=True, help_text="E.164")
    status = models.CharField("وضعیت", max_length=20, choices=TargetStatus.choices, default=TargetStatus.NEW)
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name="مسئول",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="owned_targets",
    )
    province = models.CharField("استان", max_length=80, blank=True)
    city = models.CharField("شهر", max_length=80, blank=True)
    priority = models.IntegerField("اولویت", default=0)
    lists = models.ManyToManyField(TargetList, verbose_name="فهرست‌ها", related_name="targets", blank=True)
    attributes = models.JSONField("ویژگی‌ها", default=dict, blank=True)
    deleted_at = models.DateTimeField("حذف", null=True, blank=True)
    # Names and numbers in the folded form searches compare in (campaigns.platform.search); written on every
    # save. PostgreSQL: a pg_trgm GIN index (migration 0006), so a fragment search is an index scan.
    search_text = models.TextField("متن جستجو", blank=True, default="", editable=False)
    # Bumped by every save of an existing row: ``If-Match`` on an update names the revision it read (409 if stale).
    revision = models.PositiveIntegerField("نسخه", default=1, editable=False)

    objects = WorkspaceQuerySet.as_manager()

    SEARCHED = ("name", "first_name", "last_name", "mobile", "landline")

    class Meta:
        ordering = ["-created_at", "-id"]
        verbose_name = "مخاطب"
        verbose_name_plural = "مخاطبان"
        constraints = [
            models.CheckConstraint(
                condition=Q(mobile__isnull=False) | Q(landline__isnull=False), name="target_has_a_phone"
            ),
            models.UniqueConstraint(
                fields=["workspace", "mobile"],
                condition=Q(deleted_at__isnull=True, mobile__isnull=False),
                name="target_unique_mobile",
            ),
            models.UniqueConstraint(
                fields=["workspace", "landline"],
                condition=Q(deleted_at__isnull=True, landline__isnull=False),
                name="target_unique_landline",
            ),
        ]
        indexes = [
            # The list filtered by status, newest first: read in order, no sort of a status's every row.
            models.Index(fields=["workspace", "status", "-created_at"], name="target_ws_status_created"),
            models.Index(fields=["workspace", "-created_at"], name="target_ws_created"),
        ]

    def __str__(self) -> str:
        return self.name

    def save(self, *args, **kwargs) -> None:
        self.refresh_search_text()
        if not self._state.adding:
            self.revision += 1
        update_fields = kwargs.get("update_fields")
        if update_fields is not None:
            searched = {"search_text"} if set(update_fields) & set(self.SEARCHED) else set()
            kwargs["update_fields"] = {*update_fields, *searched, "revision"}
        super().save(*args, **kwargs)

    def refresh_search_text(self) -> "Target":
        """Recompute the search column (``save`` does; call it before ``bulk_create``)."""
        self.search_text = target_search_text(
            name=self.name, first_name=self.first_name, last_name=self.last_name, phones=(self.mobile, self.landline)
        )
        return self

    def clean(self) -> None:
        super().clean()
        not_member = (
            self.owner_id is not None
            and self.workspace_id is not None
            and not Membership.objects.filter(workspace_id=self.workspace_id, user_id=self.owner_id).exists()
        )
        require_same_workspace(self, extra={"owner": [MSG_NOT_MEMBER]} if not_member else None)

    @property
    def display_first_name(self) -> str:
        """First name for messages; falls back to the whole name."""
        return self.first_name or self.name


def target_search_text(*, name: str, first_name: str = "", last_name: str = "", phones=()) -> str:
    """The stored search form of a target: its names folded, then its numbers as digits (E.164 without +)."""
    names = search_digits(" ".join(part for part in (name, first_name, last_name) if part))
    digits = " ".join(phone.lstrip("+") for phone in phones if phone)
    return f"{names} {digits}".strip()


class Campaign(CampaignJourneyFields, TimeStamped):
    """The one campaign table every kind (journey, browser, chains) extends.

    ``status`` only changes through ``campaigns.services.lifecycle.campaign_status_change`` (policies,
    a conditional UPDATE on id + status + revision, a CampaignEvent row, the kind's effects).
    """

    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="campaigns")
    name = models.CharField("نام", max_length=200)
    description = models.TextField("توضیحات", blank=True)
    kind = models.CharField("نوع", max_length=16, choices=campaign_kind_choices, default=CampaignKind.JOURNEY)
    status = FSMField("وضعیت", max_length=24, choices=CampaignStatus.choices, default=CampaignStatus.DRAFT)
    revision = models.PositiveIntegerField("نسخه", default=1)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, verbose_name="ایجادکننده", on_delete=models.SET_NULL, null=True, blank=True
    )
    deleted_at = models.DateTimeField("حذف", null=True, blank=True)

    objects = WorkspaceQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at", "-id"]
        verbose_name = "کمپین"
        verbose_name_plural = "کمپین‌ها"
        indexes = [models.Index(fields=["workspace", "status"], name="campaign_ws_status")]

    def __str__(self) -> str:
        return self.name

    def clean(self) -> None:
        super().clean()
        require_same_workspace(self, "source_target_list")

    # --- the one status FSM (transitions only change memory; persist with campaigns.services.lifecycle) ---
    @transition(field=status, source=[CampaignStatus.DRAFT, CampaignStatus.REJECTED], target=CampaignStatus.SUBMITTED)
    def submit(self) -> None:
        """Ask for approval (workspaces/chains that need it)."""

    @transition(field=status, source=CampaignStatus.SUBMITTED, target=CampaignStatus.SCHEDULED)
    def approve(self) -> None:
        """Approved: waiting for its start time / first run (chain WAITING_SCHEDULE)."""

    @transition(field=status, source=CampaignStatus.SUBMITTED, target=CampaignStatus.REJECTED)
    def reject(self) -> None:
        """Approval refused; editing returns it to draft."""

    @transition(field=status, source=[CampaignStatus.SUBMITTED, CampaignStatus.REJECTED], target=CampaignStatus.DRAFT)
    def return_to_draft(self) -> None:
        """Withdrawn or edited after rejection."""

    @transition(field=status, source=CampaignStatus.DRAFT, target=CampaignStatus.SCHEDULED)
    def schedule(self) -> None:
        """Activated without approval but its start time is in the future."""

    @transition(field=status, source=[CampaignStatus.DRAFT, CampaignStatus.SCHEDULED], target=CampaignStatus.ACTIVE)
    def activate(self) -> None:
        """Start running (chain IN_PROGRESS)."""

    @transition(field=status, source=[CampaignStatus.ACTIVE, CampaignStatus.SCHEDULED], target=CampaignStatus.PAUSED)
    def pause(self) -> None:
        """Hold the campaign; nothing new is sent."""

    @transition(field=status, source=CampaignStatus.PAUSED, target=CampaignStatus.ACTIVE)
    def resume(self) -> None:
        """Continue a paused campaign."""

    @transition(field=status, source=[CampaignStatus.ACTIVE, CampaignStatus.PAUSED], target=CampaignStatus.COMPLETED)
    def complete(self) -> None:
        """Finish the campaign."""

    @transition(field=status, source=CampaignStatus.COMPLETED, target=CampaignStatus.ACTIVE)
    def reopen(self) -> None:
        """Work of a finished campaign was retried (browser: failed tasks sent again)."""

    @transition(
        field=status,
        source=[
            CampaignStatus.DRAFT,
            CampaignStatus.SUBMITTED,
            CampaignStatus.REJECTED,
            CampaignStatus.SCHEDULED,
            CampaignStatus.ACTIVE,
            CampaignStatus.PAUSED,
        ],
        target=CampaignStatus.CANCELLED,
    )
    def cancel(self) -> None:
        """Stop the campaign for good."""


class CampaignEvent(WorkspaceEvent):
    """Append-only history of a campaign (written by ``campaigns.events``)."""

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="events")
    type = models.CharField("نوع", max_length=40, choices=CampaignEventType.choices)
    from_status = models.CharField(max_length=24, blank=True)
    to_status = models.CharField(max_length=24, blank=True)

    objects = WorkspaceQuerySet.as_manager()

    WORKSPACE_RELATIONS = ("campaign",)

    class Meta(WorkspaceEvent.Meta):
        verbose_name = "رویداد کمپین"
        verbose_name_plural = "رویدادهای کمپین"

    def __str__(self) -> str:
        return f"رویداد کمپین {fa_digits(self.campaign_id)}: {self.get_type_display()}"


class WorkspaceSettingsEvent(WorkspaceEvent):
    """Append-only history of a workspace's settings: who changed which ones, with the values before and after
    (``data = {"before": {...}, "after": {...}}``, only the keys that changed; written by ``campaigns.events``)."""

    type = models.CharField("نوع", max_length=40, choices=WorkspaceSettingsEventType.choices)

    objects = WorkspaceQuerySet.as_manager()

    class Meta(WorkspaceEvent.Meta):
        verbose_name = "رویداد تنظیمات فضای کاری"
        verbose_name_plural = "رویدادهای تنظیمات فضای کاری"


class TargetImport(TimeStamped):
    """An uploaded .xlsx/.csv file and its progress; rows report per-line outcomes."""

    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="target_imports")
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True)
    file_name = models.CharField("نام فایل", max_length=255)
    # The file itself stays in the database so any worker machine can read it;
    # it is cleared once the import finishes (no phone lists left lying around).
    content = models.BinaryField("محتوا", null=True, blank=True, editable=False)
    target_list = models.ForeignKey(TargetList, on_delete=models.SET_NULL, null=True, blank=True)
    update_existing = models.BooleanField("به‌روزرسانی موجودها", default=True)
    status = models.CharField("وضعیت", max_length=16, choices=ImportStatus.choices, default=ImportStatus.PENDING)
    total_rows = models.PositiveIntegerField("کل ردیف‌ها", default=0)
    processed_rows = models.PositiveIntegerField("پردازش‌شده", default=0)
    created_count = models.PositiveIntegerField(default=0)
    updated_count = models.PositiveIntegerField(default=0)
    duplicate_count = models.PositiveIntegerField(default=0)
    invalid_count = models.PositiveIntegerField(default=0)
    error = models.CharField("خطا", max_length=500, blank=True)
    # Runs that ended without committing progress (crash, lost worker); the import fails at a cap.
    attempts = models.PositiveSmallIntegerField("تلاش‌های بی‌نتیجه", default=0)
    finished_at = models.DateTimeField(null=True, blank=True)
    # [[header cell, target field or null (a custom attribute)], ...] as the import reads the file.
    column_map = models.JSONField("نگاشت ستون‌ها", default=list, blank=True, editable=False)

    objects = WorkspaceQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at", "-id"]
        verbose_name = "ورود مخاطبان"
        verbose_name_plural = "ورودهای مخاطبان"

    def __str__(self) -> str:
        return self.file_name

    def clean(self) -> None:
        super().clean()
        require_same_workspace(self, "target_list")

    @property
    def progress_percent(self) -> int:
        if not self.total_rows:
            return 100 if self.status == ImportStatus.COMPLETED else 0
        return int(100 * self.processed_rows / self.total_rows)


class TargetImportRow(models.Model):
    """The outcome of one line of an import file."""

    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="+")
    target_import = models.ForeignKey(TargetImport, on_delete=models.CASCADE, related_name="rows")
    row_number = models.PositiveIntegerField("ردیف")
    outcome = models.CharField("نتیجه", max_length=16, choices=ImportOutcome.choices)
    reason = models.CharField("دلیل", max_length=300, blank=True)
    target = models.ForeignKey(Target, on_delete=models.SET_NULL, null=True, blank=True, related_name="+")

    objects = WorkspaceQuerySet.as_manager()

    class Meta:
        ordering = ["target_import_id", "row_number"]
        verbose_name = "ردیف ورود"
        verbose_name_plural = "ردیف‌های ورود"
        constraints = [
            models.UniqueConstraint(fields=["target_import", "row_number"], name="importrow_unique_row"),
        ]

    def __str__(self) -> str:
        return f"ردیف {fa_digits(self.row_number)} ({self.get_outcome_display()})"

    def clean(self) -> None:
        super().clean()
        require_same_workspace(self, "target_import", "target")
