"""Journey fields of the one Campaign model (owned by the engine issue)."""

from django.db import models


class CampaignJourneyFields(models.Model):
    """Abstract mixin: workflow, pinned version, starts/ends, limits, window, settings."""

    class Meta:
        abstract = True
