"""A campaign's place in groups and chains: ``ChainNode``, the chains app's row of a campaign.

``ChainNode`` is a multi-table child of the core's ``Campaign`` (table ``chains_chainnode``, primary key
``campaign_id`` = the campaign's id; ``campaign.chain`` from the core side). Chains code names ``ChainNode``
and reads ``node.root_id``, ``node.chain_revision`` … as it did on the campaign; the core names none of these
fields. Independent campaign: ``root`` and ``parent`` null. Chain root: ``root`` points to itself, ``parent``
null. Chain child: ``parent`` is its direct source, ``root`` the chain root. ``chain_revision`` and
``chain_control`` only mean something on the root. Schedules and inheritance are stored normalised (see
``campaigns.chains.schedule``); the API converts to and from request strings.

A campaign the core created (journey, SMS, browser) has no row until chains needs one
(``campaigns.chains.nodes``): a missing row reads as the defaults below (not in a group, not in a chain).
Why a child model and not a plain one-to-one row: docs/chains.md "Where the chain fields live".
"""

import secrets

from django.db import models

from campaigns.chains.choices import ChainControl
from campaigns.models.core import Campaign, WorkspaceQuerySet


def new_ab_seed() -> int:
    """A fresh A/B split seed (clones get a new one)."""
    return secrets.randbelow(2**31 - 1) + 1


CHAIN_CODE_ALPHABET = "23456789ABCDEFGHJKMNPQRSTUVWXYZ"  # no 0/O, 1/I/L: read aloud or typed without doubt


def new_chain_code() -> str:
    """A fresh stable code of one chain node's action ("CH-7K3PQ2XM"); given once, at validation."""
    return "CH-" + "".join(secrets.choice(CHAIN_CODE_ALPHABET) for _ in range(8))


class ChainNode(Campaign):
    """Group, parent, root, inheritance, chain control, approval package … of one campaign."""

    campaign = models.OneToOneField(
        Campaign, on_delete=models.CASCADE, parent_link=True, primary_key=True, related_name="chain"
    )
    group = models.ForeignKey(
        "chains.CampaignGroup",
        verbose_name="گروه",
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="campaigns",
    )
    parent = models.ForeignKey(
        "self", verbose_name="منبع", on_delete=models.PROTECT, null=True, blank=True, related_name="children"
    )
    root = models.ForeignKey(
        "self", verbose_name="ریشه زنجیره", on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    inheritance = models.JSONField("ارث‌بری", null=True, blank=True)
    chain_revision = models.PositiveIntegerField("نسخه زنجیره", default=1)
    chain_control = models.CharField(
        "کنترل زنجیره", max_length=8, choices=ChainControl.choices, default=ChainControl.NORMAL
    )
    approval_package = models.ForeignKey(
        "chains.ChainApprovalPackage",
        verbose_name="بسته تأیید جاری",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )
    needs_review = models.BooleanField("نیاز به بازبینی", default=False)
    needs_review_reasons = models.JSONField("دلایل بازبینی", default=list, blank=True)
    root_schedule = models.JSONField("زمان‌بندی تکرار (ریشه)", null=True, blank=True)
    goal = models.JSONField("هدف (تعریف تبدیل)", null=True, blank=True)
    attribution_window_days = models.PositiveSmallIntegerField("بازه انتساب (روز)", default=7)
    ab_seed = models.PositiveIntegerField("بذر A/B", default=new_ab_seed)
    chain_action = models.JSONField("اقدام (کانال و محتوا)", null=True, blank=True)
    # A root's audience is ``source_target_list`` narrowed by these targets-page filters
    # (``campaigns.chains.audience``); empty = the whole list.
    audience_filters = models.JSONField("فیلتر مخاطبان", default=dict, blank=True)
    # The node's stable code, given when its chain is first validated (submit) and never changed after: the
    # run's execution keys are built from it (``campaigns.chains.runs.dispatch``). Clones get their own.
    # Unique over every workspace (the row holds no workspace; codes are drawn from 31^8).
    chain_code = models.CharField("کد زنجیره", max_length=16, blank=True, default="")

    objects = WorkspaceQuerySet.as_manager()

    # The chains app's own fields (the rest are the campaign's).
    CHAIN_FIELDS = (
        "group",
        "parent",
        "root",
        "inheritance",
        "chain_revision",
        "chain_control",
        "approval_package",
        "needs_review",
        "needs_review_reasons",
        "root_schedule",
        "goal",
        "attribution_window_days",
        "ab_seed",
        "chain_action",
        "audience_filters",
        "chain_code",
    )

    class Meta:
        ordering = ["-created_at", "-id"]
        verbose_name = "کمپین زنجیره"
        verbose_name_plural = "کمپین‌های زنجیره"
        indexes = [models.Index(fields=["group", "parent"], name="chainnode_group_parent")]
        constraints = [
            models.UniqueConstraint(
                fields=["chain_code"], condition=~models.Q(chain_code=""), name="chainnode_chain_code_unique"
            ),
        ]

    def clean(self) -> None:
        super().clean()
        from campaigns.platform.integrity import require_same_workspace

        require_same_workspace(self, "group", "parent", "root", "approval_package")
