"""URLs: Persian pages, admin, API v1, OpenAPI schema and docs; each installed channel mounts its own."""

from django.contrib import admin
from django.templatetags.static import static
from django.urls import include, path
from django.views.decorators.csrf import csrf_exempt
from django.views.generic import RedirectView
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView
from rest_framework.permissions import IsAuthenticated

from campaigns.forms import AdminLoginForm
from campaigns.platform.api.auth import key_or_login_required
from campaigns.platform.api.envelope import json_error
from campaigns.platform.channels import installed_channels
from campaigns.platform.healthz import healthz
from campaigns.platform.metrics import metrics_view
from campaigns.views import AdminPasswordChangeView, page_not_found_or_json, server_error_or_json

admin.site.site_header = "مدیریت سامانه کمپین"
admin.site.site_title = "سامانه کمپین"
admin.site.index_title = "مدیریت"
admin.site.login_form = AdminLoginForm  # says how long the login throttle asks to wait

CHANNELS = installed_channels()


@csrf_exempt
def api_not_found(request, rest):
    """Any method on an unknown /api/ path: the JSON 404 (no CSRF page for POST/PUT/PATCH/DELETE)."""
    return json_error("NOT_FOUND", "نشانی API پیدا نشد.", 404)


urlpatterns = [
    path("healthz", healthz, name="healthz"),
    path("favicon.ico", RedirectView.as_view(url=static("favicon.ico"), permanent=True), name="favicon"),
    path("metrics", metrics_view, name="metrics"),  # Prometheus; 404 unless METRICS_TOKEN is set
    # Over the admin's own view: the current password goes through the login throttle.
    path("admin/", include([path("password_change/", admin.site.admin_view(AdminPasswordChangeView.as_view()))])),
    path("admin/", admin.site.urls),
    path("i18n/", include("django.conf.urls.i18n")),  # set_language: the admin's language switch
    # The schema and its docs describe every endpoint: signed-in users or API keys (any scope) only
    # (a browser without either goes to the login page).
    path("api/schema/", SpectacularAPIView.as_view(permission_classes=[IsAuthenticated]), name="api-schema"),
    path(
        "api/docs/",
        key_or_login_required(
            SpectacularSwaggerView.as_view(url_name="api-schema", permission_classes=[IsAuthenticated])
        ),
        name="api-docs",
    ),
    path("api/v1/", include("campaigns.api.urls")),
    path("api/v1/", include("campaigns.chains.api.urls")),
    path("api/v1/", include("automation.api.urls")),
    # each installed channel's API and other mounts (its AppConfig's ``channel``: campaigns/platform/channels.py)
    *(path("api/v1/", include(c.api_urls)) for c in CHANNELS if c.api_urls),
    *(path(prefix, include(urlconf)) for c in CHANNELS for prefix, urlconf in c.mounts),
    path("api/<path:rest>", api_not_found),
    path("", include("campaigns.urls")),
    path("", include("campaigns.chains.urls")),
    path("", include("automation.urls")),
    *(path("", include(c.urls)) for c in CHANNELS if c.urls),
]

handler404 = page_not_found_or_json
handler500 = server_error_or_json
