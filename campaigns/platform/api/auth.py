"""API authentication by hashed, expiring keys (``Authorization: Token <prefix>.<secret>``)."""

from django.utils.translation import gettext_lazy as _
from rest_framework import exceptions
from rest_framework.authentication import TokenAuthentication

from campaigns.platform.tokens import api_token_authenticate


class HashedTokenAuthentication(TokenAuthentication):
    """DRF's header parsing and 401 challenge (``WWW-Authenticate: Token``), our token table."""

    keyword = "Token"

    def authenticate_credentials(self, key):
        token = api_token_authenticate(key=key)
        if token is None:
            raise exceptions.AuthenticationFailed(_("Invalid token."))
        if not token.user.is_active:
            raise exceptions.AuthenticationFailed(_("User inactive or deleted."))
        return token.user, token
