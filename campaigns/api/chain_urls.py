from django.urls import path  # noqa: F401

# Groups, chains and approval endpoints, mounted under /api/v1/ (chains issue).
urlpatterns: list = []
