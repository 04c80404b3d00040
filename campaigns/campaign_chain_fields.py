"""Group/chain/approval fields of the one Campaign model.

Independent campaign: ``root`` and ``parent`` null. Chain root: ``root`` points
to itself, ``parent`` null. Chain child: ``parent`` is its direct source,
``root`` the chain root. ``chain_revision`` and ``chain_control`` only mean
something on the root. Schedules and inheritance are stored normalised (see
``campaigns.chains.schedule``); the API converts to and from request strings.

Indexes for ``Campaign.Meta.indexes`` (listed there: the mixin's Meta is not
inherited by a model that declares its own Meta): ``CHAIN_INDEXES`` below.
"""

import secrets

from django.db import models

from campaigns.choices import ChainControl


def new_ab_seed() -> int:
    """A fresh A/B split seed (clones get a new one)."""
    return secrets.randbelow(2**31 - 1) + 1


CHAIN_CODE_ALPHABET = "23456789ABCDEFGHJKMNPQRSTUVWXYZ"  # no 0/O, 1/I/L: read aloud or typed without doubt


def new_chain_code() -> str:
    """A fresh stable code of one chain node's action ("CH-7K3PQ2XM"); given once, at validation."""
    return "CH-" + "".join(secrets.choice(CHAIN_CODE_ALPHABET) for _ in range(8))


class CampaignChainFields(models.Model):
    """Abstract mixin: group, parent, root, inheritance, chain control, approval package."""

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
    chain_code = models.CharField("کد زنجیره", max_length=16, blank=True, default="")

    class Meta:
        abstract = True


CHAIN_INDEXES = [
    models.Index(fields=["workspace", "group", "-created_at", "-id"], name="campaign_ws_group_created"),
    models.Index(fields=["workspace", "group", "parent"], name="campaign_ws_group_parent"),
    models.Index(fields=["workspace", "root"], name="campaign_ws_root"),
]

CHAIN_CONSTRAINTS = [
    models.UniqueConstraint(
        fields=["workspace", "chain_code"], condition=~models.Q(chain_code=""), name="campaign_ws_chain_code_unique"
    ),
]
