from django.urls import path

from workers import campaign_pages, resource_pages, views

# Persian pages of this app, mounted at the site root by config/urls.py.
urlpatterns = [
    path("browser/", views.browser_campaigns, name="browser-campaigns"),
    path("browser/campaigns/new/", campaign_pages.browser_campaign_new, name="browser-campaign-new"),
    path("browser/campaigns/accounts/", campaign_pages.browser_campaign_accounts, name="browser-campaign-accounts"),
    path("browser/campaigns/<int:campaign_id>/", views.browser_campaign_detail, name="browser-campaign"),
    path(
        "browser/campaigns/<int:campaign_id>/progress/",
        views.browser_campaign_progress,
        name="browser-campaign-progress",
    ),
    path(
        "browser/campaigns/<int:campaign_id>/control/", views.browser_campaign_control, name="browser-campaign-control"
    ),
    path(
        "browser/campaigns/<int:campaign_id>/edit/", campaign_pages.browser_campaign_edit, name="browser-campaign-edit"
    ),
    path("browser/tasks/<int:task_id>/screenshot/", views.browser_task_screenshot, name="browser-task-screenshot"),
    path("browser/accounts/", resource_pages.account_list, name="browser-accounts"),
    path("browser/accounts/new/", resource_pages.account_edit, name="browser-account-new"),
    path("browser/accounts/<int:account_id>/", resource_pages.account_edit, name="browser-account-edit"),
    path("browser/accounts/<int:account_id>/status/", resource_pages.account_action, name="browser-account-action"),
    path("browser/accounts/import/", resource_pages.bulk_import, {"kind": "accounts"}, name="browser-account-import"),
    path("browser/proxies/", resource_pages.proxy_list, name="browser-proxies"),
    path("browser/proxies/import/", resource_pages.bulk_import, {"kind": "proxies"}, name="browser-proxy-import"),
    path("browser/proxies/new/", resource_pages.proxy_edit, name="browser-proxy-new"),
    path("browser/proxies/<int:proxy_id>/", resource_pages.proxy_edit, name="browser-proxy-edit"),
    path("browser/proxies/<int:proxy_id>/reset/", resource_pages.proxy_reset, name="browser-proxy-reset"),
]
