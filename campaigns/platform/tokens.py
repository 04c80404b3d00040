"""API keys: created once (the key is shown only then), stored as prefix + SHA-256, expiring, scoped.

Every key is bound to one workspace of its user and acts there only: the pages and ``POST /api/v1/api-keys``
bind it to the current workspace, ``manage.py api_token_create --workspace`` to the one named. A key of
an older version that no migration could bind (its user in several workspaces) is refused
(``platform`` migration 0008).

A key made with a key (``POST /api/v1/api-keys`` called with a key) records its granter (``granted_by``) and
never outlives it. Revoking a key revokes every key made with it, transitively, each recording the key whose
revocation took it (``revoked_with``): a leaked key cannot leave keys behind that it made.
"""

import hashlib
import hmac
import secrets
from datetime import datetime, timedelta

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from campaigns.platform.errors import NotAuthenticated, NotFound, ValidationFailed
from campaigns.platform.models import ApiToken, Membership, Workspace

MAX_TTL_DAYS = 730
ALL_SCOPES = "all"

# How often last_used_at is written (a busy client must not turn every read into a write).
LAST_USED_RESOLUTION = timedelta(minutes=5)


def _hash(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


def api_token_scopes_clean(*, scopes: list[str], known: list[str], granter: ApiToken | None = None) -> list[str]:
    """The scopes as stored (unique, known; ``all`` alone absorbs the rest). A key creating a key may give
    only scopes it holds itself."""
    unknown = sorted(set(scopes) - set(known))
    if unknown or not scopes:
        raise ValidationFailed.field("scopes", "دامنه نامعتبر: " + "، ".join(unknown) if unknown else "دست‌کم یک دامنه.")
    clean = [ALL_SCOPES] if ALL_SCOPES in scopes else [s for s in known if s in scopes]
    if granter is not None and ALL_SCOPES not in granter.scopes and not set(clean) <= set(granter.scopes):
        raise ValidationFailed.field("scopes", "کلید سازنده خود این دامنه‌ها را ندارد.")
    return clean


def api_token_create(
    *,
    user,
    name: str = "",
    workspace: Workspace,
    ttl_days: int | None = None,
    scopes: list[str] | None = None,
    read_only: bool = False,
    not_after: datetime | None = None,
    granter: ApiToken | None = None,
) -> tuple[ApiToken, str]:
    """Create a key for ``user`` acting in ``workspace`` (one of theirs); returns the row and the clear key
    (``<prefix>.<secret>``), shown once. ``not_after``: the latest it may expire — a key made by a key ends no
    later than its granter, so a leaked short-lived key cannot mint a long-lived one. ``granter``: the key the
    request came with, recorded so that revoking it revokes this one too; it is locked while the key is made,
    so a revocation running at the same time either sees the new key or makes this call fail (401)."""
    if not Membership.objects.filter(user=user, workspace=workspace).exists():
        raise ValidationFailed.field("workspace", "کاربر عضو این فضای کاری نیست.")
    days = settings.API_TOKEN_TTL_DAYS if ttl_days is None else ttl_days
    if days <= 0:
        raise ValueError("ttl_days must be positive")
    expires_at = timezone.now() + timedelta(days=days)
    if not_after is not None:
        expires_at = min(expires_at, not_after)
    prefix = secrets.token_hex(6)
    key = f"{prefix}.{secrets.token_urlsafe(32)}"
    with transaction.atomic():
        if granter is not None:
            live = ApiToken.objects.select_for_update().filter(
                pk=granter.pk, revoked_at__isnull=True, expires_at__gt=timezone.now()
            )
            if not live.exists():  # revoked (or expired) since the request was authenticated
                raise NotAuthenticated("کلید API نادرست، منقضی یا باطل است.", code="AUTHENTICATION_FAILED")
        token = ApiToken.objects.create(
            user=user,
            workspace=workspace,
            name=name[:100],
            prefix=prefix,
            key_hash=_hash(key),
            scopes=scopes or [ALL_SCOPES],
            read_only=read_only,
            expires_at=expires_at,
            granted_by=granter,
        )
    return token, key


def api_token_revoke(*, user, workspace: Workspace, token_id: int) -> ApiToken:
    """Revoke one of ``user``'s keys of ``workspace`` and every key made with it, transitively (conditional
    UPDATEs; a key already revoked keeps its time, but the keys made with it are still looked for). The answer's
    ``revoked_granted`` says how many keys made with it were revoked now."""
    token = ApiToken.objects.filter(pk=token_id, user=user, workspace=workspace).first()
    if token is None:
        raise NotFound()
    now = timezone.now()
    with transaction.atomic():
        # the UPDATE locks the row: a key being made with it waits, then sees it revoked (api_token_create)
        ApiToken.objects.filter(pk=token.pk, revoked_at__isnull=True).update(revoked_at=now)
        revoked_granted = api_tokens_granted_revoke(root=token, now=now)
    token.refresh_from_db()
    token.revoked_granted = revoked_granted
    return token


def api_tokens_granted_revoke(*, root: ApiToken, now: datetime | None = None) -> int:
    """Revoke the live keys made with ``root``, and those made with them, level by level (also below a key
    already revoked: keys revoked before this rule existed left theirs live); each records ``revoked_with=root``.
    Returns how many were revoked. Run inside the transaction that revoked ``root``."""
    now = now or timezone.now()
    seen, level, revoked = {root.pk}, [root.pk], 0
    while level:
        found = ApiToken.objects.filter(granted_by_id__in=level).values_list("pk", flat=True)
        level = [pk for pk in found if pk not in seen]
        seen.update(level)
        revoked += ApiToken.objects.filter(pk__in=level, revoked_at__isnull=True).update(
            revoked_at=now, revoked_with=root
        )
    return revoked


def api_tokens_of(*, user, workspace: Workspace):
    """``user``'s keys bound to ``workspace``, newest first."""
    return ApiToken.objects.filter(user=user, workspace=workspace).order_by("-created_at", "-id")


def api_token_authenticate(*, key: str) -> ApiToken | None:
    """The live token for ``key`` (constant-time hash comparison), or None; records last use."""
    prefix, _, secret = key.partition(".")
    if not prefix or not secret:
        return None
    token = ApiToken.objects.select_related("user", "workspace").filter(prefix=prefix).first()
    # Compare even when no row matched, so timing does not tell whether a prefix exists.
    expected = token.key_hash if token is not None else "0" * 64
    if not hmac.compare_digest(expected, _hash(key)) or token is None:
        return None
    now = timezone.now()
    if token.revoked_at is not None or token.expires_at <= now or token.workspace_id is None:
        return None
    if token.last_used_at is None or now - token.last_used_at > LAST_USED_RESOLUTION:
        ApiToken.objects.filter(pk=token.pk).update(last_used_at=now)
        token.last_used_at = now
    return token
