"""Rate limits of single actions, on top of the API's default throttles (``DEFAULT_THROTTLE_CLASSES``).

``WebhookSendThrottle``: a member's manual sends to a webhook's receiver — the test event and the replay of a
delivery — ``WEBHOOK_MANUAL_SENDS_PER_MINUTE`` a minute per user, one count shared by the API and the pages
(both call it). Past it the API answers 429 ``RATE_LIMITED`` in the envelope (``retry_after_seconds``,
``Retry-After``) before any ``Idempotency-Key`` is claimed; the pages answer 429 in Persian.
"""

from django.conf import settings
from rest_framework.settings import api_settings
from rest_framework.throttling import UserRateThrottle


class WebhookSendThrottle(UserRateThrottle):
    scope = "webhook_send"

    def get_rate(self) -> str:  # read at each request, so a changed setting (and a test's) applies
        return f"{settings.WEBHOOK_MANUAL_SENDS_PER_MINUTE}/min"


def with_default_throttles(*throttles: type) -> list[type]:
    """A view's ``throttle_classes``: the API's defaults (anonymous and per-user rates) plus these."""
    return [*api_settings.DEFAULT_THROTTLE_CLASSES, *throttles]


def throttle_wait(request, throttle_class: type) -> int | None:
    """For a page: None when ``throttle_class`` lets this request through (and counts it), else the seconds to
    wait."""
    throttle = throttle_class()
    if throttle.allow_request(request, None):
        return None
    return max(1, int(throttle.wait() or 1))
