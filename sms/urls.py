from django.urls import path

from sms import views
from sms.inbound import views as inbox_views

# Persian pages of this app, mounted at the site root by config/urls.py.
urlpatterns = [
    path("sms/", views.sms_home, name="sms-home"),
    path("sms/log/", views.attempt_log, name="sms-attempts"),
    path("sms/inbox/", inbox_views.inbox, name="sms-inbox"),
    path("sms/inbox/read/", inbox_views.inbox_mark_read, name="sms-inbox-read"),
    path("sms/blacklist/", views.blacklist, name="sms-blacklist"),
    path(
        "sms/blacklist/<int:entry_id>/<str:action>/",
        views.blacklist_entry_action,
        name="sms-blacklist-action",
    ),
    path("sms/templates/", views.template_list, name="sms-templates"),
    path("sms/templates/new/", views.template_form, name="sms-template-new"),
    path("sms/templates/<int:template_id>/", views.template_form, name="sms-template-edit"),
    path("sms/settings/", views.settings_page, name="sms-settings"),
    path("sms/settings/accounts/<int:account_id>/", views.account_edit, name="sms-account-edit"),
    path("sms/settings/accounts/<int:account_id>/test/", views.account_test, name="sms-account-test"),
]
