"""The kernel's models: tenancy (workspaces, members, API keys) and the periodic jobs' heartbeat.

The tables keep the names they were created with in the ``campaigns`` app (``db_table``); every product
model points here. Nothing in this module imports the product.
"""

from django.conf import settings
from django.db import models
from django.db.models import Q

from campaigns.platform.choices import Role
from campaigns.platform.crypto import EncryptedTextField
from campaigns.platform.permissions import role_has
from campaigns.platform.registry import workspace_default_settings


class WorkspaceQuerySet(models.QuerySet):
    """Manager of every tenant-owned model. Queries start from ``campaigns.platform.tenancy.scoped``,
    the one place that applies the workspace (and soft-delete) filter."""


class TimeStamped(models.Model):
    created_at = models.DateTimeField("ایجاد", auto_now_add=True)
    updated_at = models.DateTimeField("به‌روزرسانی", auto_now=True)

    class Meta:
        abstract = True


class Workspace(TimeStamped):
    """A tenant: every other row belongs to exactly one workspace."""

    name = models.CharField("نام", max_length=120)
    slug = models.SlugField("شناسه", max_length=60, unique=True)
    time_zone = models.CharField("منطقه زمانی", max_length=64, default="Asia/Tehran")
    # Every path that creates a workspace gets the registered defaults (``workspace_default_settings``).
    settings = models.JSONField("تنظیمات", default=workspace_default_settings, blank=True)

    class Meta:
        ordering = ["name", "id"]
        db_table = "campaigns_workspace"
        verbose_name = "فضای کاری"
        verbose_name_plural = "فضاهای کاری"

    def __str__(self) -> str:
        return self.name


class Membership(TimeStamped):
    """A user's role in one workspace."""

    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="memberships")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="memberships")
    role = models.CharField("نقش", max_length=16, choices=Role.choices, default=Role.VIEWER)
    is_default = models.BooleanField("پیش‌فرض", default=False)

    objects = WorkspaceQuerySet.as_manager()

    class Meta:
        db_table = "campaigns_membership"
        ordering = ["workspace_id", "user_id"]
        verbose_name = "عضویت"
        verbose_name_plural = "عضویت‌ها"
        constraints = [
            models.UniqueConstraint(fields=["workspace", "user"], name="membership_unique_user"),
            models.UniqueConstraint(
                fields=["user"], condition=Q(is_default=True), name="membership_one_default_per_user"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.user} @ {self.workspace} ({self.get_role_display()})"

    def has(self, perm: str) -> bool:
        return role_has(self.role, perm)


class PlatformHeartbeat(models.Model):
    """Last time a periodic job ran (health checks: "scheduler not running")."""

    name = models.CharField(max_length=60, unique=True)
    beat_at = models.DateTimeField()

    class Meta:
        db_table = "campaigns_platformheartbeat"
        ordering = ["name"]
        verbose_name = "ضربان سامانه"
        verbose_name_plural = "ضربان‌های سامانه"

    def __str__(self) -> str:
        return f"{self.name} @ {self.beat_at:%Y-%m-%d %H:%M}"


def default_scopes() -> list[str]:
    return ["all"]


class ApiToken(models.Model):
    """An API key: only a lookup prefix and the SHA-256 of the whole key are stored.

    The key is shown once when created (``<prefix>.<secret>``); authentication finds the row
    by prefix, compares hashes in constant time and refuses expired or revoked keys.
    """

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_tokens")
    # The one workspace the key acts in. Null only on a key of an older version no migration could bind
    # (its user in several workspaces): refused (``campaigns.platform.tokens.api_token_authenticate``).
    workspace = models.ForeignKey(
        Workspace, verbose_name="فضای کاری", on_delete=models.CASCADE, null=True, blank=True, related_name="+"
    )
    name = models.CharField("نام", max_length=100, blank=True)
    # The areas it may call (``campaigns.platform.api.scopes``: "all" or e.g. ["targets", "sms"]).
    scopes = models.JSONField("دامنه‌ها", default=default_scopes)
    read_only = models.BooleanField("فقط خواندنی", default=False)
    prefix = models.CharField("پیشوند", max_length=16, unique=True)
    key_hash = models.CharField("هش کلید", max_length=64, editable=False)
    created_at = models.DateTimeField("ایجاد", auto_now_add=True)
    expires_at = models.DateTimeField("انقضا")
    last_used_at = models.DateTimeField("آخرین استفاده", null=True, blank=True)
    revoked_at = models.DateTimeField("ابطال", null=True, blank=True)
    # The key that made this one through the API (null: made on the page, by the command, or before
    # 2026-12-05). Revoking a key revokes every key made with it, transitively (``api_token_revoke``).
    granted_by = models.ForeignKey(
        "self", verbose_name="ساخته با کلید", on_delete=models.SET_NULL, null=True, blank=True, related_name="granted"
    )
    # The key whose revocation revoked this one with it (null: revoked itself, or live).
    revoked_with = models.ForeignKey(
        "self", verbose_name="باطل با ابطال کلید", on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )

    class Meta:
        db_table = "campaigns_apitoken"
        ordering = ["-created_at", "-id"]
        verbose_name = "کلید API"
        verbose_name_plural = "کلیدهای API"

    def __str__(self) -> str:
        return f"{self.prefix}… ({self.user})"

    def clean(self) -> None:
        from campaigns.platform.integrity import require_same_workspace

        require_same_workspace(self, "granted_by", "revoked_with")


class IdempotencyKey(models.Model):
    """The first answer to a POST sent with an ``Idempotency-Key`` header, per key + workspace + user + path.

    The row is claimed (``status_code`` null) before the view runs, then holds the answer for 24 hours
    (``campaigns.platform.idempotency``); the unique constraint lets exactly one of two concurrent
    requests run. ``fingerprint`` is the SHA-256 of the parsed body: the same key with another body is a 409.
    The answer is kept encrypted (JSON text): it may hold a secret shown once (a new API key, a webhook's).
    """

    workspace = models.ForeignKey(Workspace, verbose_name="فضای کاری", on_delete=models.CASCADE, related_name="+")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, verbose_name="کاربر", on_delete=models.CASCADE, related_name="+")
    key = models.CharField("کلید", max_length=255)
    path = models.CharField("مسیر", max_length=500)
    fingerprint = models.CharField("اثر انگشت بدنه", max_length=64)
    status_code = models.PositiveSmallIntegerField("کد پاسخ", null=True, blank=True)
    response = EncryptedTextField("پاسخ", blank=True, default="")
    created_at = models.DateTimeField("زمان", auto_now_add=True, db_index=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["workspace", "user", "key", "path"], name="idempotency_key_user_unique"),
        ]
        verbose_name = "کلید تکرارناپذیری"
        verbose_name_plural = "کلیدهای تکرارناپذیری"

    def __str__(self) -> str:
        return f"کلید {self.key}"


class WebhookEndpoint(TimeStamped):
    """Where a workspace's events are POSTed, signed with ``secret`` (``campaigns.platform.webhooks``).

    The secret is shown once and stored encrypted; a rotation keeps the previous one signing beside it until
    ``previous_secret_until`` so a receiver can switch without losing a delivery."""

    workspace = models.ForeignKey(Workspace, verbose_name="فضای کاری", on_delete=models.CASCADE, related_name="+")
    url = models.URLField("نشانی", max_length=500)
    description = models.CharField("توضیح", max_length=200, blank=True)
    events = models.JSONField("رویدادها", default=list)
    secret = EncryptedTextField("رمز امضا")
    previous_secret = EncryptedTextField("رمز پیشین", blank=True, default="")
    previous_secret_until = models.DateTimeField("اعتبار رمز پیشین تا", null=True, blank=True)
    is_active = models.BooleanField("فعال", default=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        verbose_name = "وب‌هوک"
        verbose_name_plural = "وب‌هوک‌ها"

    def __str__(self) -> str:
        return self.url


class WebhookDeliveryStatus(models.TextChoices):
    PENDING = "pending", "در صف"
    DELIVERED = "delivered", "تحویل‌شده"
    FAILED = "failed", "ناموفق"


class WebhookDelivery(models.Model):
    """The outbox: one event for one endpoint, written in the transaction that wrote the event, delivered at
    least once by a Celery task with retries (``event_id`` lets the receiver drop a repeat)."""

    workspace = models.ForeignKey(Workspace, verbose_name="فضای کاری", on_delete=models.CASCADE, related_name="+")
    endpoint = models.ForeignKey(  # indexed by the delivery log's index (endpoint first)
        WebhookEndpoint, verbose_name="وب‌هوک", on_delete=models.CASCADE, related_name="deliveries", db_index=False
    )
    event_id = models.UUIDField("شناسه رویداد", db_index=True)
    event_type = models.CharField("رویداد", max_length=60)
    payload = models.JSONField("بدنه")
    status = models.CharField(
        "وضعیت", max_length=12, choices=WebhookDeliveryStatus.choices, default=WebhookDeliveryStatus.PENDING
    )
    attempts = models.PositiveSmallIntegerField("تلاش‌ها", default=0)
    next_attempt_at = models.DateTimeField("تلاش بعدی")
    locked_until = models.DateTimeField("در دست ارسال تا", null=True, blank=True)
    last_status_code = models.PositiveSmallIntegerField("آخرین پاسخ", null=True, blank=True)
    last_error = models.CharField("آخرین خطا", max_length=300, blank=True)
    delivered_at = models.DateTimeField("تحویل", null=True, blank=True)
    replay_of = models.ForeignKey(
        "self", verbose_name="ارسال دوبارهٔ", on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    created_at = models.DateTimeField("ایجاد", auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        verbose_name = "تحویل وب‌هوک"
        verbose_name_plural = "تحویل‌های وب‌هوک"
        indexes = [
            models.Index(fields=["status", "next_attempt_at"], name="webhookdelivery_due"),
            # the delivery log, newest first, a page at a time (keyset on created_at, id); its "failed" filter on
            # the few rows that failed (a row only enters it when it fails)
            models.Index(fields=["endpoint", "created_at", "id"], name="webhookdelivery_log"),
            models.Index(
                fields=["endpoint", "created_at", "id"], name="webhookdelivery_log_failed", condition=Q(status="failed")
            ),
        ]

    def __str__(self) -> str:
        return f"{self.event_type} → {self.endpoint_id}"

    def clean(self) -> None:
        super().clean()
        from campaigns.platform.integrity import require_same_workspace

        require_same_workspace(self, "endpoint", "replay_of")
