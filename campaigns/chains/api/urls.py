"""Groups, chains and approval endpoints, mounted under /api/v1/."""

from django.urls import include, path

from campaigns.chains.api import group_views as groups
from campaigns.chains.api import views as chains

urlpatterns = [
    path("campaign-groups", groups.GroupListApi.as_view(), name="api-campaign-groups"),
    path("campaign-groups/<int:group_id>", groups.GroupDetailApi.as_view(), name="api-campaign-group"),
    path(
        "campaign-groups/<int:group_id>/campaigns",
        groups.GroupCampaignsApi.as_view(),
        name="api-campaign-group-campaigns",
    ),
    path(
        "campaign-groups/<int:group_id>/campaigns/<int:campaign_id>",
        groups.GroupCampaignDetailApi.as_view(),
        name="api-campaign-group-campaign",
    ),
    path(
        "campaign-groups/<int:group_id>/campaigns/<int:campaign_id>/move",
        groups.GroupCampaignMoveApi.as_view(),
        name="api-campaign-group-campaign-move",
    ),
    path("campaign-groups/<int:group_id>/campaign-tree", groups.GroupTreeApi.as_view(), name="api-campaign-tree"),
    path(
        "campaign-groups/<int:group_id>/inheritance-sources",
        groups.GroupSourcesApi.as_view(),
        name="api-inheritance-sources",
    ),
    path("campaign", chains.ChainCampaignCreateApi.as_view(), name="api-chain-campaign-create"),
    path("campaign/audience/count", chains.AudienceCountApi.as_view(), name="api-chain-audience-count"),
    path("campaign/inheritance/preview", chains.InheritancePreviewApi.as_view(), name="api-inheritance-preview"),
    path("campaign/root/preview", chains.RootPreviewApi.as_view(), name="api-chain-root-preview"),
    path("campaign/<int:campaign_id>", chains.ChainCampaignDetailApi.as_view(), name="api-chain-campaign"),
    path("campaign/<int:campaign_id>/clone", chains.ChainCampaignCloneApi.as_view(), name="api-chain-campaign-clone"),
    path("campaign/<int:campaign_id>/submit", chains.CampaignSubmitApi.as_view(), name="api-campaign-submit"),
    path("campaign/<int:campaign_id>/chain/pause", chains.ChainPauseApi.as_view(), name="api-chain-pause"),
    path("campaign/<int:campaign_id>/chain/resume", chains.ChainResumeApi.as_view(), name="api-chain-resume"),
    path("campaign/<int:campaign_id>/chain/stop", chains.ChainStopApi.as_view(), name="api-chain-stop"),
    path("campaign-chain-approvals/<int:package_id>", chains.PackageDetailApi.as_view(), name="api-chain-approval"),
    path(
        "campaign-chain-approvals/<int:package_id>/approve",
        chains.PackageApproveApi.as_view(),
        name="api-chain-approval-approve",
    ),
    path(
        "campaign-chain-approvals/<int:package_id>/reject",
        chains.PackageRejectApi.as_view(),
        name="api-chain-approval-reject",
    ),
    path(
        "campaign-chain-approvals/<int:package_id>/withdraw",
        chains.PackageWithdrawApi.as_view(),
        name="api-chain-approval-withdraw",
    ),
    path("", include("campaigns.chains.api.run_urls")),
]
