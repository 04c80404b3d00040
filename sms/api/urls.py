"""API of this app (mounted under /api/v1/ by config/urls.py)."""

from django.urls import path

from sms.api import inbound, views

urlpatterns = [
    path("sms/preview", views.PreviewApi.as_view(), name="api-sms-preview"),
    path("sms/blacklist", views.BlacklistListApi.as_view(), name="api-sms-blacklist"),
    path("sms/blacklist/import", views.BlacklistImportApi.as_view(), name="api-sms-blacklist-import"),
    path("sms/blacklist/export", views.BlacklistExportApi.as_view(), name="api-sms-blacklist-export"),
    path("sms/blacklist/<int:entry_id>", views.BlacklistDetailApi.as_view(), name="api-sms-blacklist-entry"),
    path(
        "sms/blacklist/<int:entry_id>/reactivate",
        views.BlacklistReactivateApi.as_view(),
        name="api-sms-blacklist-reactivate",
    ),
    path("sms/templates", views.SmsTemplateListApi.as_view(), name="api-sms-templates"),
    path("sms/templates/<int:template_id>", views.SmsTemplateDetailApi.as_view(), name="api-sms-template"),
    path("sms/settings", views.SmsSettingsApi.as_view(), name="api-sms-settings"),
    path("sms/settings/resume", views.SmsCircuitResumeApi.as_view(), name="api-sms-settings-resume"),
    path("sms/settings/rotate-webhook", views.SmsWebhookRotateApi.as_view(), name="api-sms-settings-rotate"),
    path("sms/providers", views.SmsProviderListApi.as_view(), name="api-sms-providers"),
    path("sms/attempts", views.SmsAttemptListApi.as_view(), name="api-sms-attempts"),
    path("sms/attempts/<int:attempt_id>", views.SmsAttemptDetailApi.as_view(), name="api-sms-attempt"),
    path("sms/inbound", inbound.InboundListApi.as_view(), name="api-sms-inbound"),
    path("sms/inbound/read", inbound.InboundMarkReadApi.as_view(), name="api-sms-inbound-read"),
    path("sms/inbound/words", inbound.InboundWordsApi.as_view(), name="api-sms-inbound-words"),
    path("sms/inbound/<int:message_id>", inbound.InboundDetailApi.as_view(), name="api-sms-inbound-message"),
    path("sms/conversations/<int:target_id>", inbound.ConversationApi.as_view(), name="api-sms-conversation"),
]
