from django.urls import path

from automation import views

# Persian pages of this app, mounted at the site root by config/urls.py.
urlpatterns = [
    path("automation/workflows/", views.workflow_list, name="workflow-list"),
    path("automation/workflows/new/", views.workflow_new, name="workflow-new"),
    path("automation/workflows/<int:workflow_id>/", views.workflow_detail, name="workflow-detail"),
    path("automation/workflows/<int:workflow_id>/publish/", views.workflow_publish, name="workflow-publish"),
    path("automation/workflows/<int:workflow_id>/new-draft/", views.workflow_new_draft, name="workflow-new-draft"),
    path("automation/workflows/<int:workflow_id>/archive/", views.workflow_archive, name="workflow-archive"),
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
        "automation/workflows/<int:workflow_id>/builder/preview/",
        views.builder_preview,
        name="workflow-builder-preview",
    ),
]
