from django.urls import path

from campaigns.notifications.api import views

urlpatterns = [
    path("notifications", views.NotificationListApi.as_view(), name="api-notifications"),
    path("notifications/unread-count", views.NotificationUnreadApi.as_view(), name="api-notifications-unread"),
    path("notifications/read-all", views.NotificationMarkAllApi.as_view(), name="api-notifications-read-all"),
    path("notifications/<int:notification_id>/read", views.NotificationMarkApi.as_view(), name="api-notification-read"),
    path("activities", views.ActivityListApi.as_view(), name="api-activities"),
    path("activities/<int:activity_id>/done", views.ActivityDoneApi.as_view(), name="api-activity-done"),
    path("activities/<int:activity_id>/reopen", views.ActivityReopenApi.as_view(), name="api-activity-reopen"),
]
