"""One login throttle for every credential check: back-off per username + address, per address and per username.

It sits at the authentication layer, so every way to log in goes through it: the staff ``/login/``,
Django's ``/admin/login/``, the admin's password change (the current password), API keys
(``HashedTokenAuthentication`` calls ``authenticate(api_key=…)``) and anything else calling
``django.contrib.auth.authenticate()`` with a request:

- ``LoginThrottleBackend`` comes first in ``AUTHENTICATION_BACKENDS``. It checks the waits before any
  password is hashed; while one is running it refuses (``PermissionDenied`` ends ``authenticate()``), even
  for the right password, and marks the request (``request.login_retry_after``).
- ``user_login_failed`` counts a failure, ``user_logged_in`` clears the pair key and remembers the device.
- ``LoginThrottleMiddleware`` answers a refused page login with 429 + ``Retry-After`` and sets the
  "known device" cookie after a successful one (the API answers 429 itself, in the envelope).

Failures are counted in the cache under three keys: the pair (client address, username), the
address alone (one address trying many usernames) and the username alone (many addresses
trying one username). Past its free allowance each key imposes an exponential wait
(``LOGIN_BACKOFF_SECONDS`` doubled per further failure, capped at ``LOGIN_BACKOFF_MAX_SECONDS``).
Failures from an attacker's address never delay the user at another address, except the
username-wide key — and that one is skipped for a browser holding the signed "known device"
cookie from an earlier successful login of the same user.

The username is keyed as Django's username field reads it (NFKC, so a fullwidth spelling is the same
key), lower-cased. An API key's "username" is its public prefix, and an API key has no username-wide
key: its prefix is public (it is in every request of its integration) and its secret is 256 random bits
that no distributed guessing finds, so failures for a prefix from many addresses would only lock the
integration out (50 wrong secrets from 12 addresses did). Its failures count in the pair
(prefix + address) and the address keys only.

The client address is ``REMOTE_ADDR`` unless ``TRUSTED_PROXY_COUNT`` reverse proxies append to
``X-Forwarded-For``; then it is the entry that many places from the right (what the nearest
trusted proxy saw), the same rule DRF applies with ``NUM_PROXIES``.
"""

import hashlib
import time
import unicodedata

from django.conf import settings
from django.contrib.auth.signals import user_logged_in, user_login_failed
from django.core.cache import cache
from django.core.exceptions import PermissionDenied
from django.dispatch import receiver

WINDOW_SECONDS = 60 * 60  # failures are forgotten an hour after the first one
DEVICE_COOKIE = "login_device"
DEVICE_COOKIE_SALT = "campaigns.login-device"
DEVICE_COOKIE_MAX_AGE = 180 * 24 * 3600
API_KEY_NAME = "api-key:"  # the throttle's "username" of an API key: this + its public prefix


def client_ip(request) -> str:
    remote = request.META.get("REMOTE_ADDR", "")
    proxies = settings.TRUSTED_PROXY_COUNT
    forwarded = request.META.get("HTTP_X_FORWARDED_FOR")
    if proxies <= 0 or not forwarded:
        return remote
    addresses = [a.strip() for a in forwarded.split(",") if a.strip()]
    return addresses[-min(proxies, len(addresses))] if addresses else remote


RATE_WINDOW_SECONDS = 60  # over_rate's window: a client past its limit waits at most this long


def over_rate(request, scope: str, per_minute: int, *, key: str | None = None) -> bool:
    """One more request of ``scope`` from this client address (or of ``key``, e.g. a user): True when it passes
    ``per_minute`` in the minute that began with the first request (counted in the cache; a cache that lost the
    key lets it pass)."""
    key = f"{scope}:{client_ip(request) if key is None else key}"
    cache.add(key, 0, timeout=RATE_WINDOW_SECONDS)
    try:
        return cache.incr(key) > per_minute
    except ValueError:
        return False


def throttle_username(username: str) -> str:
    """The key of a username: NFKC (as Django's username field), trimmed, lower-cased."""
    return unicodedata.normalize("NFKC", username or "").strip().lower()


def _digest(*parts: str) -> str:
    return hashlib.sha256("|".join(parts).encode()).hexdigest()[:32]


class LoginThrottle:
    def __init__(self, request, username: str) -> None:
        self.username = throttle_username(username)
        self.ip = client_ip(request)
        self.known_device = (
            request.get_signed_cookie(DEVICE_COOKIE, default=None, salt=DEVICE_COOKIE_SALT) == self.username
        )
        self.keys = {
            "pair": (_digest(self.ip, self.username), settings.LOGIN_FAILURES_PER_USERNAME),
            "ip": (_digest(self.ip), settings.LOGIN_FAILURES_PER_IP),
        }
        if not self.username.startswith(API_KEY_NAME):
            # distributed guessing of one username (not of an API key's secret); ten times the pair allowance
            self.keys["user"] = (_digest("*", self.username), settings.LOGIN_FAILURES_PER_USERNAME * 10)

    def _active(self):
        for kind, (digest, limit) in self.keys.items():
            if kind == "user" and self.known_device:
                continue
            yield kind, digest, limit

    def retry_after(self) -> int:
        """Seconds until a login attempt is allowed (0: allowed now)."""
        now = time.time()
        waits = cache.get_many([f"login-wait:{kind}:{digest}" for kind, digest, _ in self._active()]).values()
        return max([0, *[int(w - now) + 1 for w in waits if w - now > 0]])

    def failed(self) -> None:
        now = time.time()
        for kind, (digest, limit) in self.keys.items():
            key = f"login-failures:{kind}:{digest}"
            cache.add(key, 0, WINDOW_SECONDS)
            try:
                count = cache.incr(key)
            except ValueError:  # expired between add and incr
                cache.set(key, 1, WINDOW_SECONDS)
                count = 1
            if count >= limit:
                doubled = settings.LOGIN_BACKOFF_SECONDS * 2 ** min(count - limit, 20)
                wait = min(doubled, settings.LOGIN_BACKOFF_MAX_SECONDS)
                cache.set(f"login-wait:{kind}:{digest}", now + wait, wait)

    def succeeded(self, response) -> None:
        digest = self.keys["pair"][0]
        cache.delete_many([f"login-failures:pair:{digest}", f"login-wait:pair:{digest}"])
        response.set_signed_cookie(
            DEVICE_COOKIE,
            self.username,
            salt=DEVICE_COOKIE_SALT,
            max_age=DEVICE_COOKIE_MAX_AGE,
            httponly=True,
            secure=settings.SESSION_COOKIE_SECURE,
            samesite="Lax",
        )


def _credential_name(credentials: dict) -> str:
    if credentials.get("api_key") is not None:
        return API_KEY_NAME + str(credentials["api_key"]).partition(".")[0]
    return str(credentials.get("username") or "")


class LoginThrottleBackend:
    """First authentication backend: refuses every credential check of a request under back-off."""

    def authenticate(self, request, **credentials):
        if request is None:  # no client address (a shell, a command): nothing to throttle
            return None
        request.login_throttle = LoginThrottle(request, _credential_name(credentials))
        wait = request.login_throttle.retry_after()
        if wait:
            request.login_retry_after = wait
            raise PermissionDenied  # stops authenticate(): no other backend checks the password
        return None  # no get_user(): never a session's backend (nor force_login's default)


@receiver(user_login_failed, dispatch_uid="login-throttle-failed")
def _count_failure(sender, credentials, request=None, **kwargs) -> None:
    throttle = getattr(request, "login_throttle", None)
    if throttle is not None and not getattr(request, "login_retry_after", 0):
        throttle.failed()  # an attempt refused during back-off does not lengthen it


@receiver(user_logged_in, dispatch_uid="login-throttle-succeeded")
def _remember_success(sender, request=None, user=None, **kwargs) -> None:
    if request is not None and getattr(request, "login_throttle", None) is not None:
        request.login_succeeded = True


class LoginThrottleMiddleware:
    """429 + ``Retry-After`` for a page whose login was refused by the throttle; the device cookie after success."""

    def __init__(self, get_response) -> None:
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        wait = getattr(request, "login_retry_after", 0)
        if wait and response.status_code < 300:
            response.status_code = 429
            response["Retry-After"] = str(wait)
        elif getattr(request, "login_succeeded", False):
            request.login_throttle.succeeded(response)
        return response
