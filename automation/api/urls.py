"""API of this app (mounted under /api/v1/ by config/urls.py)."""

from django.urls import path

from automation.api import views

urlpatterns = [
    path("automation/catalog", views.CatalogApi.as_view(), name="api-automation-catalog"),
    path("workflows", views.WorkflowListApi.as_view(), name="api-workflows"),
    path("workflows/<int:workflow_id>", views.WorkflowDetailApi.as_view(), name="api-workflow"),
    path("workflows/<int:workflow_id>/graph", views.WorkflowGraphApi.as_view(), name="api-workflow-graph"),
    path("workflows/<int:workflow_id>/validate", views.WorkflowValidateApi.as_view(), name="api-workflow-validate"),
    path("workflows/<int:workflow_id>/publish", views.WorkflowPublishApi.as_view(), name="api-workflow-publish"),
    path("workflows/<int:workflow_id>/versions", views.WorkflowNewDraftApi.as_view(), name="api-workflow-new-draft"),
    path(
        "campaigns/<int:campaign_id>/journey/<str:action>",
        views.JourneyCampaignActionApi.as_view(),
        name="api-journey-campaign-action",
    ),
    path("campaigns/<int:campaign_id>/enrollments", views.EnrollmentApi.as_view(), name="api-journey-enroll"),
    path("executions", views.ExecutionListApi.as_view(), name="api-executions"),
    path("executions/<int:execution_id>", views.ExecutionDetailApi.as_view(), name="api-execution"),
    path("executions/<int:execution_id>/events", views.ExecutionEventsApi.as_view(), name="api-execution-events"),
    path(
        "executions/<int:execution_id>/<str:action>", views.ExecutionControlApi.as_view(), name="api-execution-control"
    ),
]
