from django.urls import include, path

from campaigns.api import key_views, views, webhook_views

urlpatterns = [
    path("me", views.MeApi.as_view(), name="api-me"),
    path("targets", views.TargetListCreateApi.as_view(), name="api-targets"),
    path("targets/bulk", views.TargetBulkApi.as_view(), name="api-targets-bulk"),
    path("targets/export", views.TargetExportApi.as_view(), name="api-targets-export"),
    path("targets/import", views.TargetImportApi.as_view(), name="api-targets-import"),
    path("targets/imports/<int:import_id>", views.TargetImportDetailApi.as_view(), name="api-target-import"),
    path("targets/imports/<int:import_id>/rows", views.TargetImportRowsApi.as_view(), name="api-target-import-rows"),
    path("targets/<int:target_id>", views.TargetDetailApi.as_view(), name="api-target"),
    path("target-lists", views.TargetListsApi.as_view(), name="api-target-lists"),
    path("target-lists/<int:list_id>", views.TargetListDetailApi.as_view(), name="api-target-list"),
    path("campaigns", views.CampaignListApi.as_view(), name="api-campaigns"),
    path("campaigns/<int:campaign_id>", views.CampaignDetailApi.as_view(), name="api-campaign"),
    # a standalone campaign's approval decision (submit serves chains and standalone alike: the chains API)
    path("campaign/<int:campaign_id>/approve", views.CampaignApproveApi.as_view(), name="api-campaign-approve"),
    path("campaign/<int:campaign_id>/reject", views.CampaignRejectApi.as_view(), name="api-campaign-reject"),
    path("api-keys", key_views.ApiKeyListCreateApi.as_view(), name="api-keys"),
    path("api-keys/<int:key_id>", key_views.ApiKeyDetailApi.as_view(), name="api-key"),
    path("webhooks", webhook_views.WebhookListCreateApi.as_view(), name="api-webhooks"),
    path("webhooks/<int:webhook_id>", webhook_views.WebhookDetailApi.as_view(), name="api-webhook"),
    path(
        "webhooks/<int:webhook_id>/rotate-secret", webhook_views.WebhookRotateApi.as_view(), name="api-webhook-rotate"
    ),
    path("webhooks/<int:webhook_id>/test", webhook_views.WebhookTestApi.as_view(), name="api-webhook-test"),
    path(
        "webhooks/<int:webhook_id>/deliveries",
        webhook_views.WebhookDeliveriesApi.as_view(),
        name="api-webhook-deliveries",
    ),
    path(
        "webhook-deliveries/<int:delivery_id>/replay",
        webhook_views.WebhookReplayApi.as_view(),
        name="api-webhook-delivery-replay",
    ),
    path("", include("campaigns.notifications.api.urls")),
]
