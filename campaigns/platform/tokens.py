"""API keys: created once (the key is shown only then), stored as prefix + SHA-256, expiring."""

import hashlib
import hmac
import secrets
from datetime import timedelta

from django.conf import settings
from django.utils import timezone

from campaigns.platform.models import ApiToken

# How often last_used_at is written (a busy client must not turn every read into a write).
LAST_USED_RESOLUTION = timedelta(minutes=5)


def _hash(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


def api_token_create(*, user, name: str = "", ttl_days: int | None = None) -> tuple[ApiToken, str]:
    """Create a key for ``user``; returns the row and the clear key (``<prefix>.<secret>``), shown once."""
    days = settings.API_TOKEN_TTL_DAYS if ttl_days is None else ttl_days
    if days <= 0:
        raise ValueError("ttl_days must be positive")
    prefix = secrets.token_hex(6)
    key = f"{prefix}.{secrets.token_urlsafe(32)}"
    token = ApiToken.objects.create(
        user=user,
        name=name[:100],
        prefix=prefix,
        key_hash=_hash(key),
        expires_at=timezone.now() + timedelta(days=days),
    )
    return token, key


def api_token_authenticate(*, key: str) -> ApiToken | None:
    """The live token for ``key`` (constant-time hash comparison), or None; records last use."""
    prefix, _, secret = key.partition(".")
    if not prefix or not secret:
        return None
    token = ApiToken.objects.select_related("user").filter(prefix=prefix).first()
    # Compare even when no row matched, so timing does not tell whether a prefix exists.
    expected = token.key_hash if token is not None else "0" * 64
    if not hmac.compare_digest(expected, _hash(key)) or token is None:
        return None
    now = timezone.now()
    if token.revoked_at is not None or token.expires_at <= now:
        return None
    if token.last_used_at is None or now - token.last_used_at > LAST_USED_RESOLUTION:
        ApiToken.objects.filter(pk=token.pk).update(last_used_at=now)
        token.last_used_at = now
    return token
