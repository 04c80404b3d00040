"""Campaign groups and chain approval packages; the run models (``campaigns.chains.run_models``) are gathered here.

Every model belongs to the ``chains`` app label and keeps the table it was created with under the
``campaigns`` label (``db_table``): the move to an app of its own copied no row. Chain fields of the
campaign itself live in its chains row, ``ChainNode`` (``campaigns.chains.node_models``, gathered here).
"""

from django.conf import settings
from django.db import models
from django.db.models import Q

from campaigns.chains.choices import GroupStatus, PackageStatus
from campaigns.chains.node_models import ChainNode
from campaigns.models.core import TimeStamped, Workspace, WorkspaceQuerySet


class CampaignGroup(TimeStamped):
    """A named folder of independent campaigns and chains; it never controls sending schedules.

    Membership is ``ChainNode.group`` (no mapping table). Every membership
    change bumps ``revision`` in the same transaction as the campaign write.
    """

    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="campaign_groups")
    name = models.CharField("نام", max_length=255)
    name_key = models.CharField("کلید نام", max_length=255, editable=False)
    name_search = models.CharField("متن جستجو", max_length=255, editable=False)
    description = models.CharField("توضیحات", max_length=500, blank=True)
    status = models.CharField("وضعیت", max_length=8, choices=GroupStatus.choices, default=GroupStatus.ACTIVE)
    revision = models.PositiveIntegerField("نسخه", default=1)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name="ایجادکننده",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )
    updated_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name="ویرایشگر",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )

    objects = WorkspaceQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at", "-id"]
        verbose_name = "گروه کمپین"
        verbose_name_plural = "گروه‌های کمپین"
        db_table = "campaigns_campaigngroup"
        constraints = [
            models.UniqueConstraint(
                fields=["workspace", "name_key"],
                condition=Q(status="ACTIVE"),
                name="campaigngroup_unique_active_name",
            ),
        ]
        indexes = [
            models.Index(fields=["workspace", "status", "-created_at", "-id"], name="campaigngroup_listing"),
        ]

    def __str__(self) -> str:
        return self.name


class ChainApprovalPackage(TimeStamped):
    """One submission of a whole chain for approval, with the snapshot of every node.

    The snapshot is written once at submit and never overwritten; resubmitting
    creates a new package. ``ChainNode.approval_package`` names the current one.
    """

    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="chain_packages")
    root = models.ForeignKey(
        "chains.ChainNode", verbose_name="ریشه", on_delete=models.PROTECT, related_name="approval_packages"
    )
    submitted_revision = models.PositiveIntegerField("نسخه ارسال‌شده")
    status = models.CharField("وضعیت", max_length=10, choices=PackageStatus.choices, default=PackageStatus.SUBMITTED)
    items = models.JSONField("اقلام", default=list)
    submitted_at = models.DateTimeField("زمان ارسال")
    submitted_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, verbose_name="ارسال‌کننده", on_delete=models.SET_NULL, null=True, related_name="+"
    )
    decided_at = models.DateTimeField("زمان تصمیم", null=True, blank=True)
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name="تصمیم‌گیرنده",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )
    reason = models.CharField("دلیل", max_length=1000, blank=True)
    # The workspace's approval rule when the package was submitted; approval is decided by this value, so
    # turning four eyes off afterwards does not let the submitter approve their own package.
    four_eyes = models.BooleanField("تأیید چهارچشمی", default=False)

    objects = WorkspaceQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at", "-id"]
        verbose_name = "بسته تأیید زنجیره"
        verbose_name_plural = "بسته‌های تأیید زنجیره"
        db_table = "campaigns_chainapprovalpackage"
        indexes = [
            models.Index(fields=["workspace", "root", "-created_at"], name="chainpkg_ws_root_created"),
            models.Index(fields=["workspace", "status", "created_at"], name="chainpkg_ws_status_created"),
        ]

    def __str__(self) -> str:
        return f"بسته #{self.pk} ({self.get_status_display()})"

    def clean(self) -> None:
        super().clean()
        from campaigns.platform.integrity import require_same_workspace

        require_same_workspace(self, "root")


class CampaignChain(ChainNode):
    """Admin view of a chain: its root campaign (proxy, no table of its own)."""

    class Meta:
        proxy = True
        ordering = ["-created_at", "-id"]
        verbose_name = "زنجیره کمپین"
        verbose_name_plural = "زنجیره‌های کمپین"

    def __str__(self) -> str:
        return self.name


from campaigns.chains.run_models import (  # noqa: E402  (the run models register under this app)
    CampaignRun,
    ConversionEvent,
    RunAudienceMember,
    RunAudienceSnapshot,
    RunExecution,
)

__all__ = [
    "CampaignChain",
    "CampaignGroup",
    "CampaignRun",
    "ChainApprovalPackage",
    "ChainNode",
    "ConversionEvent",
    "RunAudienceMember",
    "RunAudienceSnapshot",
    "RunExecution",
]
