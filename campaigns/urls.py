from django.contrib.auth import views as auth_views
from django.urls import include, path

from campaigns import api_key_views, views, webhook_views

urlpatterns = [
    path("", views.home, name="home"),
    path("login/", views.LoginView.as_view(), name="login"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("workspace/switch/", views.workspace_switch, name="workspace-switch"),
    path("workspace/settings/", views.workspace_settings, name="workspace-settings"),
    path("targets/", views.target_list, name="target-list"),
    path("targets/new/", views.target_new, name="target-new"),
    path("targets/<int:target_id>/edit/", views.target_edit, name="target-edit"),
    path("targets/import/", views.target_import, name="target-import"),
    path("targets/import/<int:import_id>/", views.target_import_detail, name="target-import-detail"),
    path("api-keys/", api_key_views.api_keys, name="api-keys"),
    path("api-keys/<int:key_id>/revoke/", api_key_views.api_key_revoke, name="api-key-revoke"),
    path("webhooks/", webhook_views.webhooks, name="webhooks"),
    path("webhooks/<int:webhook_id>/", webhook_views.webhook_detail, name="webhook-detail"),
    path(
        "webhooks/deliveries/<int:delivery_id>/replay/",
        webhook_views.webhook_delivery_replay_page,
        name="webhook-delivery-replay",
    ),
    path("", include("campaigns.notifications.urls")),
]
