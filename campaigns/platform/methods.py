"""Requests with a method the platform does not serve are answered 405 before any other middleware.

django-prometheus labels its latency histogram with the raw method, so every made-up method
(``FOO /``, ``X1 /``, …) was a new series of 15 buckets: 10,000 anonymous requests took one scrape from
728 to 200,164 series. Answering them first keeps them out of every metric, log and view; the methods
below are all that Django, DRF and the admin use.
"""

from django.http import HttpResponseNotAllowed

from campaigns.platform.api.envelope import json_error

KNOWN_METHODS = ("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS")


class KnownMethodMiddleware:
    """First in ``MIDDLEWARE``: 405 (the API's envelope under ``/api/``) for any other method."""

    def __init__(self, get_response) -> None:
        self.get_response = get_response

    def __call__(self, request):
        if request.method in KNOWN_METHODS:
            return self.get_response(request)
        if request.path.startswith("/api/"):
            response = json_error("METHOD_NOT_ALLOWED", "این روش درخواست پشتیبانی نمی‌شود.", 405)
            response["Allow"] = ", ".join(KNOWN_METHODS)
            return response
        return HttpResponseNotAllowed(KNOWN_METHODS)
