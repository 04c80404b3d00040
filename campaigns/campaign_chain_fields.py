"""Group/chain/approval fields of the one Campaign model (owned by the chains issue)."""

from django.db import models


class CampaignChainFields(models.Model):
    """Abstract mixin: group, parent, root, inheritance, chain control, approval package."""

    class Meta:
        abstract = True
