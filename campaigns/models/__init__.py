"""Every model of the ``campaigns`` app label, gathered for Django's registry and for imports.

The tenancy models (Workspace, Membership, ApiToken, PlatformHeartbeat) belong to the kernel's app
(``campaigns.platform.models``, label ``platform``); they are re-exported here so product code keeps
``from campaigns.models import Workspace``.

``campaigns.models.core``: tenancy, audience, the one Campaign table. ``campaigns.chains.models`` (groups,
chains, approval packages) and ``campaigns.chains.run_models`` (runs) import ``core``, never this package,
so the models import in one direction. App label and model names are those of the migrations.
"""

from campaigns.chains.models import CampaignChain, CampaignGroup, ChainApprovalPackage
from campaigns.chains.run_models import (
    CampaignRun,
    ConversionEvent,
    RunAudienceMember,
    RunAudienceSnapshot,
    RunExecution,
)
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
    "CampaignChain",
    "CampaignEvent",
    "CampaignGroup",
    "CampaignRun",
    "ChainApprovalPackage",
    "ConversionEvent",
    "Membership",
    "Notification",
    "PlatformHeartbeat",
    "RunAudienceMember",
    "RunAudienceSnapshot",
    "RunExecution",
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
