"""Login throttling: back-off per username + address, per address and per username, never a lock-out.

Failures are counted in the cache under three keys: the pair (client address, username), the
address alone (one address trying many usernames) and the username alone (many addresses
trying one username). Past its free allowance each key imposes an exponential wait
(``LOGIN_BACKOFF_SECONDS`` doubled per further failure, capped at ``LOGIN_BACKOFF_MAX_SECONDS``).
Failures from an attacker's address never delay the user at another address, except the
username-wide key — and that one is skipped for a browser holding the signed "known device"
cookie from an earlier successful login of the same user.

The client address is ``REMOTE_ADDR`` unless ``TRUSTED_PROXY_COUNT`` reverse proxies append to
``X-Forwarded-For``; then it is the entry that many places from the right (what the nearest
trusted proxy saw), the same rule DRF applies with ``NUM_PROXIES``.
"""

import hashlib
import time

from django.conf import settings
from django.core.cache import cache

WINDOW_SECONDS = 60 * 60  # failures are forgotten an hour after the first one
DEVICE_COOKIE = "login_device"
DEVICE_COOKIE_SALT = "campaigns.login-device"
DEVICE_COOKIE_MAX_AGE = 180 * 24 * 3600


def client_ip(request) -> str:
    remote = request.META.get("REMOTE_ADDR", "")
    proxies = settings.TRUSTED_PROXY_COUNT
    forwarded = request.META.get("HTTP_X_FORWARDED_FOR")
    if proxies <= 0 or not forwarded:
        return remote
    addresses = [a.strip() for a in forwarded.split(",") if a.strip()]
    return addresses[-min(proxies, len(addresses))] if addresses else remote


def _digest(*parts: str) -> str:
    return hashlib.sha256("|".join(parts).encode()).hexdigest()[:32]


class LoginThrottle:
    def __init__(self, request, username: str) -> None:
        self.username = username.strip().lower()
        self.ip = client_ip(request)
        self.known_device = (
            request.get_signed_cookie(DEVICE_COOKIE, default=None, salt=DEVICE_COOKIE_SALT) == self.username
        )
        self.keys = {
            "pair": (_digest(self.ip, self.username), settings.LOGIN_FAILURES_PER_USERNAME),
            "ip": (_digest(self.ip), settings.LOGIN_FAILURES_PER_IP),
            # distributed guessing of one username; ten times the pair allowance
            "user": (_digest("*", self.username), settings.LOGIN_FAILURES_PER_USERNAME * 10),
        }

    def _active(self):
        for kind, (digest, limit) in self.keys.items():
            if kind == "user" and self.known_device:
                continue
            yield kind, digest, limit

    def retry_after(self) -> int:
        """Seconds until a login attempt is allowed (0: allowed now)."""
        now = time.time()
        waits = [cache.get(f"login-wait:{kind}:{digest}", 0) - now for kind, digest, _ in self._active()]
        return max([0, *[int(w) + 1 for w in waits if w > 0]])

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
