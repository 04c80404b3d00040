from django.urls import path

from automation import auto_enroll_views, campaign_views, launch_views, migration_views, views

# Persian pages of this app, mounted at the site root by config/urls.py.
urlpatterns = [
    path("automation/workflows/", views.workflow_list, name="workflow-list"),
    path("automation/workflows/new/", views.workflow_new, name="workflow-new"),
    path("automation/workflows/<int:workflow_id>/", views.workflow_detail, name="workflow-detail"),
    path("automation/workflows/<int:workflow_id>/publish/", views.workflow_publish, name="workflow-publish"),
    path("automation/workflows/<int:workflow_id>/new-draft/", views.workflow_new_draft, name="workflow-new-draft"),
    path("automation/workflows/<int:workflow_id>/archive/", views.workflow_archive, name="workflow-archive"),
    path("automation/workflows/<int:workflow_id>/migrate/", migration_views.workflow_migrate, name="workflow-migrate"),
    path(
        "automation/workflows/<int:workflow_id>/migrations/<uuid:migration_id>/",
        migration_views.workflow_migration,
        name="workflow-migration",
    ),
    path(
        "automation/workflows/<int:workflow_id>/save-template/",
        views.workflow_save_template,
        name="workflow-save-template",
    ),
    path("automation/workflows/<int:workflow_id>/builder/", views.workflow_builder, name="workflow-builder"),
    path("automation/workflows/<int:workflow_id>/builder/add/", views.builder_add, name="workflow-builder-add"),
    path("automation/workflows/<int:workflow_id>/builder/step/", views.builder_step, name="workflow-builder-step"),
    path(
        "automation/workflows/<int:workflow_id>/builder/remove/", views.builder_remove, name="workflow-builder-remove"
    ),
    path(
        "automation/workflows/<int:workflow_id>/builder/defaults/",
        views.builder_defaults,
        name="workflow-builder-defaults",
    ),
    path(
        "automation/workflows/<int:workflow_id>/builder/window/", views.builder_window, name="workflow-builder-window"
    ),
    path(
        "automation/workflows/<int:workflow_id>/builder/preview/",
        views.builder_preview,
        name="workflow-builder-preview",
    ),
    path("automation/health/", campaign_views.journey_health, name="journey-health"),
    path("automation/campaigns/", campaign_views.campaign_list, name="journey-campaign-list"),
    path(
        "automation/chain-approvals/<int:package_id>/campaigns/<int:campaign_id>/excluded/",
        launch_views.package_excluded,
        name="package-launch-excluded",
    ),
    path("automation/campaigns/new/", campaign_views.campaign_new, name="journey-campaign-new"),
    path(
        "automation/campaigns/<int:campaign_id>/", campaign_views.campaign_dashboard, name="journey-campaign-dashboard"
    ),
    path(
        "automation/campaigns/<int:campaign_id>/control/<str:action>/",
        campaign_views.campaign_control,
        name="journey-campaign-control",
    ),
    path("automation/campaigns/<int:campaign_id>/edit/", campaign_views.campaign_edit, name="journey-campaign-edit"),
    path(
        "automation/campaigns/<int:campaign_id>/enroll/", campaign_views.campaign_enroll, name="journey-campaign-enroll"
    ),
    path(
        "automation/campaigns/<int:campaign_id>/enroll/<int:batch_id>/",
        campaign_views.enrollment_review,
        name="journey-enrollment-review",
    ),
    path(
        "automation/campaigns/<int:campaign_id>/enroll/<int:batch_id>/decide/",
        campaign_views.enrollment_decide,
        name="journey-enrollment-decide",
    ),
    path(
        "automation/campaigns/<int:campaign_id>/enroll/<int:batch_id>/commit/",
        campaign_views.enrollment_commit,
        name="journey-enrollment-commit",
    ),
    path(
        "automation/campaigns/<int:campaign_id>/enroll/<int:batch_id>/discard/",
        campaign_views.enrollment_discard,
        name="journey-enrollment-discard",
    ),
    path(
        "automation/campaigns/<int:campaign_id>/enroll/<int:batch_id>/progress/",
        campaign_views.enrollment_progress,
        name="journey-enrollment-progress",
    ),
    path(
        "automation/campaigns/<int:campaign_id>/targets/",
        campaign_views.campaign_targets,
        name="journey-campaign-targets",
    ),
    path(
        "automation/campaigns/<int:campaign_id>/auto-enroll/",
        auto_enroll_views.campaign_auto_enroll,
        name="journey-campaign-auto-enroll",
    ),
    path(
        "automation/campaigns/<int:campaign_id>/auto-enroll/count/",
        auto_enroll_views.auto_enroll_count,
        name="journey-auto-enroll-count",
    ),
    path("automation/campaigns/<int:campaign_id>/logs/", campaign_views.campaign_logs, name="journey-campaign-logs"),
]
