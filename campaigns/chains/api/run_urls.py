"""Run and conversion endpoints under /api/v1/ (included from ``campaigns/chains/api/urls.py``)."""

from django.urls import path

from campaigns.chains.api import run_views as runs

urlpatterns = [
    path("campaign/<int:campaign_id>/runs", runs.CampaignRunListApi.as_view(), name="api-campaign-runs"),
    path(
        "campaign/<int:campaign_id>/run-summary", runs.CampaignRunSummaryApi.as_view(), name="api-campaign-run-summary"
    ),
    path("campaign/<int:campaign_id>/lift", runs.CampaignLiftApi.as_view(), name="api-campaign-lift"),
    path("campaign/<int:campaign_id>/run-now", runs.ManualRunApi.as_view(), name="api-campaign-run-now"),
    path("campaign-runs", runs.RunListApi.as_view(), name="api-runs"),
    path("campaign-runs/<int:run_id>", runs.RunDetailApi.as_view(), name="api-run"),
    path("campaign-runs/<int:run_id>/lift", runs.RunLiftApi.as_view(), name="api-run-lift"),
    path("campaign-runs/<int:run_id>/rerun", runs.RerunApi.as_view(), name="api-run-rerun"),
    path("campaign-runs/<int:run_id>/audience/export", runs.RunAudienceExportApi.as_view(), name="api-run-export"),
    path("conversion-events", runs.ConversionEventListApi.as_view(), name="api-conversion-events"),
    path("conversion-events/<int:event_id>", runs.ConversionEventDetailApi.as_view(), name="api-conversion-event"),
]
