"""Every model of the ``campaigns`` app label, gathered for Django's registry and for imports.

The tenancy models (Workspace, Membership, ApiToken, PlatformHeartbeat) belong to the kernel's app
(``campaigns.platform.models``, label ``platform``); they are re-exported here so product code keeps
``from campaigns.models import Workspace``.

``campaigns.models.core``: audience and the one Campaign table. Groups, chains, approval packages and runs
are the models of the chains app (``campaigns.chains.models``, label ``chains``), which builds on this one.
"""

from campaigns.models.core import (
    Campaign,
    CampaignEvent,
    Target,
    TargetImport,
    TargetImportRow,
    TargetList,
    TargetListSize,
    WorkspaceSettingsEvent,
)
from campaigns.notifications.models import Activity, Notification
from campaigns.platform.models import (
    ApiToken,
    Membership,
    PlatformHeartbeat,
    TimeStamped,
    Workspace,
    WorkspaceQuerySet,
)

__all__ = [
    "Activity",
    "ApiToken",
    "Campaign",
    "CampaignEvent",
    "Membership",
    "Notification",
    "PlatformHeartbeat",
    "Target",
    "TargetImport",
    "TargetImportRow",
    "TargetList",
    "TargetListSize",
    "TimeStamped",
    "Workspace",
    "WorkspaceQuerySet",
    "WorkspaceSettingsEvent",
]
