"""URLconf for admin tests: imports the chains admin before building admin.site.urls."""

from django.contrib import admin
from django.urls import path

import campaigns.chains.admin  # noqa: F401  (registers groups, chains, packages)
from config.urls import urlpatterns as base_patterns

urlpatterns = [path("admin/", admin.site.urls), *base_patterns[1:]]
