"""API authentication by hashed, expiring keys (``Authorization: Token <prefix>.<secret>``).

The key is checked through ``django.contrib.auth.authenticate(api_key=…)``, so the login throttle
(``campaigns.platform.login_throttle``) counts a wrong key like a wrong password and answers 429
(``RATE_LIMITED`` + ``Retry-After``) while the client's address is in back-off.
"""

from functools import wraps

from django.contrib.auth import authenticate
from django.contrib.auth.views import redirect_to_login
from django.utils.translation import gettext_lazy as _
from rest_framework import exceptions
from rest_framework.authentication import TokenAuthentication

from campaigns.platform.tokens import api_token_authenticate


class ApiKeyBackend:
    """Authentication backend for ``authenticate(request, api_key=…)``: the key's active user, or None."""

    def authenticate(self, request, api_key=None):
        token = api_token_authenticate(key=api_key) if api_key else None
        if token is None or not token.user.is_active:
            return None
        token.user.api_token = token
        return token.user  # no get_user(): a key authenticates one request, never a session


class HashedTokenAuthentication(TokenAuthentication):
    """DRF's header parsing and 401 challenge (``WWW-Authenticate: Token``), our token table."""

    keyword = "Token"

    def authenticate(self, request):
        self.http_request = request._request
        return super().authenticate(request)

    def authenticate_credentials(self, key):
        user = authenticate(self.http_request, api_key=key)
        if user is None:
            wait = getattr(self.http_request, "login_retry_after", 0)
            if wait:
                raise exceptions.Throttled(wait)
            raise exceptions.AuthenticationFailed(_("Invalid token."))
        return user, user.api_token


def key_or_login_required(view):
    """The API docs page: a signed-in user, or a request with ``Authorization: Token …`` (checked by the DRF
    view: a wrong key is a 401); anyone else goes to the login page."""

    @wraps(view)
    def gated(request, *args, **kwargs):
        if request.user.is_authenticated or request.headers.get("Authorization", "").startswith("Token "):
            return view(request, *args, **kwargs)
        return redirect_to_login(request.get_full_path())

    return gated
