"""API of this app (mounted under /api/v1/ by config/urls.py)."""

from django.urls import path

from automation.api import migration_views, views
from automation.api.health import JourneyHealthApi

urlpatterns = [
    path("health/journeys", JourneyHealthApi.as_view(), name="api-health-journeys"),
    path("automation/catalog", views.CatalogApi.as_view(), name="api-automation-catalog"),
    path("workflows", views.WorkflowListApi.as_view(), name="api-workflows"),
    path("workflows/<int:workflow_id>", views.WorkflowDetailApi.as_view(), name="api-workflow"),
    path("workflows/<int:workflow_id>/graph", views.WorkflowGraphApi.as_view(), name="api-workflow-graph"),
    path("workflows/<int:workflow_id>/defaults", views.WorkflowDefaultsApi.as_view(), name="api-workflow-defaults"),
    path("workflows/<int:workflow_id>/validate", views.WorkflowValidateApi.as_view(), name="api-workflow-validate"),
    path("workflows/<int:workflow_id>/publish", views.WorkflowPublishApi.as_view(), name="api-workflow-publish"),
    path("workflows/<int:workflow_id>/versions", views.WorkflowNewDraftApi.as_view(), name="api-workflow-new-draft"),
    path(
        "workflows/<int:workflow_id>/migrations/preview",
        migration_views.MigrationPreviewApi.as_view(),
        name="api-workflow-migration-preview",
    ),
    path(
        "workflows/<int:workflow_id>/migrations",
        migration_views.MigrationCommitApi.as_view(),
        name="api-workflow-migration-commit",
    ),
    path(
        "workflow-migrations/<uuid:migration_id>",
        migration_views.MigrationDetailApi.as_view(),
        name="api-workflow-migration",
    ),
    path("campaigns/<int:campaign_id>/journey", views.JourneyCampaignApi.as_view(), name="api-journey-campaign"),
    path("campaigns/<int:campaign_id>/journey/stats", views.JourneyStatsApi.as_view(), name="api-journey-stats"),
    path(
        "campaigns/<int:campaign_id>/journey/launch-check",
        views.JourneyLaunchCheckApi.as_view(),
        name="api-journey-launch-check",
    ),
    path(
        "campaign-chain-approvals/<int:package_id>/launch-check",
        views.PackageLaunchCheckApi.as_view(),
        name="api-chain-approval-launch-check",
    ),
    path("targets/<int:target_id>/timeline", views.TargetTimelineApi.as_view(), name="api-target-timeline"),
    path("targets/<int:target_id>/executions", views.TargetExecutionsApi.as_view(), name="api-target-executions"),
    path(
        "campaigns/<int:campaign_id>/journey/<str:action>",
        views.JourneyCampaignActionApi.as_view(),
        name="api-journey-campaign-action",
    ),
    path("campaigns/<int:campaign_id>/enrollments", views.EnrollmentApi.as_view(), name="api-journey-enroll"),
    path("campaigns/<int:campaign_id>/auto-enroll", views.AutoEnrollRuleApi.as_view(), name="api-journey-auto-enroll"),
    path(
        "campaigns/<int:campaign_id>/auto-enroll/existing-count",
        views.AutoEnrollCountApi.as_view(),
        name="api-journey-auto-enroll-count",
    ),
    path(
        "campaigns/<int:campaign_id>/enrollments/preview",
        views.EnrollmentPreviewApi.as_view(),
        name="api-journey-enrollment-preview",
    ),
    path(
        "campaigns/<int:campaign_id>/executions/bulk",
        views.ExecutionBulkControlApi.as_view(),
        name="api-journey-executions-bulk",
    ),
    path("enrollments/<int:batch_id>", views.EnrollmentBatchApi.as_view(), name="api-enrollment-batch"),
    path("enrollments/<int:batch_id>/items", views.EnrollmentItemsApi.as_view(), name="api-enrollment-items"),
    path(
        "enrollments/<int:batch_id>/decisions", views.EnrollmentDecisionsApi.as_view(), name="api-enrollment-decisions"
    ),
    path("enrollments/<int:batch_id>/commit", views.EnrollmentCommitApi.as_view(), name="api-enrollment-commit"),
    path("executions", views.ExecutionListApi.as_view(), name="api-executions"),
    path("executions/<int:execution_id>", views.ExecutionDetailApi.as_view(), name="api-execution"),
    path("executions/<int:execution_id>/events", views.ExecutionEventsApi.as_view(), name="api-execution-events"),
    path(
        "executions/<int:execution_id>/<str:action>", views.ExecutionControlApi.as_view(), name="api-execution-control"
    ),
]
