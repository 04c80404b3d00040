"""Browser channel data: accounts (sessions), proxies, campaign platforms, browser tasks.

Status fields are django-fsm-2 fields. Single-row changes go through
``campaigns.platform.fsm.fsm_apply`` (conditional UPDATE on id + status + revision);
the hot bulk paths (claiming a batch, applying a worker result) use
``filter(pk=…, status=…).update(…)`` as the transition, so a lost race or a
duplicate result changes nothing.
"""

from django.conf import settings
from django.db import models
from django.db.models import Q
from django_fsm import RETURN_VALUE, FSMField, transition

from campaigns.models import Campaign, TimeStamped, Workspace, WorkspaceQuerySet
from campaigns.platform.crypto import EncryptedTextField
from campaigns.platform.events import WorkspaceEvent
from campaigns.platform.jalali import fa_digits
from workers.choices import (
    ActionType,
    BrowserEventType,
    ErrorCode,
    PlatformStatus,
    ProxyProtocol,
    SessionStatus,
    TaskStatus,
)
from workers.links import link_hash


class Proxy(TimeStamped):
    """An outbound proxy; Crawlee-style error score, cooldown and an admin-visible reason when disabled."""

    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="browser_proxies")
    label = models.CharField("نام", max_length=120, blank=True)
    protocol = models.CharField("پروتکل", max_length=8, choices=ProxyProtocol.choices, default=ProxyProtocol.HTTP)
    host = models.CharField("میزبان", max_length=255)
    port = models.PositiveIntegerField("درگاه")
    username = models.CharField("نام کاربری", max_length=255, blank=True)
    password = EncryptedTextField("گذرواژه", blank=True, default="")
    is_available = models.BooleanField("در دسترس", default=True)
    error_score = models.FloatField("امتیاز خطا", default=0)
    cooldown_until = models.DateTimeField("استراحت تا", null=True, blank=True)
    last_error = models.CharField("آخرین خطا", max_length=500, blank=True)
    last_error_at = models.DateTimeField("زمان آخرین خطا", null=True, blank=True)
    success_count = models.PositiveIntegerField("موفق", default=0)
    failure_count = models.PositiveIntegerField("ناموفق", default=0)
    deleted_at = models.DateTimeField("حذف", null=True, blank=True)

    objects = WorkspaceQuerySet.as_manager()

    class Meta:
        ordering = ["workspace_id", "host", "port", "id"]
        verbose_name = "پراکسی"
        verbose_name_plural = "پراکسی‌ها"
        indexes = [models.Index(fields=["workspace", "is_available"], name="proxy_ws_available")]

    def __str__(self) -> str:
        return self.label or f"{self.protocol}://{self.host}:{self.port}"

    @property
    def server(self) -> str:
        return f"{self.protocol}://{self.host}:{self.port}"

    def clean(self) -> None:
        super().clean()
        from django.core.exceptions import ValidationError

        from workers.netguard import AddressNotAllowed, check_proxy

        if self.host and self.port:
            try:  # proxy hosts follow the workers' address rule (workers.netguard)
                check_proxy(self.host, self.port)
            except AddressNotAllowed as exc:
                raise ValidationError({"host": exc.message}) from None


class BrowserAccount(TimeStamped):
    """A logged-in session on a platform: cookies (encrypted), user agent, viewport, optional pinned proxy."""

    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="browser_accounts")
    label = models.CharField("نام", max_length=120)
    platform = models.CharField("سکو", max_length=40)
    # A cookie header, a JSON or a Netscape export (workers.cookies), bound to ``cookie_domain``, never to a link.
    cookies = EncryptedTextField("کوکی‌ها", blank=True, default="")
    cookie_domain = models.CharField("دامنه سکو", max_length=253, blank=True)
    cookie_count = models.PositiveIntegerField("تعداد کوکی‌ها", default=0)
    cookies_expire_at = models.DateTimeField("انقضای کوکی‌ها", null=True, blank=True)
    user_agent = models.CharField("User-Agent", max_length=500, blank=True)
    viewport_width = models.PositiveIntegerField("عرض صفحه", default=1280)
    viewport_height = models.PositiveIntegerField("ارتفاع صفحه", default=800)
    session_status = FSMField("وضعیت نشست", max_length=12, choices=SessionStatus.choices, default=SessionStatus.ACTIVE)
    revision = models.PositiveIntegerField("نسخه", default=1)
    error_score = models.FloatField("امتیاز خطا", default=0)
    usage_count = models.PositiveIntegerField("دفعات استفاده", default=0)
    last_used_at = models.DateTimeField("آخرین استفاده", null=True, blank=True)
    proxy = models.ForeignKey(
        Proxy, verbose_name="پراکسی ثابت", on_delete=models.SET_NULL, null=True, blank=True, related_name="accounts"
    )
    # The proxy is part of where the cookies go: an account holding cookies without its own proxy goes out
    # directly unless the workspace's proxy pool was chosen for it here (docs/browser-tasks.md "Safety rules").
    use_proxy_pool = models.BooleanField(
        "استفاده از پراکسی‌های فضای کاری",
        default=False,
        help_text="بدون پراکسی ثابت، کارها از یکی از پراکسی‌های فضای کاری می‌روند؛ برای حساب بدون کوکی همیشه چنین است.",
    )
    deleted_at = models.DateTimeField("حذف", null=True, blank=True)

    objects = WorkspaceQuerySet.as_manager()

    class Meta:
        ordering = ["workspace_id", "platform", "label", "id"]
        verbose_name = "حساب مرورگر"
        verbose_name_plural = "حساب‌های مرورگر"
        indexes = [models.Index(fields=["workspace", "platform", "session_status"], name="account_ws_platform")]

    def __str__(self) -> str:
        return f"{self.label} ({self.platform})"

    def clean(self) -> None:
        super().clean()
        from campaigns.platform.integrity import require_same_workspace

        require_same_workspace(self, "proxy")

    @transition(field=session_status, source=SessionStatus.ACTIVE, target=SessionStatus.EXPIRED)
    def expire(self) -> None:
        """The worker found the login wall: the cookies no longer work."""

    @transition(
        field=session_status, source=[SessionStatus.EXPIRED, SessionStatus.DISABLED], target=SessionStatus.ACTIVE
    )
    def reactivate(self) -> None:
        """New cookies were saved (or an admin re-enabled the account)."""

    @transition(
        field=session_status, source=[SessionStatus.ACTIVE, SessionStatus.EXPIRED], target=SessionStatus.DISABLED
    )
    def disable(self) -> None:
        """Taken out of rotation by staff."""


class ActionConfig(TimeStamped):
    """The declarative steps of one action on one platform (no site-specific code ships).

    Campaign creation copies the steps and the logged-in check into the
    platform's metadata, so editing a config never changes a running campaign.
    """

    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="browser_action_configs")
    platform = models.CharField("سکو", max_length=40)
    action_type = models.CharField("نوع کار", max_length=16, choices=ActionType.choices)
    steps = models.JSONField("گام‌ها", default=list)
    # {"login_url_patterns": ["/login"], "logged_in_selector": "#me"}
    login_check = models.JSONField("بررسی ورود", default=dict, blank=True)

    objects = WorkspaceQuerySet.as_manager()

    class Meta:
        ordering = ["workspace_id", "platform", "action_type"]
        verbose_name = "پیکربندی کار"
        verbose_name_plural = "پیکربندی‌های کار"
        constraints = [
            models.UniqueConstraint(fields=["workspace", "platform", "action_type"], name="actionconfig_unique"),
        ]

    def __str__(self) -> str:
        return f"{self.get_action_type_display()} در {self.platform}"

    def clean(self) -> None:
        super().clean()
        from django.core.exceptions import ValidationError

        from campaigns.platform.errors import ValidationFailed
        from workers.steps import check_goto_urls, validate_steps

        try:
            check_goto_urls(validate_steps(self.steps))
        except ValidationFailed as exc:
            raise ValidationError({"steps": [f"{k}: {', '.join(v)}" for k, v in exc.details.items()]}) from None


class CampaignPlatform(TimeStamped):
    """One platform of a browser campaign; ``metadata`` is the seed's ``metadata_json``.

    metadata: account_ids, spare_account_ids, target_links, action_type,
    action_params, content_template, steps, login_check, pacing_seconds,
    concurrency_cap, retry {max_attempts, backoff_seconds}, priority, server.
    """

    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="browser_platforms")
    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="browser_platforms")
    platform = models.CharField("سکو", max_length=40)
    status = FSMField("وضعیت", max_length=12, choices=PlatformStatus.choices, default=PlatformStatus.PENDING)
    revision = models.PositiveIntegerField("نسخه", default=1)
    is_tasks_created = models.BooleanField("وظایف ساخته شد", default=False)
    tasks_created_at = models.DateTimeField("زمان ساخت وظایف", null=True, blank=True)
    start_date = models.DateTimeField("شروع")
    metadata = models.JSONField("پیکربندی", default=dict)
    # Tasks are created in chunks across runs: (link × account) pairs in link-major order below the cursor exist.
    creation_cursor = models.PositiveIntegerField("پیشرفت ساخت وظایف", default=0)
    creation_due_at = models.DateTimeField("نوبت بعدی ساخت", null=True, blank=True)
    creation_failures = models.PositiveIntegerField("خطاهای پیاپی ساخت", default=0)
    creation_error = models.CharField("آخرین خطای ساخت", max_length=1000, blank=True)

    objects = WorkspaceQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at", "-id"]
        verbose_name = "سکوی کمپین"
        verbose_name_plural = "سکوهای کمپین"
        constraints = [models.UniqueConstraint(fields=["campaign", "platform"], name="campaignplatform_unique")]
        indexes = [
            models.Index(fields=["start_date"], name="platform_due_creation", condition=Q(is_tasks_created=False)),
        ]

    def __str__(self) -> str:
        return f"{self.campaign_id}/{self.platform}"

    def clean(self) -> None:
        super().clean()
        from campaigns.platform.integrity import MSG_OTHER_WORKSPACE, require_same_workspace

        extra = {}
        meta = self.metadata if isinstance(self.metadata, dict) else {}
        ids = {i for key in ("account_ids", "spare_account_ids") for i in meta.get(key) or [] if isinstance(i, int)}
        if ids and self.workspace_id:
            own = BrowserAccount.objects.filter(workspace_id=self.workspace_id, pk__in=ids).count()
            if own != len(ids):
                extra["metadata"] = [MSG_OTHER_WORKSPACE]
        require_same_workspace(self, "campaign", extra=extra)

    @transition(field=status, source=PlatformStatus.PENDING, target=PlatformStatus.RUNNING)
    def start(self) -> None:
        """Tasks were created (set in the same transaction as the tasks)."""

    @transition(field=status, source=[PlatformStatus.PENDING, PlatformStatus.RUNNING], target=PlatformStatus.PAUSED)
    def pause(self) -> None:
        """Stop dispatching; tasks already with a worker finish."""

    @transition(
        field=status,
        source=PlatformStatus.PAUSED,
        target=RETURN_VALUE(PlatformStatus.PENDING, PlatformStatus.RUNNING),
    )
    def resume(self) -> str:
        """Dispatch again; paused before its tasks existed → pending, so the creation job picks it up."""
        return PlatformStatus.RUNNING if self.is_tasks_created else PlatformStatus.PENDING

    @transition(field=status, source=[PlatformStatus.RUNNING, PlatformStatus.PAUSED], target=PlatformStatus.COMPLETED)
    def complete(self) -> None:
        """No task is pending or with a worker any more."""

    @transition(field=status, source=PlatformStatus.COMPLETED, target=PlatformStatus.RUNNING)
    def reopen(self) -> None:
        """A failed task was retried by staff."""

    @transition(
        field=status,
        source=[PlatformStatus.PENDING, PlatformStatus.RUNNING, PlatformStatus.PAUSED],
        target=PlatformStatus.COMPLETED,
    )
    def stop(self) -> None:
        """Its campaign was cancelled or finished by hand: nothing more is created or dispatched."""


class BrowserTask(TimeStamped):
    """One (account × link × action) of a platform: the unit a browser worker executes."""

    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="browser_tasks")
    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="browser_tasks")
    platform = models.ForeignKey(CampaignPlatform, on_delete=models.CASCADE, related_name="tasks")
    account = models.ForeignKey(BrowserAccount, on_delete=models.PROTECT, related_name="tasks")
    proxy = models.ForeignKey(Proxy, on_delete=models.SET_NULL, null=True, blank=True, related_name="tasks")
    link = models.URLField("نشانی", max_length=8000)
    link_hash = models.CharField("چکیده نشانی", max_length=64, editable=False)  # workers.links.link_hash
    action_type = models.CharField("نوع کار", max_length=16, choices=ActionType.choices)
    server = models.CharField("صف کارگر", max_length=40, default="browser")
    priority = models.IntegerField("اولویت", default=0)
    status = FSMField("وضعیت", max_length=12, choices=TaskStatus.choices, default=TaskStatus.PENDING)
    revision = models.PositiveIntegerField("نسخه", default=1)
    start_date = models.DateTimeField("زمان مجاز شروع")
    attempt_count = models.PositiveIntegerField("تلاش‌ها", default=0)
    # A step that changes the page (click/fill) may have run: the next attempt checks the end state first.
    needs_verification = models.BooleanField("نیاز به بررسی پیش از تکرار", default=False)
    lease_id = models.UUIDField("شناسه اجاره", null=True, blank=True, editable=False)
    proxy_failures = models.PositiveIntegerField("خطاهای پراکسی", default=0)
    dispatched_at = models.DateTimeField("ارسال", null=True, blank=True)
    lease_expires_at = models.DateTimeField("پایان اجاره", null=True, blank=True)
    finished_at = models.DateTimeField("پایان", null=True, blank=True)
    result_data = models.JSONField("نتیجه", default=dict, blank=True)
    error_code = models.CharField("کد خطا", max_length=24, choices=ErrorCode.choices, blank=True)
    error_reason = models.CharField("دلیل خطا", max_length=1000, blank=True)
    replaces = models.OneToOneField(
        "self",
        verbose_name="جایگزینِ",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="replaced_by",
    )

    objects = WorkspaceQuerySet.as_manager()

    class Meta:
        ordering = ["-priority", "start_date", "id"]
        verbose_name = "وظیفه مرورگر"
        verbose_name_plural = "وظایف مرورگر"
        constraints = [
            models.UniqueConstraint(
                fields=["platform", "account", "link_hash", "action_type"], name="browsertask_unique_slot_hash"
            ),
        ]
        indexes = [
            models.Index(
                fields=["-priority", "start_date", "id"],
                name="browsertask_due",
                condition=Q(status=TaskStatus.PENDING),
            ),
            models.Index(
                fields=["lease_expires_at"], name="browsertask_lease", condition=Q(status=TaskStatus.DISPATCHED)
            ),
            models.Index(fields=["campaign", "status"], name="browsertask_campaign_status"),
            # The replaced tasks of a campaign (its live counts leave them out: ``selectors.campaign_counts``).
            models.Index(
                fields=["campaign", "replaces"],
                name="browsertask_campaign_replaces",
                condition=Q(replaces__isnull=False),
            ),
            models.Index(fields=["workspace", "status"], name="browsertask_ws_status"),
            # An account's latest failure (the accounts list and the campaign form's picker): one index entry, not a
            # sort of its every failed task; partial, so a task that succeeds adds nothing here.
            models.Index(
                fields=["account", "-finished_at", "-id"],
                name="browsertask_account_failed",
                condition=Q(status=TaskStatus.FAILED),
            ),
        ]

    def __str__(self) -> str:
        return f"وظیفهٔ {fa_digits(self.pk)} ({self.get_action_type_display()}، {self.get_status_display()})"

    def clean(self) -> None:
        super().clean()
        from campaigns.platform.integrity import require_same_workspace

        require_same_workspace(self, "campaign", "platform", "account", "proxy", "replaces")
        from django.core.exceptions import ValidationError

        from workers.netguard import AddressNotAllowed, check_url

        if self.link:
            try:  # where a worker may go (workers.netguard)
                check_url(self.link)
            except AddressNotAllowed as exc:
                raise ValidationError({"link": exc.message}) from None

    def save(self, *args, **kwargs) -> None:
        self.link_hash = link_hash(self.link)
        super().save(*args, **kwargs)

    @transition(field=status, source=TaskStatus.PENDING, target=TaskStatus.DISPATCHED)
    def dispatch(self) -> None:
        """Claimed and published to the browser queue (bulk UPDATE in ``workers.dispatch``)."""

    @transition(field=status, source=TaskStatus.DISPATCHED, target=TaskStatus.COMPLETED)
    def complete(self) -> None:
        """The worker reported success."""

    @transition(field=status, source=TaskStatus.DISPATCHED, target=TaskStatus.FAILED)
    def fail(self) -> None:
        """The worker reported a failure that is not retried."""

    @transition(field=status, source=TaskStatus.DISPATCHED, target=TaskStatus.PENDING)
    def requeue(self) -> None:
        """Retry per policy, or lease expired (worker vanished)."""

    @transition(field=status, source=TaskStatus.FAILED, target=TaskStatus.PENDING)
    def retry(self) -> None:
        """Staff asked for another attempt."""


class BrowserTaskScreenshot(models.Model):
    """The page as the worker saw it when a task failed (PNG)."""

    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="+")
    task = models.OneToOneField(BrowserTask, on_delete=models.CASCADE, related_name="screenshot")
    png = models.BinaryField("تصویر")
    url = models.URLField("نشانی صفحه", max_length=2000, blank=True)
    created_at = models.DateTimeField("زمان", auto_now=True)

    objects = WorkspaceQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at", "-id"]
        verbose_name = "تصویر خطا"
        verbose_name_plural = "تصاویر خطا"

    def __str__(self) -> str:
        return f"تصویر وظیفهٔ {fa_digits(self.task_id)}"

    def clean(self) -> None:
        super().clean()
        from campaigns.platform.integrity import require_same_workspace

        require_same_workspace(self, "task")


class CampaignStatistics(models.Model):
    """Counters of one browser campaign (refreshed every 5 minutes; bumped live by results)."""

    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="+")
    campaign = models.OneToOneField(
        Campaign, verbose_name="کمپین", on_delete=models.CASCADE, related_name="browser_statistics"
    )
    total = models.PositiveIntegerField("کل", default=0)
    completed = models.IntegerField("موفق", default=0)
    failed = models.IntegerField("ناموفق", default=0)
    pending = models.IntegerField("در جریان", default=0)
    refreshed_at = models.DateTimeField("به‌روزرسانی", null=True, blank=True)

    objects = WorkspaceQuerySet.as_manager()

    class Meta:
        ordering = ["-refreshed_at", "-id"]
        verbose_name = "آمار کمپین مرورگر"
        verbose_name_plural = "آمار کمپین‌های مرورگر"

    def __str__(self) -> str:
        return f"{self.completed}/{self.total}"

    def clean(self) -> None:
        super().clean()
        from campaigns.platform.integrity import require_same_workspace

        require_same_workspace(self, "campaign")


class BrowserEvent(WorkspaceEvent):
    """Append-only history: failures, reclaims, replacements, disabled proxies (the seed's "log for an admin")."""

    type = models.CharField("نوع", max_length=32, choices=BrowserEventType.choices)
    # Almost every row is the system's: a partial index serves SET_NULL on a user's deletion.
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+", db_index=False
    )
    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, null=True, blank=True, related_name="+")
    task = models.ForeignKey(BrowserTask, on_delete=models.CASCADE, null=True, blank=True, related_name="events")
    account = models.ForeignKey(BrowserAccount, on_delete=models.CASCADE, null=True, blank=True, related_name="+")
    proxy = models.ForeignKey(Proxy, on_delete=models.CASCADE, null=True, blank=True, related_name="events")
    message = models.CharField("شرح", max_length=1000, blank=True)

    objects = WorkspaceQuerySet.as_manager()

    WORKSPACE_RELATIONS = ("campaign", "task", "account", "proxy")

    class Meta(WorkspaceEvent.Meta):
        verbose_name = "رویداد مرورگر"
        verbose_name_plural = "رویدادهای مرورگر"
        indexes = [models.Index(fields=["actor"], name="browserevent_actor", condition=Q(actor__isnull=False))]

    def __str__(self) -> str:
        return f"رویداد {fa_digits(self.pk)} ({self.get_type_display()})"
