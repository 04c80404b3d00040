"""API of the browser channel, mounted under /api/v1/ by config/urls.py."""

from django.urls import path

from workers.api import views

urlpatterns = [
    path("browser/accounts", views.AccountListApi.as_view(), name="api-browser-accounts"),
    path("browser/accounts/<int:account_id>", views.AccountDetailApi.as_view(), name="api-browser-account"),
    path(
        "browser/accounts/<int:account_id>/status", views.AccountStatusApi.as_view(), name="api-browser-account-status"
    ),
    path("browser/proxies", views.ProxyListApi.as_view(), name="api-browser-proxies"),
    path("browser/proxies/<int:proxy_id>", views.ProxyDetailApi.as_view(), name="api-browser-proxy"),
    path("browser/proxies/<int:proxy_id>/reset", views.ProxyResetApi.as_view(), name="api-browser-proxy-reset"),
    path("browser/action-configs", views.ActionConfigListApi.as_view(), name="api-browser-action-configs"),
    path(
        "browser/action-configs/<int:config_id>",
        views.ActionConfigDetailApi.as_view(),
        name="api-browser-action-config",
    ),
    path("browser/tasks", views.TaskListApi.as_view(), name="api-browser-tasks"),
    path("browser/tasks/<int:task_id>", views.TaskDetailApi.as_view(), name="api-browser-task"),
    path(
        "browser/tasks/<int:task_id>/screenshot", views.TaskScreenshotApi.as_view(), name="api-browser-task-screenshot"
    ),
    path("browser/tasks/<int:task_id>/retry", views.TaskRetryApi.as_view(), name="api-browser-task-retry"),
    path("browser/platforms", views.PlatformListApi.as_view(), name="api-browser-platforms"),
    path("browser/platforms/<int:platform_id>", views.PlatformDetailApi.as_view(), name="api-browser-platform"),
    path(
        "browser/platforms/<int:platform_id>/pause", views.PlatformPauseApi.as_view(), name="api-browser-platform-pause"
    ),
    path(
        "browser/platforms/<int:platform_id>/resume",
        views.PlatformResumeApi.as_view(),
        name="api-browser-platform-resume",
    ),
    path("browser/campaigns/<int:campaign_id>", views.BrowserCampaignDetailApi.as_view(), name="api-browser-campaign"),
    path(
        "browser/campaigns/<int:campaign_id>/statistics",
        views.CampaignStatisticsApi.as_view(),
        name="api-browser-campaign-statistics",
    ),
]
