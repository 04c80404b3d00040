"""Rate limits of single actions, on top of the API's default throttles (``DEFAULT_THROTTLE_CLASSES``).

Manual sends to a webhook's receiver — the test event and the replay of a delivery — are limited twice, one count
shared by the API and the pages (both call the throttles): ``WebhookSendThrottle``,
``WEBHOOK_MANUAL_SENDS_PER_MINUTE`` a minute per member, and ``WebhookWorkspaceSendThrottle``,
``WEBHOOK_MANUAL_SENDS_PER_WORKSPACE_PER_MINUTE`` a minute for the whole workspace, so several admins do not
multiply the member's limit. Past either the API answers 429 ``RATE_LIMITED`` in the envelope
(``retry_after_seconds``, ``Retry-After``) before any ``Idempotency-Key`` is claimed; the pages answer 429 in
Persian.

A throttle with ``per_workspace`` reads the acting member's workspace: ``WorkspaceAPIView`` checks it once the
actor is resolved (DRF checks the others before), a page passes ``request.actor``.
"""

from django.conf import settings
from rest_framework.settings import api_settings
from rest_framework.throttling import SimpleRateThrottle, UserRateThrottle


class WebhookSendThrottle(UserRateThrottle):
    scope = "webhook_send"

    def get_rate(self) -> str:  # read at each request, so a changed setting (and a test's) applies
        return f"{settings.WEBHOOK_MANUAL_SENDS_PER_MINUTE}/min"


class WebhookWorkspaceSendThrottle(SimpleRateThrottle):
    scope = "webhook_send_workspace"
    per_workspace = True

    def get_rate(self) -> str:
        return f"{settings.WEBHOOK_MANUAL_SENDS_PER_WORKSPACE_PER_MINUTE}/min"

    def get_cache_key(self, request, view) -> str | None:
        actor = getattr(view, "actor", None) or getattr(request, "actor", None)
        if actor is None:
            return None
        return self.cache_format % {"scope": self.scope, "ident": actor.workspace.pk}


WEBHOOK_SEND_THROTTLES = (WebhookSendThrottle, WebhookWorkspaceSendThrottle)


def with_default_throttles(*throttles: type) -> list[type]:
    """A view's ``throttle_classes``: the API's defaults (anonymous and per-user rates) plus these."""
    return [*api_settings.DEFAULT_THROTTLE_CLASSES, *throttles]


def throttle_wait(request, *throttle_classes: type) -> int | None:
    """For a page: None when every one of ``throttle_classes`` lets this request through, else the seconds to
    wait (the longest); each throttle that lets it through counts it, as DRF's ``check_throttles`` does."""
    throttles = [throttle_class() for throttle_class in throttle_classes]
    waits = [throttle.wait() or 1 for throttle in throttles if not throttle.allow_request(request, None)]
    return max(1, int(max(waits))) if waits else None
