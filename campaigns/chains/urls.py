"""Persian pages of groups, chains, approval packages and runs (mounted by ``campaigns/urls.py``)."""

from django.urls import path

from campaigns.chains import single_views, views

urlpatterns = [
    path("chains/groups/", views.group_list, name="chain-groups"),
    path("chains/groups/new/", views.group_create, name="chain-group-new"),
    path("chains/groups/<int:group_id>/", views.group_tree, name="chain-group"),
    path("chains/groups/<int:group_id>/edit/", views.group_edit, name="chain-group-edit"),
    path("chains/groups/<int:group_id>/archive/", views.group_archive, name="chain-group-archive"),
    path("chains/groups/<int:group_id>/campaigns/add/", views.group_add, name="chain-group-add"),
    path("chains/groups/<int:group_id>/campaigns/new/", views.chain_campaign_new, name="chain-campaign-new"),
    path(
        "chains/groups/<int:group_id>/campaigns/<int:campaign_id>/move/",
        single_views.campaign_move,
        name="chain-campaign-move",
    ),
    path(
        "chains/campaigns/<int:campaign_id>/approve/",
        single_views.campaign_decide,
        {"decision": "approve"},
        name="chain-campaign-approve",
    ),
    path(
        "chains/campaigns/<int:campaign_id>/reject/",
        single_views.campaign_decide,
        {"decision": "reject"},
        name="chain-campaign-reject",
    ),
    path("chains/campaigns/<int:campaign_id>/edit/", views.chain_campaign_edit, name="chain-campaign-edit"),
    path("chains/campaigns/<int:campaign_id>/clone/", views.chain_campaign_clone, name="chain-campaign-clone"),
    path("chains/campaigns/<int:campaign_id>/delete/", views.chain_campaign_delete, name="chain-campaign-delete"),
    path("chains/campaigns/<int:campaign_id>/submit/", views.chain_submit, name="chain-submit"),
    path("chains/campaigns/<int:campaign_id>/control/<str:action>/", views.chain_control, name="chain-control"),
    path("chains/campaigns/<int:campaign_id>/runs/", views.campaign_runs, name="chain-campaign-runs"),
    path("chains/campaigns/<int:campaign_id>/runs/now/", views.run_now, name="chain-run-now"),
    path("chains/runs/<int:run_id>/audience.xlsx", views.run_audience_export, name="chain-run-export"),
    path("chains/runs/<int:run_id>/rerun/", views.run_again, name="chain-run-rerun"),
    path("chains/audience/count/", views.audience_count_partial, name="chain-audience-count"),
    path("chains/preview/", views.inheritance_preview_partial, name="chain-preview"),
    path("chains/root-preview/", views.root_preview_partial, name="chain-root-preview"),
    path("chains/approvals/", views.package_list, name="chain-packages"),
    path("chains/approvals/<int:package_id>/", views.package_detail, name="chain-package"),
    path("chains/approvals/<int:package_id>/approve/", views.package_approve, name="chain-package-approve"),
    path("chains/approvals/<int:package_id>/reject/", views.package_reject, name="chain-package-reject"),
    path("chains/approvals/<int:package_id>/withdraw/", views.package_withdraw, name="chain-package-withdraw"),
]
